"""The meaning attacker: what a sentence embedding of a text tells about its author.

Each document's first ``max_words`` words are embedded by all-MiniLM-L6-v2 (a model trained to encode what a text
*says*, not how), and a logistic regression is trained on the embeddings. Run on the original text it measures the
**meaning floor**: the identification left when only the meaning survives — a bound for any rewrite that keeps the
meaning (docs/results/bottleneck.md). Run on a method's output under the augmented / adversarial threat models, it
is retrained on that output like every attacker.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release
from authorguard.embeddings.memo import EmbeddingMemo
from authorguard.metrics.classification import estimator_scores
from authorguard.utils.validation import check_number


@functools.cache
def _encoder():
    from authorguard.embeddings.sentence import load_sentence_encoder

    return load_sentence_encoder()


@functools.cache
def _memo() -> EmbeddingMemo:
    """MiniLM's unit vectors, each text embedded once per process (the original's training documents recur under
    every method's static threat model)."""
    return EmbeddingMemo(
        lambda texts: _encoder().encode(texts, batch_size=32, normalize_embeddings=True, show_progress_bar=False)
    )


class MeaningAttacker(Attacker):
    """Parameters: ``max_words`` (words of a document embedded, default 256), ``C`` (inverse L2 strength of the
    logistic regression, default 10), ``random_state``."""

    name = "meaning"
    own_classifier = "neural"  # brings its own model (the tables group such attackers under "neural")

    def __init__(self, max_words: int = 256, C: float = 10.0, random_state: int | None = None) -> None:
        self.max_words = check_number(max_words, "max_words", "the meaning attacker", kind=int, low=1, closed="left")
        self.C = check_number(C, "C", "the meaning attacker", low=0, closed="neither")
        self.random_state = random_state

    def _embed(self, release: Release) -> np.ndarray:
        texts = [" ".join(text.split()[: self.max_words]) for text in release.document_texts()]
        return _memo().encode(texts)

    def fit(self, release: Release, authors: Sequence[str]) -> MeaningAttacker:
        from sklearn.linear_model import LogisticRegression

        self.model_ = LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state)
        self.model_.fit(self._embed(release), np.asarray(authors, dtype=object))
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(self._embed(release))

    def scores(self, release: Release) -> np.ndarray:
        return estimator_scores(self.model_, self._embed(release))
