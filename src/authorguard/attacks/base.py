"""The attacker interface and the threat models it is evaluated under.

Threat models (who trains the attacker on what):

``anonymised-train``
    The attacker holds released (protected) documents of known authors and trains on them [WK18].
``original-train``
    The attacker holds the authors' original writing (e.g. earlier public posts) and trains on it, then
    attributes protected releases.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from authorguard.data.release import Release
from authorguard.metrics.classification import classification_scores

THREAT_MODELS = ("anonymised-train", "original-train")


class Attacker(ABC):
    """Learns authors from a release of training documents and attributes a release of test documents."""

    name: str = ""

    @abstractmethod
    def fit(self, release: Release, authors: Sequence[str]) -> Attacker:
        """Train on ``release`` whose documents were written by ``authors``; returns self."""

    @abstractmethod
    def predict(self, release: Release) -> np.ndarray:
        """The attributed author of each document of ``release``, shape (n_documents,)."""

    def evaluate(self, train: Release, train_authors: Sequence[str], test: Release, test_authors: Sequence[str]) -> dict[str, float]:
        """Fit on (train, train_authors); macro F1 and accuracy on test."""
        return classification_scores(test_authors, self.fit(train, train_authors).predict(test))
