"""The view gate: every rule reads the view and the output, never the original text."""

from __future__ import annotations

import inspect

import pytest

from authorguard.exceptions import InputError
from authorguard.text.views import content_view, lemma_view
from authorguard.text.views.gate import ViewGate

VIEW = "not like movie honestly | way long"


@pytest.fixture
def gate():
    return ViewGate(content_view, instruction="Write fluent English sentences that say what these words say.")


def test_a_faithful_realisation_passes(gate):
    assert gate.problem(VIEW, "I did not like the movie, honestly. It was way too long.") is None


@pytest.mark.parametrize(
    "output, reason",
    [
        ("", "empty"),
        ("I'm sorry, I cannot help with that.", "refusal"),
        ("Write fluent English sentences that say what these words say.", "instruction"),
        ("The author did not like the movie, honestly. It was way too long.", "meta"),
        ("the movie the movie the movie the movie the movie the movie", "loop"),
        ("not like movie honestly way long", "copy"),
        ("I liked the movie, honestly. It was long.", "coverage"),  # the "not" is gone: the meaning flipped
        (
            "I did not like the movie, honestly; the popcorn, the seats, the parking and the tickets were way too "
            "long.",
            "invented",
        ),
    ],
)
def test_each_rule(gate, output, reason):
    assert gate.problem(VIEW, output) == reason


def test_truncation_counts_only_without_an_ending(gate):
    text = "I did not like the movie, honestly, it was way too long and"
    assert gate.problem(VIEW, text, truncated=True) == "truncated"
    assert gate.problem(VIEW, text, truncated=False) is None


def test_lemma_level_reads_inflections_as_the_same_word():
    gate = ViewGate(lemma_view)
    assert gate.problem(lemma_view("The kids were running home."), "A kid runs home.") is None


def test_no_rule_reads_the_original():
    """The gate's only inputs are the view and the output (and whether generation hit its limit)."""
    assert list(inspect.signature(ViewGate.problem).parameters) == ["self", "view", "output", "truncated"]


def test_problems_checks_lengths(gate):
    with pytest.raises(InputError, match="2 views, 1 outputs"):
        gate.problems([VIEW, VIEW], ["x"])
