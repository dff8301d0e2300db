"""The ``WordVectors`` container: the interface every embeddings loader returns."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from authorguard.exceptions import InputError


@dataclass(frozen=True)
class WordVectors:
    """Word embeddings: ``vectors[i]`` is the vector of ``words[i]``.

    Attributes
    ----------
    words : tuple of str, length n_words
    vectors : ndarray of shape (n_words, dim), float32
    name : str
        Where the vectors came from (recorded in privacy reports and results).
    uncased : bool
        True when the vocabulary is lower case only; look-ups then ignore case.
    """

    words: tuple[str, ...]
    vectors: np.ndarray
    name: str = "custom"
    uncased: bool = True
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        vectors = np.asarray(self.vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(self.words):
            raise InputError(
                f"word vectors must be a (n_words, dim) array matching {len(self.words)} words; got shape "
                f"{vectors.shape}"
            )
        object.__setattr__(self, "words", tuple(self.words))
        object.__setattr__(self, "vectors", vectors)
        index: dict[str, int] = {}
        for i, word in enumerate(self.words):
            index.setdefault(word, i)  # first occurrence wins, as in GloVe's frequency order
        object.__setattr__(self, "_index", index)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def key(self, word: str) -> str | None:
        """The stored word ``word`` maps to (case-folded for uncased vectors), or None."""
        if word in self._index:
            return word
        if self.uncased:
            lower = word.lower()
            if lower in self._index:
                return lower
        return None

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.key(word) is not None

    def vector_matrix(self, words: Sequence[str]) -> np.ndarray:
        """Vectors of ``words`` (each must be present), shape (len(words), dim)."""
        missing = [w for w in words if w not in self]
        if missing:
            raise InputError(f"{len(missing)} words have no vector in {self.name} (first: {missing[0]!r})")
        return self.vectors[[self._index[key] for key in map(self.key, words) if key is not None]]

    def restrict(self, words: Iterable[str]) -> WordVectors:
        """A copy holding only ``words`` that have vectors (in the order given)."""
        kept = [w for w in dict.fromkeys(words) if w in self]
        return WordVectors(tuple(kept), self.vector_matrix(kept), self.name, self.uncased)
