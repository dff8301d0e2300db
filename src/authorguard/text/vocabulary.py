"""How common a word is across many writers: the shipped table ``generalise`` reads to tell a rare word (one that
points to its writer: a hobby, a place, a name) from a common one.

A word's commonness is the number of *authors* whose writing uses it at least once, not its count: a word one
prolific blogger repeats is still rare. The table is built once (``scripts/generalise/word_table.py``) from the
staged corpora's authors that no evaluation scenario selects (blogs and 20 Newsgroups; the held-out pool of
``generalise``'s own evaluation left out too) and shipped with the package (``data/common_words.tsv.gz``: a header
line of provenance, then ``word<TAB>authors`` by rank), so no call recomputes it.
"""

from __future__ import annotations

import functools
import gzip
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from authorguard.exceptions import AuthorguardError

#: the shipped table: rank order, most widely used first
COMMON_WORDS = Path(__file__).parent / "data" / "common_words.tsv.gz"
#: the shipped first-names list (``scripts/generalise/first_names.py``): a "person" the recogniser finds is called
#: "someone" only when a first name, a title or the text's own description confirms it
FIRST_NAMES = Path(__file__).parent / "data" / "first_names.txt.gz"
#: the shipped lower-case shares (``scripts/generalise/word_table.py``): how often each word is written in lower
#: case inside a sentence — a "name" mostly written lower case is a word ("Heya", "Eww", "Neat")
LOWERCASE_SHARE = Path(__file__).parent / "data" / "lowercase_share.tsv.gz"
#: a word as the table counts it: letters, an inner apostrophe or hyphen, lower-cased
WORD = re.compile(r"[a-z]+(?:['-][a-z]+)*")


def words_of(text: str) -> set[str]:
    """The distinct words of ``text`` as the table counts them (lower-cased letters; "don't", "well-known")."""
    return set(WORD.findall(text.lower()))


def author_counts(texts_by_author: Mapping[str, Iterable[str]]) -> Counter:
    """For each word, the number of authors (keys) whose texts use it at least once."""
    counts: Counter = Counter()
    for texts in texts_by_author.values():
        seen: set[str] = set()
        for text in texts:
            seen |= words_of(text)
        counts.update(seen)
    return counts


#: a word inside a sentence: after a letter, a digit or a comma and one space (a sentence's first word is capitalised
#: whatever it is)
_INSIDE = re.compile(r"(?<=[A-Za-z0-9,] )([A-Za-z]+(?:['-][A-Za-z]+)*)")


def lowercase_counts(texts_by_author: Mapping[str, Iterable[str]]) -> tuple[Counter, Counter]:
    """(appearances written in lower case, all appearances) of each word (lower-cased) inside a sentence."""
    lower: Counter = Counter()
    written: Counter = Counter()
    for texts in texts_by_author.values():
        for text in texts:
            for word in _INSIDE.findall(text):
                key = word.lower()
                written[key] += 1
                lower[key] += word == key
    return lower, written


@functools.cache
def lowercase_shares(path: str | None = None) -> dict[str, float]:
    """Word -> the share of its appearances inside a sentence written in lower case (the shipped file)."""
    source = Path(path) if path else LOWERCASE_SHARE
    try:
        with gzip.open(source, "rt", encoding="utf-8") as handle:
            rows = [line.rstrip("\n").split("\t") for line in handle if not line.startswith("#")]
        return {word: float(share) for word, share in rows}
    except (OSError, EOFError, ValueError) as error:
        raise AuthorguardError(
            f"the lower-case shares {source} cannot be read ({error}): reinstall authorguard"
        ) from error


def table_rows(counts: Counter, *, min_authors: int = 3, limit: int = 40_000) -> list[tuple[str, int]]:
    """The table's rows: ``(word, authors)`` by descending count, ties alphabetically; words used by fewer than
    ``min_authors`` authors left out, at most ``limit`` rows."""
    rows = sorted(((w, n) for w, n in counts.items() if n >= min_authors), key=lambda item: (-item[1], item[0]))
    return rows[:limit]


def write_table(counts: Counter, path: Path, header: str, *, min_authors: int = 3, limit: int = 40_000) -> int:
    """Write the table (``# header`` then ``word<TAB>authors`` by descending count, ties alphabetically; words used
    by fewer than ``min_authors`` authors left out, at most ``limit`` rows). Returns the rows written."""
    rows = table_rows(counts, min_authors=min_authors, limit=limit)
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(f"# {header}\n")
        handle.writelines(f"{word}\t{n}\n" for word, n in rows)
    return len(rows)


@functools.lru_cache(maxsize=2)
def word_ranks(path: str | None = None) -> dict[str, int]:
    """Word -> rank (1 = used by the most authors) from the table at ``path`` (default the shipped one)."""
    source = Path(path) if path else COMMON_WORDS
    try:
        with gzip.open(source, "rt", encoding="utf-8") as handle:
            lines = [line.rstrip("\n") for line in handle if not line.startswith("#")]
    except (OSError, EOFError) as error:
        raise AuthorguardError(
            f"the common-words table {source} cannot be read ({error}): reinstall authorguard"
        ) from error
    ranks: dict[str, int] = {}
    for rank, line in enumerate(lines, start=1):
        word, _, count = line.partition("\t")
        if not word or not count.isdigit():
            raise AuthorguardError(f"the common-words table {source} is corrupt at row {rank}: {line[:40]!r}")
        ranks[word] = rank
    return ranks


def table_header(path: str | None = None) -> str:
    """The provenance line of the table (what it was built from)."""
    source = Path(path) if path else COMMON_WORDS
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        first = handle.readline()
    return first[2:].strip() if first.startswith("# ") else ""


def is_common(word: str, top: int) -> bool:
    """Whether ``word`` (any case) is among the ``top`` words used by the most authors."""
    rank = word_ranks().get(word.lower())
    return rank is not None and rank <= top


@functools.cache
def first_names(path: str | None = None) -> frozenset[str]:
    """The shipped first names (capitalised as written: "John", "Meggie")."""
    source = Path(path) if path else FIRST_NAMES
    try:
        with gzip.open(source, "rt", encoding="utf-8") as handle:
            return frozenset(line.strip() for line in handle if line.strip() and not line.startswith("#"))
    except (OSError, EOFError) as error:
        raise AuthorguardError(
            f"the first-names list {source} cannot be read ({error}): reinstall authorguard"
        ) from error
