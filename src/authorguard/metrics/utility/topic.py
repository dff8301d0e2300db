"""Topic classification, the SynTF paper's utility task (newsgroup of each message)."""

from __future__ import annotations

from collections.abc import Sequence

from authorguard.data.release import Release
from authorguard.metrics.classification import CountsClassifier, classification_scores


class TopicClassification:
    """The analyst: trains on the training split's release and labels, scores on the test split's release.

    Parameters
    ----------
    classifier : {"nb", "svm"}
    random_state : int or None
    """

    name = "topic"
    primary_metric = "f1_macro"
    greater_is_better = True

    def __init__(self, classifier: str = "svm", random_state: int | None = None) -> None:
        self.classifier = classifier
        self.random_state = random_state

    def evaluate(
        self, train: Release, train_labels: Sequence, test: Release, test_labels: Sequence
    ) -> dict[str, float]:
        model = CountsClassifier(self.classifier, self.random_state).fit(train, train_labels)
        return classification_scores(test_labels, model.predict(test))
