"""Loading a registered method once per worker and anonymising batches of records with it.

One adapter per *kind* of method: a vector method (``VectorMechanism``) releases, per record, the words and
counts of its row; a text method (``TextObfuscator``) the rewritten text. A new method of an existing kind needs
no change here; :func:`adapter_for` picks the adapter by kind.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from authorguard import registry
from authorguard.base import TextObfuscator, VectorMechanism
from authorguard.exceptions import InputError

VECTOR_SCHEMA = pa.schema([("id", pa.string()), ("terms", pa.list_(pa.string())), ("counts", pa.list_(pa.int32()))])
#: a text release: the rewrite (null when withheld) and what became of the record (RECORD_STATUSES, and why)
TEXT_SCHEMA = pa.schema(
    [("id", pa.string()), ("text", pa.string()), ("release_status", pa.string()), ("release_reason", pa.string())]
)


def check_method(name: str, params: dict) -> VectorMechanism | TextObfuscator:
    """Construct (not fit) a registered method for batch release: cheap checks before anything is written.

    Unknown parameters fail naming the key. The method's ``batch_defaults`` (e.g. SynTF's public vocabulary)
    apply where ``params`` says nothing. A method that would learn from the private input is refused.
    """
    from authorguard.methods.build import construct_method

    method = construct_method(name, params, defaults=getattr(registry.methods.get(name), "batch_defaults", {}))
    if method.fits_on_private_input():
        raise InputError(
            f"method {name!r} as configured learns from the private input (e.g. a vocabulary fitted on it, a leak "
            'epsilon does not cover); give it public state, e.g. vocabulary = "embeddings" or a word-list file'
        )
    from sklearn.base import BaseEstimator

    if getattr(type(method), "_validate_params", BaseEstimator._validate_params) is not BaseEstimator._validate_params:
        method._validate_params()  # the method's own checks (scikit-learn's needs _parameter_constraints)
    return method


def build_method(name: str, params: dict) -> VectorMechanism | TextObfuscator:
    """:func:`check_method`, then fit from *public* data only (the slow part: vectors, vocabulary)."""
    return check_method(name, params).fit([])


def adapter_for(name: str, params: dict):
    """The batch adapter of a registered method's kind, with the method loaded."""
    method = build_method(name, params)
    return TextBatchAdapter(method) if isinstance(method, TextObfuscator) else VectorBatchAdapter(method)


class VectorBatchAdapter:
    """Anonymise a shard's records with a fitted vector method, in two steps, one output row per record.

    ``prepare`` runs batch by batch as records stream in (tokenising; a failure there is one record's error);
    ``release`` then releases the whole shard at once, so the mechanism is streamed once per shard, not once per
    batch. Each record's randomness comes from (seed, id), so neither step depends on batching.
    """

    schema = VECTOR_SCHEMA

    def __init__(self, method: VectorMechanism) -> None:
        self.method = method
        self.feature_names = method.get_feature_names_out()

    def prepare(self, texts: list[str]) -> sp.csr_matrix:
        """Term counts of a batch: shape (len(texts), n_features)."""
        return self.method.term_counts(texts)

    def release(self, ids: list[str], prepared: list[sp.csr_matrix], seed: int | None) -> list[dict]:
        """One output row per id, in order, from the prepared batches (stacked in the same order as ``ids``)."""
        counts = (
            sp.vstack(prepared, format="csr")
            if prepared
            else sp.csr_matrix((0, len(self.feature_names)), dtype=np.int64)
        )
        matrix = self.method.release_term_counts(counts, ids, seed).tocsr()
        rows = []
        for i, identifier in enumerate(ids):
            start, end = matrix.indptr[i], matrix.indptr[i + 1]
            rows.append(
                {
                    "id": identifier,
                    "terms": self.feature_names[matrix.indices[start:end]].tolist(),
                    "counts": matrix.data[start:end].astype(int).tolist(),
                }
            )
        return rows

    def privacy_report(self) -> dict:
        return self.method.privacy_report().to_dict()


class TextBatchAdapter:
    """Rewrite a shard's records with a fitted text method: one ``{"id", "text", "release_status",
    "release_reason"}`` row per record (``text`` null when the method withheld the record).

    ``prepare`` only collects the texts (a text method has no cheap first step); ``release`` rewrites the shard
    through the one pipeline (:func:`~authorguard.batch.obfuscation.obfuscate_texts`) with per-record randomness
    from (seed, id); ``records_flagged`` and ``records_withheld`` then count the shard's records the method flagged
    and withheld (kept in the manifest).
    """

    schema = TEXT_SCHEMA

    def __init__(self, method: TextObfuscator) -> None:
        self.method = method

    def prepare(self, texts: list[str]) -> list[str]:
        return list(texts)

    def release(self, ids: list[str], prepared: list[list[str]], seed: int | None) -> list[dict]:
        from authorguard.batch.obfuscation import obfuscate_texts, release_rows

        texts = [text for batch in prepared for text in batch]
        result = obfuscate_texts(self.method, texts, ids=ids, seed=seed, meter=None)
        self.records_flagged = result.records_flagged or 0
        self.records_withheld = sum(status["status"] == "withheld" for status in result.statuses)
        return release_rows(result, ids, "id", "text")

    def privacy_report(self) -> dict:
        """A text method has no formal guarantee unless it reports one (a DP rewriter will)."""
        report = getattr(self.method, "privacy_report", None)
        return (
            report().to_dict()
            if report is not None
            else {"method": type(self.method).__name__, "formal_guarantee": None}
        )
