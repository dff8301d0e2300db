"""What a corpus is, before anything is measured on it, and whether anything can be."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass

import numpy as np

from authorguard.exceptions import InputError

#: the smallest corpus an attribution accuracy can be measured on: two authors, each with two training documents
#: and one test document, and twenty documents in all (fewer gives a confidence interval wider than the scale)
MIN_AUTHORS = 2
MIN_DOCUMENTS_PER_AUTHOR = 3
MIN_DOCUMENTS = 20


@dataclass(frozen=True)
class CorpusProfile:
    """Counts of a corpus: documents, authors, words per document, documents per author, labels.

    ``usable_*`` count the documents and authors an audit can use (an author, a non-empty text, and at least
    :data:`MIN_DOCUMENTS_PER_AUTHOR` documents by that author)."""

    documents: int
    authors: int
    without_author: int
    empty_texts: int
    words_min: int
    words_median: float
    words_mean: float
    words_max: int
    documents_per_author_min: int
    documents_per_author_median: float
    documents_per_author_max: int
    usable_documents: int
    usable_authors: int
    labels: int | None
    label_counts: dict | None

    def to_dict(self) -> dict:
        return asdict(self)

    def check_measurable(self) -> None:
        """One-line refusal when attribution cannot be measured on this corpus, naming the minimum."""
        if self.usable_authors < MIN_AUTHORS or self.usable_documents < MIN_DOCUMENTS:
            raise InputError(
                f"too little to measure: {self.usable_authors} authors with at least {MIN_DOCUMENTS_PER_AUTHOR} "
                "non-empty "
                f"documents each ({self.usable_documents} documents); an audit needs at least {MIN_AUTHORS} such "
                "authors "
                f"and {MIN_DOCUMENTS} such documents"
            )


def word_counts(texts: list[str]) -> np.ndarray:
    return np.array([len(text.split()) for text in texts], dtype=int)


def usable_mask(texts: list[str], authors: list) -> np.ndarray:
    """Documents an audit can use: with an author and a non-empty text, by an author with enough of them."""
    has = np.array([a is not None and bool(t.strip()) for t, a in zip(texts, authors)], dtype=bool)
    per_author = Counter(a for a, keep in zip(authors, has) if keep)
    return has & np.array([per_author.get(a, 0) >= MIN_DOCUMENTS_PER_AUTHOR for a in authors], dtype=bool)


def profile_corpus(texts: list[str], authors: list, labels: list | None = None) -> CorpusProfile:
    """Profile ``texts`` written by ``authors`` (None = unknown) with optional ``labels`` (None = unlabelled)."""
    words = word_counts(texts)
    known = [a for a in authors if a is not None]
    per_author = np.array(sorted(Counter(known).values()) or [0])
    usable = usable_mask(texts, authors)
    label_counts = None if labels is None else dict(Counter(str(v) for v in labels if v is not None).most_common())
    return CorpusProfile(
        documents=len(texts),
        authors=len(set(known)),
        without_author=len(texts) - len(known),
        empty_texts=int(sum(not t.strip() for t in texts)),
        words_min=int(words.min()),
        words_median=float(np.median(words)),
        words_mean=float(words.mean()),
        words_max=int(words.max()),
        documents_per_author_min=int(per_author.min()),
        documents_per_author_median=float(np.median(per_author)),
        documents_per_author_max=int(per_author.max()),
        usable_documents=int(usable.sum()),
        usable_authors=len({a for a, u in zip(authors, usable) if u}),
        labels=None if label_counts is None else len(label_counts),
        label_counts=label_counts,
    )
