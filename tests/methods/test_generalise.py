"""``generalise`` as a text method: records in = records out, a status per record that names what changed, its
report, its parameters checked."""

from __future__ import annotations

import pytest

import authorguard
from authorguard import registry
from authorguard.exceptions import InputError


def test_records_in_records_out_with_a_status_each():
    texts = ["My sister Ching moved to Toronto.", "I like tea.", "We met Peter Munk and his poodle."]
    released = authorguard.obfuscate(texts, method="generalise", params={"level": "rare-2000"}, fidelity=False)
    assert [r.text for r in released] == ["My sister moved to a city.", "I like tea.", "We met someone and his dog."]
    assert [r.status for r in released] == ["rewritten", "kept", "rewritten"]
    assert released[0].reason == "generalised: 1 person, 1 place"
    method = registry.methods.get("generalise")(level="rare-2000").fit()
    assert method.obfuscate(texts + [""])[-1] == ""  # an empty record stays empty, in its place
    report = method.release_report()
    assert report["changes"] == {"person": 2, "place": 1, "word": 1} and report["records_changed"] == 2
    assert 0.5 < report["words_kept"] < 1  # 5 of 16 words replaced


def test_bad_parameters_are_one_line():
    with pytest.raises(InputError, match="unknown level"):
        registry.methods.get("generalise")(level="strongest").fit()
    with pytest.raises(InputError, match="not valid UTF-8"):
        registry.methods.get("generalise")().fit().obfuscate([b"\xff\xfe"])
