"""The one obfuscation pipeline: a built text method over a list of texts, in batches of
:data:`RECORDS_PER_BATCH` (or, given record ids, each record's randomness from its id), then (optionally) the
fidelity meter over what was released. ``authorguard.obfuscate``, ``authorguard obfuscate``, the check's page and
``authorguard anonymize``'s shards all call :func:`obfuscate_texts`; :func:`release_rows` writes its result into
records."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from authorguard.exceptions import AuthorguardError, InputError

if TYPE_CHECKING:  # the CLI imports this module for its field names: scikit-learn stays unloaded until a run
    from authorguard.base import TextObfuscator

#: records rewritten per call of the method: small enough for a moving progress bar, large enough for the LM
#: methods' batches (a chunk batch of 64 fills from a few dozen records)
RECORDS_PER_BATCH = 64
#: the output fields that say what became of each record (RECORD_STATUSES, and why)
STATUS_FIELD, REASON_FIELD = "release_status", "release_reason"
#: the output fields of the fidelity meter's verdict and its reason
FIDELITY_FIELD, FIDELITY_REASON_FIELD = "fidelity", "fidelity_reason"


@dataclass
class Obfuscated:
    """What :func:`obfuscate_texts` made of n texts: ``texts[i]`` the released text (None: withheld),
    ``statuses[i]`` ``{"status", "reason"}``, ``scores[i]`` the fidelity score (``scores`` None without the
    meter); ``records_flagged``: the records the method flagged (a rewriter's fallback), counted when rewritten by
    record id (None otherwise: the method's release report has it)."""

    texts: list
    statuses: list[dict]
    scores: list | None = None
    records_flagged: int | None = None


def rewrite_in_batches(
    text_method: TextObfuscator,
    texts: Sequence[str],
    attributes: Sequence | None,
    seed: int | None,
    advance: Callable[[int], object] = lambda n: None,
) -> tuple[list, list]:
    """(outputs, statuses) of ``texts``, ``RECORDS_PER_BATCH`` records per call, ``advance(records)`` after each.
    The first batch uses the method as built (seeded with ``seed``); batch k re-seeds it from (seed, k), so a seeded
    run gives the same output for the same input."""
    import numpy as np

    outputs: list = []
    statuses: list = []
    random = not text_method.deterministic and "random_state" in text_method.get_params()
    for k, start in enumerate(range(0, len(texts), RECORDS_PER_BATCH)):
        batch = list(texts[start : start + RECORDS_PER_BATCH])
        if k and random:
            text_method.reseed(None if seed is None else int(np.random.SeedSequence([seed, k]).generate_state(1)[0]))
        part = text_method.obfuscate_labelled(
            batch, None if attributes is None else attributes[start : start + len(batch)]
        )
        if len(part) != len(batch):  # the contract, checked: one output per input, never a silent drop
            raise InputError(f"the method returned {len(part)} texts for {len(batch)} records")
        outputs += part
        statuses += text_method.record_statuses(batch, part)
        advance(len(batch))
    return outputs, statuses


def rewrite_by_record(
    text_method: TextObfuscator, texts: Sequence[str], ids: Sequence, seed: int | None
) -> tuple[list, list, int]:
    """(outputs, statuses, records flagged) of ``texts``, each record's randomness from (``seed``, its id)
    (:meth:`TextObfuscator.obfuscate_records`): a record's rewrite does not depend on its batch, order or worker,
    which a resumable, sharded release needs."""
    outputs = text_method.obfuscate_records(list(texts), list(ids), seed)
    if len(outputs) != len(ids):  # the contract, checked: one output per record
        raise AuthorguardError(f"text method returned {len(outputs)} texts for {len(ids)} records")
    statuses = getattr(text_method, "record_statuses_", None) or text_method.record_statuses(list(texts), outputs)
    return outputs, statuses, int(getattr(text_method, "records_flagged_", 0))


def obfuscate_texts(
    text_method: TextObfuscator,
    texts: Sequence[str],
    *,
    attributes: Sequence | None = None,
    ids: Sequence | None = None,
    seed: int | None = None,
    meter: str | None = "rules",
    advance: Callable[[int], object] = lambda n: None,
    scoring: Callable[[int], object] = lambda n: None,
) -> Obfuscated:
    """Rewrite ``texts`` (:func:`rewrite_in_batches`; with ``ids``, :func:`rewrite_by_record`), withhold what the
    method withheld, and score what was released with the fidelity meter ``meter`` (None: not scored);
    ``scoring(n)`` is called before the meter reads n pairs (a progress display's next stage). Check the meter
    first (``require_meter``): it is read only after the rewriting."""
    if attributes is not None and len(attributes) != len(texts):
        raise InputError(f"obfuscate: {len(attributes)} attributes for {len(texts)} texts")
    flagged = None
    if ids is None:
        outputs, statuses = rewrite_in_batches(text_method, texts, attributes, seed, advance)
    elif attributes is not None:
        raise InputError("obfuscate: attributes are not taken with record ids (a rewrite by record id)")
    else:
        outputs, statuses, flagged = rewrite_by_record(text_method, texts, ids, seed)
        advance(len(texts))
    released = [None if status["status"] == "withheld" else text for text, status in zip(outputs, statuses)]
    if meter is None:
        return Obfuscated(released, statuses, records_flagged=flagged)
    from authorguard.metrics.fidelity import FidelityMeter

    scoring(len(released))
    scores = FidelityMeter(meter=meter).score(list(texts), released)
    return Obfuscated(released, statuses, scores, records_flagged=flagged)


def fidelity_fields(score) -> dict:
    """A record's fidelity fields: the verdict (None for a withheld record) and the reason (None when faithful)."""
    return {FIDELITY_FIELD: score.verdict, FIDELITY_REASON_FIELD: score.reason if score.verdict != "faithful" else None}


def release_rows(result: Obfuscated, ids: Sequence, id_field: str, text_field: str, rows: list[dict] | None = None):
    """The records to write: each input row (``rows``; every field kept, in its order; else ``{id_field: id}``)
    with its text replaced (None: withheld), its ``release_status`` and ``release_reason`` and, when scored, its
    fidelity fields."""
    rows = rows if rows is not None else [{} for _ in result.texts]
    records = [{**row, id_field: i, text_field: text} for row, i, text in zip(rows, ids, result.texts)]
    for record, status in zip(records, result.statuses):
        record[STATUS_FIELD], record[REASON_FIELD] = status["status"], status["reason"]
    for record, score in zip(records, result.scores or ()):
        record.update(fidelity_fields(score))
    return records
