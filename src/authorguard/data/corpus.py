"""The in-memory corpus every method, attacker and task consumes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from authorguard.exceptions import InputError


@dataclass(frozen=True)
class Corpus:
    """Documents with their ids and metadata, all of length n_documents.

    Attributes
    ----------
    ids : tuple of str
        Unique document ids.
    texts : tuple of str
    authors : tuple of str or None
        Author id of each document (e.g. a normalised e-mail address); None where unknown.
    labels : tuple of str or None
        Task label of each document (e.g. the newsgroup).
    splits : tuple of str
        ``"train"`` or ``"test"`` (or ``"all"`` for unsplit corpora).
    name : str
    """

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    authors: tuple[str | None, ...] = None  # type: ignore[assignment]
    labels: tuple[str | None, ...] = None  # type: ignore[assignment]
    splits: tuple[str, ...] = None  # type: ignore[assignment]
    name: str = "corpus"
    metadata: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        n = len(self.ids)
        for attribute, default in (("authors", None), ("labels", None), ("splits", "all")):
            value = getattr(self, attribute)
            object.__setattr__(self, attribute, tuple([default] * n) if value is None else tuple(value))
        object.__setattr__(self, "ids", tuple(self.ids))
        object.__setattr__(self, "texts", tuple(self.texts))
        for attribute in ("texts", "authors", "labels", "splits"):
            if len(getattr(self, attribute)) != n:
                raise InputError(f"corpus {self.name!r}: {attribute} has {len(getattr(self, attribute))} entries, ids has {n}")
        if len(set(self.ids)) != n:
            seen: set[str] = set()
            duplicate = next(i for i in self.ids if i in seen or seen.add(i))
            raise InputError(f"corpus {self.name!r}: duplicate document id {duplicate!r}")

    def __len__(self) -> int:
        return len(self.ids)

    def subset(self, mask: Sequence[bool] | np.ndarray) -> Corpus:
        """The documents where ``mask`` is true (or at the given integer positions)."""
        index = np.asarray(mask)
        positions = np.flatnonzero(index) if index.dtype == bool else index.astype(int)
        pick = lambda values: tuple(values[i] for i in positions)  # noqa: E731
        return Corpus(pick(self.ids), pick(self.texts), pick(self.authors), pick(self.labels), pick(self.splits), self.name, dict(self.metadata))

    def split(self, name: str) -> Corpus:
        """The documents of one split."""
        return self.subset(np.array([s == name for s in self.splits], dtype=bool))
