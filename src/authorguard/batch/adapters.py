"""Loading a registered method once per worker and anonymising batches of records with it.

One adapter per *kind* of method: a vector method (``VectorMechanism``) releases, per record, the words and
counts of its row. A new method of an existing kind needs no change here.
"""

from __future__ import annotations

import pyarrow as pa

from authorguard import registry
from authorguard.base import VectorMechanism
from authorguard.exceptions import InputError

VECTOR_SCHEMA = pa.schema([("id", pa.string()), ("terms", pa.list_(pa.string())), ("counts", pa.list_(pa.int32()))])


def build_method(name: str, params: dict) -> VectorMechanism:
    """Construct and fit a registered method for batch release, from *public* data only.

    Unknown parameters fail naming the key. The method's ``batch_defaults`` (e.g. SynTF's public vocabulary)
    apply where ``params`` says nothing. A method that would learn from the private input is refused.
    """
    cls = registry.methods.get(name)
    known = set(cls().get_params())
    for key in params:
        if key not in known:
            raise InputError(f"unknown parameter {key!r} for method {name!r} (known: {', '.join(sorted(known))})")
    method = cls(**{**getattr(cls, "batch_defaults", {}), **params})
    if method.fits_on_private_input():
        raise InputError(
            f"method {name!r} as configured learns from the private input (e.g. a vocabulary fitted on it, a leak "
            "epsilon does not cover); give it public state, e.g. vocabulary = \"embeddings\" or a word-list file"
        )
    return method.fit([])


class VectorBatchAdapter:
    """Anonymise (ids, texts) batches with a fitted vector method; one output row per record."""

    schema = VECTOR_SCHEMA

    def __init__(self, method: VectorMechanism) -> None:
        self.method = method
        self.feature_names = method.get_feature_names_out()

    @classmethod
    def from_config(cls, name: str, params: dict) -> VectorBatchAdapter:
        return cls(build_method(name, params))

    def anonymize(self, ids: list[str], texts: list[str], seed: int | None) -> list[dict]:
        matrix = self.method.transform_records(texts, ids, seed).tocsr()
        rows = []
        for i, identifier in enumerate(ids):
            start, end = matrix.indptr[i], matrix.indptr[i + 1]
            rows.append({"id": identifier, "terms": self.feature_names[matrix.indices[start:end]].tolist(),
                         "counts": matrix.data[start:end].astype(int).tolist()})
        return rows

    def privacy_report(self) -> dict:
        return self.method.privacy_report().to_dict()
