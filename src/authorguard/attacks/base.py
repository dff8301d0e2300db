"""The attacker interface and the threat models it is evaluated under.

Threat models (who trains the attacker on what; Zhai et al., 2022, as TAROT uses them):

``static``
    The attacker holds the authors' original writing (e.g. earlier public posts), trains on it, then attributes
    protected releases (formerly ``original-train``).
``augmented``
    The attacker trains on the original writing *and* its protected release (it knows the method and can run it).
``adversarial``
    The attacker trains on released (protected) documents of known authors only [WK18] (formerly
    ``anonymised-train``).

Old names are read as the new ones (:func:`canonical_threat_model`), so earlier configs and results still work.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from authorguard.data.release import Release
from authorguard.metrics.classification import classification_scores

THREAT_MODELS = ("static", "augmented", "adversarial")
LEGACY_THREAT_MODELS = {"original-train": "static", "anonymised-train": "adversarial"}


def canonical_threat_model(name: str) -> str:
    """The current name of a threat model (legacy names mapped; others returned unchanged for validation)."""
    return LEGACY_THREAT_MODELS.get(name, name)


class Attacker(ABC):
    """Learns authors from a release of training documents and attributes a release of test documents."""

    name: str = ""
    #: None: the attacker takes the experiment's ``classifier`` ("nb" / "svm"); otherwise it brings its own model
    #: and its result rows carry this name in the classifier column (e.g. "neural").
    own_classifier: str | None = None
    #: the trained authors, set by :meth:`fit`: the order of :meth:`scores`' columns
    classes_: Sequence[str] | np.ndarray

    @abstractmethod
    def fit(self, release: Release, authors: Sequence[str]) -> Attacker:
        """Train on ``release`` whose documents were written by ``authors``; returns self."""

    @abstractmethod
    def predict(self, release: Release) -> np.ndarray:
        """The attributed author of each document of ``release``, shape (n_documents,)."""

    def scores(self, release: Release) -> np.ndarray:
        """How strongly each document of ``release`` points to each trained author, shape (n_documents,
        n_classes), columns in the order of ``classes_``; higher is more likely, and the row's argmax is
        :meth:`predict`'s answer. The scale is the attacker's own (SVM margins, log-probabilities, cosines): a
        ranking, not a probability (the writer's check calibrates it, :mod:`authorguard.check.calibration`)."""
        raise NotImplementedError(f"the {self.name or type(self).__name__} attacker gives no per-author scores")

    def evaluate(
        self, train: Release, train_authors: Sequence[str], test: Release, test_authors: Sequence[str]
    ) -> dict[str, float]:
        """Fit on (train, train_authors); macro F1 and accuracy on test."""
        return classification_scores(test_authors, self.fit(train, train_authors).predict(test))


def attacker_classifiers(name: str, classifiers: Sequence[str]) -> tuple[str, ...]:
    """The classifier names an experiment runs attacker ``name`` with: the config's, or its own model's name."""
    from authorguard import registry

    own = registry.attackers.get(name).own_classifier
    return (own,) if own else tuple(classifiers)


def make_attacker(name: str, classifier: str, random_state: int | None, options: dict | None = None) -> Attacker:
    """A registered attacker with ``options`` (its own parameters); ``classifier`` goes only to attackers that take
    one."""
    from authorguard import registry

    cls = registry.attackers.get(name)
    options = dict(options or {})
    if cls.own_classifier:
        return cls(random_state=random_state, **options)
    return cls(classifier=classifier, random_state=random_state, **options)
