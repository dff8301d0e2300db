"""Classifiers shared by the analyst and the attackers, and their scores.

The SynTF paper's [WK18] analyst and attacker are tf-idf + multinomial naive Bayes (alpha = 0.01) and a linear
SVM (C = 1); both are plain scikit-learn estimators here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.metrics import accuracy_score, f1_score
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

from authorguard.data.release import Release
from authorguard.utils.validation import check_option

CLASSIFIER_NAMES = ("nb", "svm")


def make_classifier(name: str, random_state: int | None = None):
    """A fresh ``MultinomialNB(alpha=0.01)`` (``"nb"``) or ``LinearSVC(C=1)`` (``"svm"``)."""
    check_option(name, "classifier", "make_classifier", CLASSIFIER_NAMES)
    if name == "nb":
        return MultinomialNB(alpha=0.01)
    return LinearSVC(C=1.0, random_state=random_state)


def classification_scores(y_true: npt.ArrayLike, y_predicted: npt.ArrayLike) -> dict[str, float]:
    """Macro F1 and accuracy."""
    return {
        "f1_macro": float(f1_score(y_true, y_predicted, average="macro", zero_division=0)),
        "accuracy": float(accuracy_score(y_true, y_predicted)),
    }


def estimator_scores(estimator, features) -> np.ndarray:
    """A fitted scikit-learn classifier's scores, shape (n_documents, n_classes) even for two classes (whose
    ``decision_function`` is one column: the second class's margin); log-probabilities for a classifier without a
    decision function (naive Bayes)."""
    if hasattr(estimator, "decision_function"):
        margins = np.asarray(estimator.decision_function(features), dtype=float)
        return np.column_stack([-margins, margins]) if margins.ndim == 1 else margins
    return np.asarray(estimator.predict_log_proba(features), dtype=float)


class CountsClassifier:
    """tf-idf on term counts + a classifier; predicts on releases whose columns may differ from training.

    Parameters
    ----------
    classifier : {"nb", "svm"}
    random_state : int or None
    """

    def __init__(self, classifier: str = "svm", random_state: int | None = None) -> None:
        self.classifier = classifier
        self.random_state = random_state

    def fit(self, release: Release, labels: Sequence) -> CountsClassifier:
        self.vocabulary_ = release.vocabulary
        self.model_ = Pipeline(
            [("tfidf", TfidfTransformer()), ("clf", make_classifier(self.classifier, self.random_state))]
        )
        self.model_.fit(release.counts, np.asarray(labels))
        self.classes_ = self.model_.classes_
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.model_.predict(release.aligned_to(self.vocabulary_))

    def decision_scores(self, release: Release) -> np.ndarray:
        """(n_documents, n_classes), columns in ``classes_`` order (:func:`estimator_scores`)."""
        return estimator_scores(self.model_, release.aligned_to(self.vocabulary_))
