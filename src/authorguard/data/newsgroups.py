"""20 Newsgroups (by-date split) with authors from the ``From:`` header.

Reads the original ``20news-bydate.tar.gz`` layout (``20news-bydate-{train,test}/<group>/<number>``) straight
from the archive. Each document keeps its newsgroup (label), split and author id (the normalised e-mail
address of its ``From:`` header). Headers, signature footers and quoted replies can be stripped.

References
----------
.. [Lan95] Lang, "NewsWeeder: Learning to Filter Netnews", ICML 1995. http://qwone.com/~jason/20Newsgroups/
"""

from __future__ import annotations

import os
import re
import tarfile
from collections.abc import Iterable
from email.utils import parseaddr

from authorguard.data.corpus import Corpus
from authorguard.data.download import RemoteFile, locate
from authorguard.exceptions import InputError
from authorguard.utils.validation import check_option

ARCHIVE = RemoteFile(
    dataset="20news",
    filename="20news-bydate.tar.gz",
    url="http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz",
    sha256=(
        # upstream archive (pinned by scikit-learn's fetch_20newsgroups)
        "8f1b2514ca22a5ade8fbb9cfa5727df95fa587f4c87b786e15c759fa66d95610",
        # the deterministic repack of the same 18,846 messages documented in shared/data/20news/MANIFEST.md
        "0b47d03e8def93a91c61f6254047c510e6a0023e2554ba02f31061d5c772cbfe",
    ),
)
PARTS = ("headers", "footers", "quotes")
_MEMBER = re.compile(r"^20news-bydate-(train|test)/([^/]+)/(\d+)$")
_ADDRESS = re.compile(r"[\w.+\-=!%]+@[\w\-]+(?:\.[\w\-]+)+")
_SIGNATURE_DELIMITER = re.compile(r"^\s*(?:--\s*|[-_=*~]{2,}\s*)$")
_ATTRIBUTION = re.compile(r"(?:\b(?:writes|wrote|says|said)\s*:\s*$)|(?:^\s*in article\s*<)", re.IGNORECASE)
_QUOTED = re.compile(r"^\s*(?:>|\||:(?!\)))")
_MAX_SIGNATURE_LINES = 15
_HEADER_END = re.compile(r"\n[ \t]*\n")


def normalize_address(from_header: str) -> str | None:
    """Author id from a ``From:`` value: the lower-cased e-mail address, or None when there is none.

    ``"Leonard Abrams <ABRAMS@cs.Columbia.EDU>"`` and ``"abrams@cs.columbia.edu (Leonard Abrams)"`` both give
    ``"abrams@cs.columbia.edu"``.
    """
    _, address = parseaddr(from_header)
    if "@" not in address:
        match = _ADDRESS.search(from_header)
        address = match.group(0) if match else ""
    address = address.strip().strip("<>.,;").lower()
    return address if "@" in address else None


def split_message(raw: str) -> tuple[dict[str, str], str]:
    """Headers (lower-case names, continuation lines joined) and body of an RFC-822-style message."""
    parts = _HEADER_END.split(raw, maxsplit=1)  # a blank line, possibly holding spaces, ends the headers
    head, body = parts[0], (parts[1] if len(parts) > 1 else "")
    headers: dict[str, str] = {}
    name = None
    for line in head.split("\n"):
        if line[:1] in (" ", "\t") and name is not None:
            headers[name] += " " + line.strip()
        elif ":" in line:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            headers.setdefault(name, value.strip())
    return headers, body


def strip_footer(body: str) -> str:
    """Remove a signature: everything from the last delimiter line (``--``, ``-----``, ``=====`` …)
    when at most 15 lines follow it."""
    lines = body.rstrip("\n").split("\n")
    for position in range(len(lines) - 1, max(-1, len(lines) - 2 - _MAX_SIGNATURE_LINES), -1):
        if _SIGNATURE_DELIMITER.match(lines[position]):
            return "\n".join(lines[:position])
    return body


def strip_quotes(body: str) -> str:
    """Remove quoted lines (``>``, ``|``, ``:``) and attribution lines ("In article <…> x writes:")."""
    return "\n".join(line for line in body.split("\n") if not (_QUOTED.match(line) or _ATTRIBUTION.search(line)))


def _decode(payload: bytes) -> str:
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        text = payload.decode("latin-1")  # 73 messages are not UTF-8; latin-1 as in scikit-learn
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_20newsgroups_archive(path: str | os.PathLike, subset: str = "all", remove: Iterable[str] = PARTS) -> Corpus:
    """Parse a ``20news-bydate.tar.gz`` into a :class:`Corpus` (documents sorted by split, group, number)."""
    subset = check_option(subset, "subset", "load_20newsgroups", ("train", "test", "all"))
    remove = tuple(remove)
    for part in remove:
        check_option(part, "remove", "load_20newsgroups", PARTS)
    records = []
    try:
        with tarfile.open(path, "r:gz") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                match = _MEMBER.match(member.name.lstrip("./"))
                if not match or (subset != "all" and match.group(1) != subset):
                    continue
                split, group, number = match.groups()
                handle = archive.extractfile(member)
                assert handle is not None  # extractfile gives None only for a non-file member, skipped above
                raw = _decode(handle.read())
                headers, body = split_message(raw)
                text = raw if "headers" not in remove else body
                if "quotes" in remove:
                    text = strip_quotes(text)
                if "footers" in remove:
                    text = strip_footer(text)
                author = normalize_address(headers.get("from", ""))
                records.append((split, group, int(number), text, author))
    except (tarfile.TarError, EOFError, OSError) as error:
        raise InputError(f"{path}: not a readable 20news-bydate tar.gz archive ({error})") from None
    if not records:
        raise InputError(f"{path}: no 20news-bydate messages found (expected 20news-bydate-train/<group>/<number>)")
    records.sort(key=lambda r: (r[0] != "train", r[1], r[2]))
    return Corpus(
        ids=tuple(f"{s}/{g}/{n}" for s, g, n, _, _ in records),
        texts=tuple(r[3] for r in records),
        authors=tuple(r[4] for r in records),
        labels=tuple(r[1] for r in records),
        splits=tuple(r[0] for r in records),
        name="20news",
        metadata={"source": str(path), "removed": list(remove)},
    )


def load_20newsgroups(
    subset: str = "all",
    remove: Iterable[str] = PARTS,
    *,
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    download: bool = True,
    verify: bool = True,
) -> Corpus:
    """20 Newsgroups by-date, from the data directory, the cache, or downloaded once (sha256-checked).

    Parameters
    ----------
    subset : {"train", "test", "all"}
    remove : iterable of {"headers", "footers", "quotes"}
        Parts stripped from each message before analysis (all three by default).
    data_dir : path, optional
        Folder holding ``20news/20news-bydate.tar.gz``; default ``AUTHORGUARD_DATA``.
    """
    path = locate(ARCHIVE, data_dir=data_dir, cache_dir=cache_dir, download=download, verify=verify)
    return read_20newsgroups_archive(path, subset=subset, remove=remove)
