"""The bag-of-words attacker: tf-idf on the released counts + naive Bayes or a linear SVM.

Simple and strong on 20 Newsgroups: an author's recurring topics, names and phrases survive in the counts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release
from authorguard.metrics.classification import CountsClassifier


class BagOfWordsAttacker(Attacker):
    """Parameters: ``classifier`` in {"nb", "svm"}; ``random_state`` int or None."""

    name = "bow"

    def __init__(self, classifier: str = "svm", random_state: int | None = None) -> None:
        self.classifier = classifier
        self.random_state = random_state

    def fit(self, release: Release, authors: Sequence[str]) -> BagOfWordsAttacker:
        self.model_ = CountsClassifier(self.classifier, self.random_state).fit(release, authors)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(release)

    def scores(self, release: Release) -> np.ndarray:
        return self.model_.decision_scores(release)
