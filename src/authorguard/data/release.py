"""What a method publishes for a set of documents, as the analyst and the attackers receive it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from authorguard.exceptions import InputError


@dataclass(frozen=True)
class Release:
    """What is published for a set of documents: term-count vectors (every release has them) and, for a method
    that publishes text, the texts themselves.

    Readers of counts (bag-of-words attackers, the topic task) use ``counts``; readers of text (character
    n-grams, stylometry on word order) use :meth:`document_texts`: the texts of a text release, the
    reverse-vectorised counts of a vector release (the SynTF paper's attacker reads those).

    Attributes
    ----------
    counts : csr_matrix of shape (n_documents, n_words)
        Non-negative counts.
    vocabulary : tuple of str, length n_words
        The word of each column.
    texts : tuple of str or None
        The published texts (None for a vector release).
    """

    counts: sp.csr_matrix
    vocabulary: tuple[str, ...]
    texts: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "counts", sp.csr_matrix(self.counts))
        object.__setattr__(self, "vocabulary", tuple(self.vocabulary))
        if self.counts.shape[1] != len(self.vocabulary):
            raise InputError(f"release has {self.counts.shape[1]} columns but {len(self.vocabulary)} vocabulary words")
        if self.texts is not None:
            object.__setattr__(self, "texts", tuple(self.texts))
            if len(self.texts) != self.counts.shape[0]:
                raise InputError(f"release has {self.counts.shape[0]} count rows but {len(self.texts)} texts")

    @classmethod
    def from_texts(cls, texts: Sequence[str], morphology: str = "lemma") -> Release:
        """A text release: the texts, and their term counts over their own words (the analyst's tokeniser)."""
        from sklearn.feature_extraction.text import CountVectorizer

        from authorguard.text.analysis import TermAnalyzer

        vectorizer = CountVectorizer(analyzer=TermAnalyzer(morphology))
        try:
            counts = vectorizer.fit_transform(texts)
        except ValueError:  # scikit-learn's "empty vocabulary"
            raise InputError(
                f"none of the {len(texts)} released texts has a word (after removing stop words and numbers)"
            ) from None
        return cls(counts, vectorizer.get_feature_names_out(), tuple(texts))

    @classmethod
    def texts_only(cls, texts: Sequence[str]) -> Release:
        """A text release without term counts (an empty vocabulary): for attackers that read texts only, where
        lemmatising every text for counts nobody reads would be most of the work."""
        return cls(sp.csr_matrix((len(texts), 0), dtype=np.int64), (), tuple(texts))

    @property
    def kind(self) -> str:
        """``"text"`` or ``"vectors"``."""
        return "vectors" if self.texts is None else "text"

    def document_texts(self) -> list[str]:
        """What a text reader reads: the texts, or the reverse-vectorised counts of a vector release."""
        return list(self.texts) if self.texts is not None else self.reverse_texts()

    def __len__(self) -> int:
        return self.counts.shape[0]

    @classmethod
    def stack(cls, releases: Sequence[Release]) -> Release:
        """The documents of several releases, in order, over the union of their vocabularies (first seen first)."""
        vocabulary = tuple(dict.fromkeys(word for release in releases for word in release.vocabulary))
        texts = None
        if any(release.texts is not None for release in releases):
            texts = tuple(text for release in releases for text in release.document_texts())
        return cls(sp.vstack([release.aligned_to(vocabulary) for release in releases], format="csr"), vocabulary, texts)

    def rows(self, index: Sequence[int] | np.ndarray) -> Release:
        """The release of the documents at ``index`` (integer positions or a boolean mask)."""
        index = np.asarray(index)
        texts = None
        if self.texts is not None:
            positions = np.flatnonzero(index) if index.dtype == bool else index.astype(int)
            texts = tuple(self.texts[i] for i in positions)
        return Release(self.counts[index], self.vocabulary, texts)

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
