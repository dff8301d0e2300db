"""The fidelity meter on constructed pairs: swapped roles, dropped negation, invented clause, changed number and a
question made an assertion are ``changed``; paraphrases of the same facts and normalised text are ``faithful``."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity import FidelityMeter, FidelityThresholds, faithful_share, verdict_counts


@pytest.fixture(scope="module")
def meter():
    return FidelityMeter(n_process=1, meter="rules")


@pytest.mark.parametrize(
    "source, output, finding",
    [
        ("The dog bit the man on Tuesday.", "The man bit the dog on Tuesday.", "who does what swapped"),
        ("I did not like the movie.", "I liked the movie.", "negations 1 -> 0"),
        ("We paid 300 dollars for the tickets.", "We paid 500 dollars for the tickets.", "new names or numbers: 500"),
        ("She went to the store.", "She went to the store and bought a red car for her brother.", "invents"),
        ("Are you coming tomorrow?", "You are coming tomorrow.", "questions 1 -> 0"),
        ("Anna met Paul in Berlin.", "Anna met Paul in Madrid.", "new names or numbers: madrid"),
    ],
)
def test_changes_are_changed(meter, source, output, finding):
    score = meter.score([source], [output])[0]
    assert score.verdict == "changed" and finding in score.reason, score.reason


@pytest.mark.parametrize(
    "source, output",
    [
        ("The dog bit the man on Tuesday.", "On Tuesday, the man was bitten by the dog."),
        (
            "My mother called me yesterday and we talked about the garden.",
            "Yesterday my mom phoned me, and we discussed the garden.",
        ),
        ("I don't know... it's been SOOO long!!!", "I do not know... It has been so long!"),
        ("The children were happy because the school closed early.", "The kids were glad since the school shut early."),
    ],
)
def test_paraphrases_are_faithful(meter, source, output):
    score = meter.score([source], [output])[0]
    assert score.verdict == "faithful", score.reason


def test_lost_content_is_partial(meter):
    source = "We drove to Lyon, visited the old cathedral, ate at a small bistro and watched the river at night."
    score = meter.score([source], ["We drove to Lyon."])[0]
    assert score.verdict == "partial" and "lost" in score.reason


def test_withheld_and_identical_and_bad_input(meter):
    scores = meter.score(["a text", "same  text", ""], [None, "same text", "something new"])
    assert [s.verdict for s in scores] == [None, "faithful", "changed"]
    assert verdict_counts(scores) == {
        "faithful": 1,
        "generalised": 0,
        "partial": 0,
        "unsure": 0,
        "changed": 1,
        "not scored": 1,
    }
    assert faithful_share(scores) == 0.5
    with pytest.raises(InputError, match="2 inputs but 1 outputs"):
        meter.score(["a", "b"], ["a"])
    with pytest.raises(InputError, match="pair 0: the output must be a str"):
        meter.score(["a"], [3])
    with pytest.raises(InputError, match="min_recall must be in"):
        FidelityThresholds(min_recall=2.0)


def test_the_same_pairs_in_several_processes(meter):
    pairs = [("The dog bit the man.", "The man bit the dog."), ("I like tea.", "I enjoy tea.")] * 3
    one = [s.verdict for s in meter.score(*zip(*pairs))]
    two = [s.verdict for s in FidelityMeter(n_process=2, meter="rules").score(*zip(*pairs))]
    assert one == two == ["changed", "faithful"] * 3


@pytest.mark.parametrize(
    "source, output, finding",
    [
        ("Room 5 costs $50.", "Room 50 costs $50.", "new names or numbers: 50"),  # numbers counted, not a set
        (
            "It was -5 degrees outside.",
            "It was 5 degrees outside.",
            "new names or numbers: 5",
        ),  # the sign is the number's
        ("We flew to Austria with our kids.", "We flew to Australia with our kids.", "australia"),  # not a typo
        (
            "We meet on Sunday at the old station near the river.",
            "We meet on Monday at the old station near the river.",
            "monday",
        ),
        (
            "My friends came to the party at the old house near the lake last night and we danced.",
            "My enemies came to the party at the old house near the lake last night and we danced.",
            "says the opposite",
        ),
    ],
)
def test_small_changes_in_long_sentences_are_changed(meter, source, output, finding):
    score = meter.score([source], [output])[0]
    assert score.verdict == "changed" and finding in score.reason, score.reason


def test_a_typing_slip_in_a_name_is_not_a_change(meter):
    assert meter.score(["I love Detriot and its music."], ["I love Detroit and its music."])[0].verdict == "faithful"


def test_nothing_to_parse_loads_nothing_and_too_long_is_not_scored(monkeypatch):
    import authorguard.metrics.fidelity as fidelity

    def boom():
        raise AssertionError("the parser was loaded")

    monkeypatch.setattr(fidelity, "parser", boom)
    scores = FidelityMeter(meter="rules").score(
        ["same", "x"], ["same", None]
    )  # identical and withheld: nothing to parse
    assert [s.verdict for s in scores] == ["faithful", None]
    monkeypatch.setattr(fidelity, "MAX_CHARACTERS", 10)
    (long,) = FidelityMeter(meter="rules").score(["a long input text here"], ["a long output text here"])
    assert long.verdict is None and "longer than the meter reads" in long.reason
