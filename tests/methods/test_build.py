"""Building a registered text method from a name, its parameters and a spec string."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.methods.build import build_text_method, parse_method_spec


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("synonyms", ("synonyms", {})),
        (" bottleneck(level=lemma) ", ("bottleneck", {"level": "lemma"})),
        ("dropout(rate=0.4)", ("dropout", {"rate": 0.4})),
        ("dp-prompt(epsilon=100, top_p=0.9)", ("dp-prompt", {"epsilon": 100, "top_p": 0.9})),
    ],
)
def test_specs(spec, expected):
    assert parse_method_spec(spec) == expected


@pytest.mark.parametrize(
    "spec, message",
    [
        ("", "an empty method name"),
        ("dropout(rate=0.4", "write NAME or NAME"),
        ("dropout(0.4)", "is not key=value"),
    ],
)
def test_bad_specs_are_one_line(spec, message):
    with pytest.raises(InputError, match=message):
        parse_method_spec(spec)


def test_builds_a_seeded_method_and_refuses_unknown_parameters():
    method = build_text_method(*parse_method_spec("dropout(rate=0.5)"), 3)
    assert method.get_params()["rate"] == 0.5 and method.get_params()["random_state"] == 3
    again = build_text_method("dropout", {"rate": 0.5}, 3)
    assert method.obfuscate(["one two three four five six"]) == again.obfuscate(["one two three four five six"])
    with pytest.raises(InputError, match="unknown parameter 'nope'"):
        build_text_method("dropout", {"nope": 1}, 0)
    with pytest.raises(InputError, match="does not rewrite text"):
        build_text_method("syntf", {}, 0)
