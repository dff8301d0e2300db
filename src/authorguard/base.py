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

    @abstractmethod
    def transform_records(self, raw_documents, record_ids, seed: int | None):
        """Like ``transform``, but each document's randomness comes from its own stream derived from
        (``seed``, its id), or from the OS CSPRNG when ``seed`` is None, so the output of a record does not
        depend on how records are batched, ordered or spread over workers."""

    @abstractmethod
    def fits_on_private_input(self) -> bool:
        """True when ``fit`` learns from the documents it is given (then they are part of what is released)."""
