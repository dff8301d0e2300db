"""The check's features, counted once: a background's writing is read from a cache, only the writer's is counted.

Every candidate is learnt from *pieces* as long as the text (100 to 500 words). A piece here is a run of
consecutive *blocks* of :data:`BLOCK_WORDS` words, and every feature the check's attackers read is a count that
adds up over blocks: character 1-4-grams (``char``), function words as the function-word attacker tokenises them
(``fw``), words (``words``), word 2-3-grams over words and punctuation marks (``tokens``) and part-of-speech 1-3-grams
(``pos``, NLTK's perceptron tagger run on each block). A piece's counts are the sum of its blocks' counts, so the
background's blocks are counted (and tagged: the slow part) once, stored beside the pool, and each check only sums
rows. Counting within blocks leaves out the n-grams that cross two blocks (about 3 character n-grams in 1,000):
the same for the writer as for everyone else, so cached and freshly counted features agree exactly.

Vocabularies are the pool's, fixed when the cache is built: the 65,535 character n-grams found in most blocks,
every word, the 5,000 most frequent word bigrams and trigrams each, every tag n-gram. The writer's character
n-grams and words that the pool's vocabulary lacks are added as columns of their own (zero for every background
author: such a rare string counts as the writer's alone, so the check may overstate its weight, never miss it).

The background's counts are cached by :mod:`authorguard.check.feature_cache`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

BLOCK_WORDS = 50
#: words of each background author counted and cached (the first ones): enough for 4,000 words of training
#: beside four held-out pieces of 500 words (:data:`authorguard.check.config.MAX_KNOWN_WORDS`)
AUTHOR_WORDS = 6_000
FAMILIES = ("char", "fw", "words", "tokens", "pos")
#: families whose vocabulary grows with the writer's own strings
EXTENDED = ("char", "words")
CHAR_VOCABULARY = 65_535
TOKEN_NGRAM_VOCABULARY = 5_000

_PIECES = re.compile(r"\S+\s*")
_FW_TOKEN = re.compile(r"(?u)\b\w+\b")
#: WritePrints' word and token patterns (authorguard.attacks.writeprints)
WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?|[^\w\s]")
#: the function-word family's extra column: tokens counted (the rates' denominator)
FW_TOKENS = "\x00tokens"


def cut_blocks(texts: Sequence[str], limit: int | None = None) -> list[str]:
    """``texts`` joined in order (a blank line between, as :func:`~authorguard.check.texts.cut_pieces` joins
    them) and cut into blocks of :data:`BLOCK_WORDS` words; the last block may be shorter. ``limit``: the most
    words used (the first ones)."""
    tokens = _PIECES.findall("\n\n".join(t.strip() for t in texts))
    if limit is not None:
        tokens = tokens[:limit]
    blocks = ["".join(tokens[i : i + BLOCK_WORDS]).strip() for i in range(0, len(tokens), BLOCK_WORDS)]
    return [b for b in blocks if b]


# --- what each family counts in one block ------------------------------------------------------------------


def _char_keys(text: str) -> list[str]:
    global _CHAR_ANALYZER
    if _CHAR_ANALYZER is None:
        from sklearn.feature_extraction.text import CountVectorizer

        _CHAR_ANALYZER = CountVectorizer(analyzer="char", ngram_range=(1, 4), lowercase=False).build_analyzer()
    return _CHAR_ANALYZER(text)


def _fw_keys(text: str) -> list[str]:
    from authorguard.text.resources import english_stop_words

    stop = english_stop_words()
    tokens = [t.lower() for t in _FW_TOKEN.findall(text)]
    return [t for t in tokens if t in stop] + [FW_TOKENS] * len(tokens)


def _word_keys(text: str) -> list[str]:
    return WORD.findall(text.lower())


def _ngram_keys(sequence: Sequence[str], sizes: Sequence[int]) -> list[str]:
    return [f"{n}:" + " ".join(sequence[i : i + n]) for n in sizes for i in range(len(sequence) - n + 1)]


def _token_keys(text: str) -> list[str]:
    return _ngram_keys([t.lower() for t in TOKEN.findall(text)], (2, 3))


def _pos_keys(text: str) -> list[str]:
    from authorguard.text.resources import pos_tagger

    tokens = TOKEN.findall(text)
    tags = [tag for _, tag in pos_tagger().tag(tokens)] if tokens else []  # pos_tagger() is loaded once
    return _ngram_keys(tags, (1, 2, 3))


_CHAR_ANALYZER = None
KEYS: dict[str, Callable[[str], list[str]]] = {
    "char": _char_keys,
    "fw": _fw_keys,
    "words": _word_keys,
    "tokens": _token_keys,
    "pos": _pos_keys,
}


def count_blocks(
    blocks: Sequence[str], families: Sequence[str] = FAMILIES
) -> dict[str, tuple[sp.csr_matrix, list[str]]]:
    """Each family's counts of ``blocks`` in a vocabulary of their own: {family: (counts of shape (n_blocks,
    n_keys), the keys)}."""
    out = {}
    for family in families:
        index: dict[str, int] = {}
        indptr, indices, values = [0], [], []
        for block in blocks:
            counts = Counter(KEYS[family](block))
            for key, n in counts.items():
                indices.append(index.setdefault(key, len(index)))
                values.append(n)
            indptr.append(len(indices))
        matrix = sp.csr_matrix(
            (
                np.asarray(values, dtype=np.int32),
                np.asarray(indices, dtype=np.int32),
                np.asarray(indptr, dtype=np.int64),
            ),
            shape=(len(blocks), len(index)),
        )
        out[family] = (matrix, list(index))
    return out


# --- a background pool's features ---------------------------------------------------------------------------


#: the code and constants the counts depend on (:func:`authorguard.check.feature_cache.code_version` digests them: a
#: cache made by other counting code is rebuilt)
COUNTING_CODE = (cut_blocks, _char_keys, _fw_keys, _word_keys, _ngram_keys, _token_keys, _pos_keys, count_blocks)
COUNTING_CONSTANTS = (
    BLOCK_WORDS,
    AUTHOR_WORDS,
    FAMILIES,
    CHAR_VOCABULARY,
    TOKEN_NGRAM_VOCABULARY,
    WORD.pattern,
    TOKEN.pattern,
    _FW_TOKEN.pattern,
)


def remap(matrix: sp.csr_matrix, keys: Sequence[str], index: dict, width: int) -> sp.csr_matrix:
    """``matrix``'s columns (named ``keys``) moved to their place in ``index`` (a key -> column map of ``width``
    columns); keys ``index`` lacks are dropped."""
    target = np.asarray([index.get(k, -1) for k in keys], dtype=np.int64)
    coo = matrix.tocoo()
    moved = target[coo.col] if len(keys) else np.empty(0, dtype=np.int64)
    keep = moved >= 0
    return sp.csr_matrix((coo.data[keep], (coo.row[keep], moved[keep])), shape=(matrix.shape[0], width))


@dataclass
class BlockMatrix:
    """The blocks a check reads, stacked: ``counts[family]`` (n_blocks, width) with the pool's columns first and
    the writer's new strings after; ``vocabulary[family]``: the column names."""

    counts: dict
    vocabulary: dict

    def pieces(self, runs: Sequence[Sequence[int]], families: Sequence[str] | None = None) -> dict:
        """Each run of block rows summed: {family: (len(runs), width)} for ``families`` (default: all)."""
        rows = [i for run in runs for i in run]
        owners = [p for p, run in enumerate(runs) for _ in run]
        summing = sp.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (owners, rows)),
            shape=(len(runs), next(iter(self.counts.values())).shape[0]),
        )
        return {family: (summing @ self.counts[family]).tocsr() for family in (families or self.counts)}


def count_texts(matrix: BlockMatrix, texts: Sequence[str], families: Sequence[str] = FAMILIES) -> dict:
    """Each text's counts (its blocks summed) in ``matrix``'s columns (strings it lacks dropped):
    {family: (len(texts), width)}."""
    out = {}
    blocks = [cut_blocks([t]) for t in texts]
    flat = [b for bs in blocks for b in bs]
    owners = [i for i, bs in enumerate(blocks) for _ in bs]
    counted = count_blocks(flat, families)
    summing = sp.csr_matrix(
        (np.ones(len(flat), dtype=np.float32), (owners, range(len(flat)))), shape=(len(texts), len(flat))
    )
    for family in families:
        names = matrix.vocabulary[family]
        index = {k: j for j, k in enumerate(names)}
        own, keys = counted[family]
        out[family] = (summing @ remap(own, keys, index, len(names)).astype(np.float32)).tocsr()
    return out
