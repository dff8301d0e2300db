"""The registered ``normalise`` method: records in = records out, deterministic, bad input one line."""

from __future__ import annotations

import pytest

from authorguard import registry
from authorguard.exceptions import InputError


def test_records_in_records_out_and_deterministic():
    method = registry.methods.get("normalise")().fit()
    # a line break inside a paragraph starts no sentence (issue 68); a blank line does
    texts = ["i dont know... it's been sooo long!!!", "", "Fine.", "line one\nline two\n\nline three"]
    out = method.obfuscate(texts)
    assert out == method.obfuscate(texts) and len(out) == len(texts)
    assert (
        out[0] == "I do not know... It has been so long!"
        and out[1] == ""
        and out[3] == "Line one\nline two\n\nLine three"
    )
    statuses = method.record_statuses(texts, out)
    assert [s["status"] for s in statuses] == ["rewritten", "kept", "kept", "rewritten"]


def test_bad_input_and_options():
    with pytest.raises(InputError, match="document 1 must be a str"):
        registry.methods.get("normalise")().obfuscate(["ok", None])
    with pytest.raises(InputError, match="unknown normalise rule"):
        registry.methods.get("normalise")(rules="spacing,shouting").fit()
    assert registry.methods.get("normalise")(rules="spacing").obfuscate(["a  b !"]) == ["a b!"]
