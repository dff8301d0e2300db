"""A⁴NT as a text method: a trained model folder rewrites each document sentence by sentence.

``a4nt`` uses the adversarially trained generators of ``variant`` (default ``cycml-lang``, the paper's
CycML+Lang); ``a4nt-autoencoder`` the pre-trained decoders alone (the paper's autoencoder baseline: the target
class's autoencoder applied to the source text); ``a4nt-neutral`` the neutral objective's one generator (beyond the
paper: trained so that attribute classifiers, including one retrained on its output, read the class prior; it
needs no source attribute). Train a folder with ``authorguard a4nt train`` (``objective = "neutral"`` for the
last).

A document's direction is its source attribute: :meth:`obfuscate_labelled` takes it (the benchmark passes the
scenario's labels, ``authorguard obfuscate --attribute-field`` a column); without it the model's own attribute
classifier decides.
"""

from __future__ import annotations

import functools
from typing import TypedDict

from authorguard.base import TextObfuscator
from authorguard.exceptions import InputError
from authorguard.text.validity import FALLBACKS
from authorguard.utils.random import int_seed
from authorguard.utils.validation import check_number, check_option, check_texts


class _Report(TypedDict):
    """The last call's counts (:meth:`A4NT.release_report`)."""

    documents: int
    records_rewritten: int
    records_flagged: int
    records_blank: int
    flagged_records: list[int]
    refused: dict[str, int]
    fallback: str


@functools.lru_cache(maxsize=4)
def _load(folder: str, variant: str):
    from authorguard.neural.a4nt.model import A4NTModel

    return A4NTModel(folder, variant)


class A4NT(TextObfuscator):
    """Parameters
    ----------
    model : str or None
        The trained model folder (``authorguard a4nt train -o DIR``); None: the packaged model, if it holds
        ``variant`` (:mod:`authorguard.neural.a4nt.packaging`).
    variant : str, default="cycml-lang"
        Which adversarially trained generators: ``cycml-lang``, ``cycml``, ``fbsem``, ``fbsem-lang`` (those trained
        in the folder), or ``autoencoder``.
    samples : int, default=1
        Rewrites per sentence: 1 = greedy (deterministic); K > 1 = K sampled rewrites, one kept by ``select``.
    select : {"random", "max-meteor", "min-meteor"}
    placeholders : {"keep", "drop", "copy"}, default="copy"
        What the networks' ``<unk>`` (a word outside the model's vocabulary) and ``NUM`` (a number) become in the
        output: filled with the input sentence's own unknown words and numbers, in order (default: on blog-age the
        shipped model's MiniLM cosine 0.29 -> 0.52 at the same worst-case attack, docs/results/a4nt.md), dropped
        (rare words and names of the input do not come back), or kept as written (the paper's output; the figures
        measured before this option) (:func:`authorguard.neural.a4nt.text.fill_placeholders`).
    fallback : {"keep", "withhold"}, default="keep"
        What a document with text gets when its rewrite has no words (a generator that ends each sentence at once
        — undertrained models do it): the document as written, or nothing. Either way its record is flagged and
        counted in :meth:`release_report` (``records_flagged``, ``flagged_records``), never passed off as a rewrite.
    random_state : int, numpy Generator or None
    """

    deterministic = False

    def __init__(
        self,
        model: str | None = None,
        variant: str = "cycml-lang",
        samples: int = 1,
        select: str = "random",
        placeholders: str = "copy",
        fallback: str = "keep",
        random_state=None,
    ) -> None:
        self.model = model
        self.variant = variant
        self.samples = samples
        self.select = select
        self.placeholders = placeholders
        self.fallback = fallback
        self.random_state = random_state

    def fit(self, raw_documents=None, y=None):
        from authorguard.neural.a4nt.model import SELECTIONS
        from authorguard.neural.a4nt.packaging import resolve_model
        from authorguard.neural.a4nt.text import PLACEHOLDER_MODES

        name = type(self).__name__
        check_number(self.samples, "samples", name, kind=int, low=1, closed="left")
        check_option(self.select, "select", name, SELECTIONS)
        check_option(self.placeholders, "placeholders", name, PLACEHOLDER_MODES)
        check_option(self.fallback, "fallback", name, FALLBACKS)
        self.model_ = _load(str(resolve_model(self.model, self.variant)), self.variant)
        return self

    def reseed(self, random_state) -> A4NT:
        self.random_state = random_state
        return self

    def obfuscate(self, raw_documents) -> list[str]:
        return self.obfuscate_labelled(raw_documents, None)

    def obfuscate_labelled(self, raw_documents, attributes) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        return self._fall_back(
            texts,
            self.model_.obfuscate(
                texts,
                attributes,
                self.samples,
                self.select,
                int_seed(self.random_state),
                placeholders=self.placeholders,
            ),
        )

    def obfuscate_records(self, raw_documents, record_ids, seed: int | None) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        if len(texts) != len(record_ids):
            raise ValueError(f"{len(texts)} documents but {len(record_ids)} record ids")
        out = self._fall_back(
            texts,
            self.model_.obfuscate(
                texts, None, self.samples, self.select, seed, keys=list(record_ids), placeholders=self.placeholders
            ),
        )
        self.records_flagged_ = self.report_["records_flagged"]
        self.record_statuses_ = self.record_statuses(texts, out)
        return out

    def _fall_back(self, texts: list[str], rewrites: list[str]) -> list[str]:
        """The rewrites, with the ``fallback`` for each document that has text but a rewrite without words; the
        counts go to :meth:`release_report`."""
        flagged = [i for i, (text, rewrite) in enumerate(zip(texts, rewrites)) if text.strip() and not rewrite.strip()]
        blank = sum(not text.strip() for text in texts)
        out = list(rewrites)
        for i in flagged:
            out[i] = texts[i] if self.fallback == "keep" else ""
        self.report_: _Report = {
            "documents": len(texts),
            "records_rewritten": len(texts) - blank - len(flagged),
            "records_flagged": len(flagged),
            "records_blank": blank,
            "flagged_records": flagged,
            "refused": {"empty": len(flagged)} if flagged else {},
            "fallback": self.fallback,
        }
        return out

    def release_report(self) -> dict:
        """The last call's counts: documents, records rewritten, records flagged (their rewrite had no words; their
        positions in ``flagged_records``) and what they got (``fallback``), blank inputs (left blank)."""
        return dict(getattr(self, "report_", {}))


