"""What a method publishes for a set of documents, as the analyst and the attackers receive it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from authorguard.exceptions import InputError


@dataclass(frozen=True)
class Release:
    """Term-count vectors with the words of their columns.

    Attributes
    ----------
    counts : csr_matrix of shape (n_documents, n_words)
        Non-negative counts.
    vocabulary : tuple of str, length n_words
        The word of each column.
    """

    counts: sp.csr_matrix
    vocabulary: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", sp.csr_matrix(self.counts))
        object.__setattr__(self, "vocabulary", tuple(self.vocabulary))
        if self.counts.shape[1] != len(self.vocabulary):
            raise InputError(f"release has {self.counts.shape[1]} columns but {len(self.vocabulary)} vocabulary words")

    def __len__(self) -> int:
        return self.counts.shape[0]

    @classmethod
    def stack(cls, releases: Sequence[Release]) -> Release:
        """The documents of several releases, in order, over the union of their vocabularies (first seen first)."""
        vocabulary = tuple(dict.fromkeys(word for release in releases for word in release.vocabulary))
        return cls(sp.vstack([release.aligned_to(vocabulary) for release in releases], format="csr"), vocabulary)

    def rows(self, index: Sequence[int] | np.ndarray) -> Release:
        """The release of the documents at ``index`` (integer positions or a boolean mask)."""
        return Release(self.counts[np.asarray(index)], self.vocabulary)

    def aligned_to(self, vocabulary: Sequence[str]) -> sp.csr_matrix:
        """Counts re-indexed to ``vocabulary`` (a model's training columns): shape (n_documents, len(vocabulary));
        words the model never saw are dropped, words this release lacks are zero columns."""
        if tuple(vocabulary) == self.vocabulary:
            return self.counts
        position = {word: i for i, word in enumerate(vocabulary)}
        source = np.array([i for i, word in enumerate(self.vocabulary) if word in position], dtype=np.int64)
        target = np.array([position[self.vocabulary[i]] for i in source], dtype=np.int64)
        mapping = sp.csr_matrix((np.ones(len(source)), (source, target)), shape=(len(self.vocabulary), len(vocabulary)))
        return sp.csr_matrix(self.counts @ mapping)

    def reverse_texts(self) -> list[str]:
        """Reverse vectorisation: each document as its words, each repeated by its count, in column order
        (the text a stylometric tool can read from a term-frequency vector; word order is lost)."""
        words = self.vocabulary
        counts = self.counts
        texts = []
        for row in range(counts.shape[0]):
            start, end = counts.indptr[row], counts.indptr[row + 1]
            parts = []
            for column, count in zip(counts.indices[start:end], counts.data[start:end]):
                parts.extend([words[column]] * int(round(count)))
            texts.append(" ".join(parts))
        return texts
