"""The interfaces every method implements.

A vector method is a scikit-learn transformer from raw documents to (sparse) vectors that also reports what
its release costs in privacy. Methods are registered by name in :mod:`authorguard.registry`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from sklearn.base import BaseEstimator, TransformerMixin


class VectorMechanism(TransformerMixin, BaseEstimator, ABC):
    """Raw documents -> privacy-protected vectors (``fit`` / ``transform``, outputs stay sparse).

    Subclasses store their constructor arguments unchanged (scikit-learn convention), validate them in
    ``fit``, and name learned state with a trailing underscore.
    """

    @abstractmethod
    def fit(self, raw_documents, y=None):
        """Learn the vocabulary and precompute the mechanism; returns self."""

    @abstractmethod
    def transform(self, raw_documents):
        """Release one protected vector per document: a matrix of shape (n_documents, n_features)."""

    @abstractmethod
    def privacy_report(self):
        """What releasing one document costs (a dataclass with ``to_dict()``)."""