class A4NTAutoencoder(A4NT):
    """The paper's autoencoder baseline: each document through the other class's pre-trained autoencoder."""

    def __init__(
        self,
        model: str | None = None,
        samples: int = 1,
        select: str = "random",
        placeholders: str = "copy",
        fallback: str = "keep",
        random_state=None,
    ) -> None:
        super().__init__(model, "autoencoder", samples, select, placeholders, fallback, random_state)

    def get_params(self, deep: bool = True) -> dict:
        return {
            "model": self.model,
            "samples": self.samples,
            "select": self.select,
            "placeholders": self.placeholders,
            "fallback": self.fallback,
            "random_state": self.random_state,
        }


class A4NTNeutral(A4NT):
    """The neutral-target A⁴NT: one generator for every document, whatever its attribute (``variant``
    ``neutral-cycml-lang`` by default; ``neutral-fbsem``, ..., ``neutral-w8-cycml-lang`` (style loss pooled over
    windows of 8 sentences) or ``neutral-autoencoder``, its starting point)."""

    def __init__(
        self,
        model: str | None = None,
        variant: str = "neutral-cycml-lang",
        samples: int = 1,
        select: str = "random",
        placeholders: str = "copy",
        fallback: str = "keep",
        random_state=None,
    ) -> None:
        super().__init__(model, variant, samples, select, placeholders, fallback, random_state)

    def fit(self, raw_documents=None, y=None):
        from authorguard.neural.a4nt.config import is_neutral

        if not is_neutral(self.variant):
            raise InputError(
                f"A4NTNeutral: variant {self.variant!r} is not a neutral one (neutral-cycml-lang, "
                "neutral-cycml, neutral-fbsem, neutral-fbsem-lang, neutral-w8-cycml-lang, neutral-autoencoder)"
            )
        return super().fit(raw_documents, y)
