"""The one obfuscation pipeline: rewriting by record id, what it keeps aligned, and what it refuses."""

from __future__ import annotations

import pytest

from authorguard.batch.obfuscation import obfuscate_texts, release_rows
from authorguard.exceptions import InputError
from authorguard.methods.build import build_text_method

TEXTS = [
    "The committee met on Tuesday and agreed to postpone the vote until the budget was ready.",
    "I honestly think the new bridge looks wonderful at night, with all those lights.",
    "",
    "Rain again. The garden loves it, the dog does not, and I am somewhere in between.",
]
IDS = ["a-1", "b-2", "c-3", "d-4"]


def dropout():
    return build_text_method("dropout", {"rate": 0.5}, seed=None)


def test_by_record_id_a_records_rewrite_depends_on_its_id_and_seed_not_its_batch_or_order():
    whole = obfuscate_texts(dropout(), TEXTS, ids=IDS, seed=7, meter=None)
    assert whole.texts == dropout().obfuscate_records(TEXTS, IDS, 7)  # the method's own per-record draw
    order = [3, 0, 2, 1]
    shuffled = obfuscate_texts(dropout(), [TEXTS[i] for i in order], ids=[IDS[i] for i in order], seed=7, meter=None)
    assert shuffled.texts == [whole.texts[i] for i in order]
    alone = [obfuscate_texts(dropout(), [t], ids=[i], seed=7, meter=None).texts[0] for t, i in zip(TEXTS, IDS)]
    assert alone == whole.texts
    assert obfuscate_texts(dropout(), TEXTS, ids=IDS, seed=8, meter=None).texts != whole.texts
    assert whole.texts[0] != TEXTS[0]  # rate 0.5 drops words: the comparison above is not between identities


def test_every_record_comes_back_once_with_its_status_and_in_its_row():
    advanced = []
    result = obfuscate_texts(dropout(), TEXTS, ids=IDS, seed=0, meter=None, advance=advanced.append)
    assert len(result.texts) == len(result.statuses) == len(TEXTS) and advanced == [len(TEXTS)]
    assert result.records_flagged == 0 and result.scores is None
    rows = release_rows(result, IDS, "id", "text")
    assert [r["id"] for r in rows] == IDS
    assert [r["release_status"] for r in rows][2] == "kept"  # the empty text has nothing to drop


def test_records_are_scored_by_the_meter_when_one_is_named():
    result = obfuscate_texts(build_text_method("normalise", {}, seed=None), TEXTS[:2], ids=IDS[:2], seed=0)
    assert result.scores is not None and [s.verdict for s in result.scores] == ["faithful", "faithful"]


def test_attributes_are_refused_with_record_ids_and_must_match_the_texts():
    with pytest.raises(InputError, match="attributes are not taken with record ids"):
        obfuscate_texts(dropout(), TEXTS, attributes=[{}] * 4, ids=IDS, meter=None)
    with pytest.raises(InputError, match="3 attributes for 4 texts"):
        obfuscate_texts(dropout(), TEXTS, attributes=[{}] * 3, meter=None)
