"""The interfaces every method implements.

A vector method is a scikit-learn transformer from raw documents to (sparse) vectors that also reports what
its release costs in privacy. A text method maps documents to documents, in batches. Methods are registered by
name in :mod:`authorguard.registry`; the experiment harness takes either kind.
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

    def transform_records(self, raw_documents, record_ids, seed: int | None):
        """Like ``transform``, but each document's randomness comes from its own stream derived from
        (``seed``, its id), or from the OS CSPRNG when ``seed`` is None, so the output of a record does not
        depend on how records are batched, ordered or spread over workers."""
        return self.release_term_counts(self.term_counts(raw_documents), record_ids, seed)

    @abstractmethod
    def release_term_counts(self, term_counts, record_ids, seed: int | None):
        """The second half of :meth:`transform_records`, on the documents' :meth:`term_counts`: batch runners
        tokenise batch by batch, then release a whole shard in one call (one pass over the mechanism)."""

    @abstractmethod
    def term_counts(self, raw_documents):
        """The unprotected vectors of ``raw_documents`` in the released feature space (what an attacker who
        holds the authors' original texts can compute): a matrix of shape (n_documents, n_features)."""

    @abstractmethod
    def get_feature_names_out(self, input_features=None):
        """The words of the released columns, shape (n_features,)."""

    @abstractmethod
    def fits_on_private_input(self) -> bool:
        """True when ``fit`` learns from the documents it is given (then they are part of what is released)."""


#: what became of a record: rewritten by the method, released (in part) as the style-free view the method wrote
#: from (the bottleneck's fallback: nothing of the input's style, but not fluent text), kept as written (whole or in
#: part), or withheld (no text)
RECORD_STATUSES = ("rewritten", "normalised", "view", "kept", "withheld")


def same_text(original: str, output: str) -> bool:
    """True when ``output`` is ``original`` up to whitespace (spacing changes are not a rewrite)."""
    return " ".join(original.split()) == " ".join(output.split())


class TextObfuscator(BaseEstimator, ABC):
    """Raw documents -> rewritten documents (``fit`` / ``obfuscate``), one output per input, in order.

    ``deterministic`` says whether two calls give the same output; the experiment harness computes a
    deterministic method once and reuses its output for every run.
    """

    deterministic: bool = True

    def fit(self, raw_documents=None, y=None):
        """Learn what the method needs (most baselines need nothing); returns self."""
        return self

    @abstractmethod
    def obfuscate(self, raw_documents) -> list[str]:
        """Rewrite each document; a list of str of the same length as ``raw_documents``."""

    def obfuscate_labelled(self, raw_documents, attributes) -> list[str]:
        """Like ``obfuscate``, knowing each document's attribute class (a sequence aligned with
        ``raw_documents``, or None): a method that rewrites *from* an attribute (A⁴NT's source class) uses it;
        the others ignore it. The benchmark calls this on attribute scenarios."""
        return self.obfuscate(raw_documents)

    def fits_on_private_input(self) -> bool:
        """True when ``fit`` would learn from the documents it is given (batch rewriting refuses that)."""
        return False

    def release_report(self) -> dict:
        """What the last ``obfuscate`` call did, as JSON-ready counts (a neural rewriter: chunks, tokens/s); the
        benchmark keeps it in the results' ``method_report`` column. Default: nothing to report."""
        return {}

    def record_statuses(self, raw_documents, outputs) -> list[dict]:
        """What became of each record of the last ``obfuscate`` call, aligned with ``outputs``: ``{"status": one of
        RECORD_STATUSES, "reason": str or None}``.

        Read from :meth:`release_report`: a record in its ``flagged_records`` got the method's ``fallback``
        (``withhold``: withheld; ``keep``: kept as written, whole or in part; ``view``: released as its view;
        ``normalise``: those chunks released as ``normalise``'s text) or, for a method without a fallback
        (DP-Prompt), is released as rewritten with the verdict as its reason. Any other record is ``rewritten`` when
        its output differs from the input beyond whitespace, else ``kept``."""
        report = self.release_report()
        flagged = {int(i) for i in report.get("flagged_records", ())}
        fallback = report.get("fallback")
        refused = ", ".join(f"{reason} {n}" for reason, n in report.get("refused", {}).items())
        statuses: list[dict[str, str | None]] = []
        for index, (original, output) in enumerate(zip(raw_documents, outputs)):
            if index in flagged:
                chunks = report.get("fallback_chunks", {}).get(str(index))
                unprotected = (
                    f"{chunks[0]} of {chunks[1]} chunks had no rewrite that passed the validity gate"
                    if chunks
                    else "no rewrite passed the validity gate"
                )
                if refused:
                    unprotected += f" (refused in this call: {refused})"
                if fallback == "withhold":
                    statuses.append({"status": "withheld", "reason": unprotected})
                elif fallback == "view":
                    statuses.append(
                        {
                            "status": "view",
                            "reason": unprotected.replace(
                                "had no rewrite that passed", "had no realisation that passed"
                            )
                            + "; released as their view (fallback view)",
                        }
                    )
                elif fallback == "normalise":
                    statuses.append(
                        {
                            "status": "normalised",
                            "reason": unprotected.replace(
                                "had no rewrite that passed the validity gate",
                                "had no valid realisation",
                            )
                            + "; released as normalise's text of those chunks (fallback normalise)",
                        }
                    )
                elif fallback == "keep":
                    statuses.append({"status": "kept", "reason": unprotected + "; kept as written (fallback keep)"})
                else:
                    statuses.append(
                        {
                            "status": "rewritten",
                            "reason": "the validity gate refuses this rewrite; counted "
                            "only (acting on a verdict that reads the input would cost privacy budget)",
                        }
                    )
            elif same_text(original, output):
                statuses.append({"status": "kept", "reason": "the method left the text as written (up to whitespace)"})
            else:
                statuses.append({"status": "rewritten", "reason": None})
        return statuses

    def obfuscate_records(self, raw_documents, record_ids, seed: int | None) -> list[str]:
        """Like ``obfuscate``, but a random method draws each record's randomness from a generator derived from
        (``seed``, its id) — or fresh OS entropy when ``seed`` is None — so a record's rewrite does not depend on
        batching, order or workers. The default rewrites record by record after :meth:`reseed`; a method that
        batches (a neural rewriter) overrides it. Afterwards ``records_flagged_`` counts the records that the
        method's :meth:`release_report` flagged (``records_flagged``: a rewriter's fallback) over the whole call, and
        ``record_statuses_`` what became of each record (:meth:`record_statuses`)."""
        texts = list(raw_documents)
        if len(texts) != len(record_ids):
            raise ValueError(f"{len(texts)} documents but {len(record_ids)} record ids")
        if self.deterministic or "random_state" not in self.get_params():
            out = self.obfuscate(texts)
            self.records_flagged_ = int(self.release_report().get("records_flagged", 0))
            self.record_statuses_ = self.record_statuses(texts, out)
            return out
        from authorguard.utils.random import record_generator

        previous = self.random_state
        flagged = 0
        try:
            out, statuses = [], []
            for text, record_id in zip(texts, record_ids):
                self.reseed(None if seed is None else record_generator(seed, record_id))
                rewritten = self.obfuscate([text])
                out.extend(rewritten)
                statuses.extend(self.record_statuses([text], rewritten))
                flagged += int(self.release_report().get("records_flagged", 0))
            self.records_flagged_ = flagged
            self.record_statuses_ = statuses
            return out
        finally:
            self.reseed(previous)

    def reseed(self, random_state) -> TextObfuscator:
        """Restart the method's randomness from ``random_state`` (int, Generator or None). The default sets
        ``random_state`` and fits again, right for methods that fit on nothing; others override it."""
        self.random_state = random_state
        return self.fit()
