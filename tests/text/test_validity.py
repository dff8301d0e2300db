"""The rewrite-validity gate: each rule on hand-written rewrites that break it, and rewrites that pass."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import TAROT_PROMPT
from authorguard.text.validity import (
    GateConfig,
    RewriteGate,
    content_stems,
    copy_share,
    count_reasons,
    dropped_share,
    invented_share,
    key_terms,
    repetition_share,
    sequence_similarity,
)

ORIGINAL = "On Sunday Anna and I drove 40 miles to Lake Tahoe, and the water was far too cold to swim in."
REWRITE = "Anna and I made the 40-mile trip to Lake Tahoe on Sunday, but the lake was too icy for swimming."
GATE = RewriteGate(instruction=TAROT_PROMPT)


def test_a_real_rewrite_passes():
    assert GATE.problem(ORIGINAL, REWRITE) is None
    assert GATE.problem("i love panda garden! yum!", "panda garden is my favourite place, so tasty!") is None


@pytest.mark.parametrize(
    "rewrite, reason",
    [
        ("", "empty"),
        ("  ...  ", "empty"),
        ("I'm sorry, but I can't help with that request.", "refusal"),
        ("As an AI, I cannot rewrite personal messages.", "refusal"),
        (
            "Rewrite the following paragraph so that the author's style is obfuscated: Anna drove to Lake Tahoe.",
            "instruction",
        ),
        (
            "The author's style is obfuscated by the casual tone of the trip to Lake Tahoe with Anna, 40 miles away.",
            "meta",
        ),
        ("This paragraph describes a 40 mile drive by Anna to Lake Tahoe on a cold Sunday.", "meta"),
        ("I hope this helps! Anna and I drove 40 miles to Lake Tahoe on Sunday; it was cold.", "meta"),
        ("Anna and I went to Lake Tahoe, 40 miles. " + "The water was cold, the water was cold, " * 6, "loop"),
        ("On Sunday Anna and I drove 40 miles to Lake Tahoe, and the water was far too cold to swim in.", "copy"),
        ("On Sunday Anna and I drove 40 miles to Lake Tahoe, and the water was much too cold to swim in.", "copy"),
        ("Anna and I: Lake Tahoe, 40 miles.", "length"),
        (
            "Sunday came and Anna insisted we drive the 40 miles up to Lake Tahoe, a trip we had promised ourselves "
            "since "
            "spring. The road wound through pines, the radio played old songs, we stopped twice for coffee and once "
            "for a "
            "view. When we finally reached the shore the wind had picked up; one toe in the water told us everything, "
            "so we sat on the rocks instead and watched braver people shriek.",
            "length",
        ),
        (
            "Last weekend we went on a long drive to a pond, but the water was far too cold for anyone to swim in it.",
            "entities",
        ),
        (
            "On Sunday Anna and I visited 40 shops near Lake Tahoe, bought shoes, and ate pizza with friends downtown.",
            "invented",
        ),
    ],
)
def test_each_rule_refuses_what_it_is_for(rewrite, reason):
    assert GATE.problem(ORIGINAL, rewrite) == reason


def test_truncation_counts_only_when_the_limit_was_hit_and_the_text_stops_mid_sentence():
    cut = "Anna and I made the 40-mile trip to Lake Tahoe on Sunday, but the lake was"
    assert GATE.problem(ORIGINAL, cut, truncated=True) == "truncated"
    assert GATE.problem(ORIGINAL, cut, truncated=False) is None
    assert GATE.problem(ORIGINAL, REWRITE, truncated=True) is None  # ended its sentence at the limit


def test_what_the_input_does_itself_is_not_held_against_the_rewrite():
    meta_original = "The author of this post rewrites her essays twice. It takes her all week."
    meta_rewrite = "Every essay gets rewritten twice by the author of this post, which costs her a whole week."
    assert GATE.problem(meta_original, meta_rewrite) is None
    chant = "go team go team go team go team go team go team, we won the cup at last!"
    cheer = "we won the cup at last! go team go team go team go team go team go team"
    no_copy_rule = RewriteGate(GateConfig(max_copy=1.0))
    assert no_copy_rule.problem(chant, cheer) is None
    assert no_copy_rule.problem("We won the cup at last, after a season of hard games!", cheer) == "loop"
    assert GATE.problem("Sorry, I can't come tonight.", "I can't make it tonight, sorry.") is None


def test_a_meta_phrase_of_the_input_licenses_only_itself():
    # a real BAC-10 case: the input's "this post" once switched the meta rule off for the whole rewrite
    original = "Ok I'm done. If all of you would kindly just ignore this post, that would be cool. Mom is on the phone."
    commented = "The author's style is obfuscated. I'm done; if you would all ignore this post, that would be cool."
    assert GATE.problem(original, commented) == "meta"
    assert (
        GATE.problem(original, "Fine, I'm finished. Please just skip this post, all of you; mom is on the phone.")
        is None
    )


def test_a_two_word_input_may_get_a_longer_rewrite():
    assert GATE.problem("hey people", "hello there, everyone!") is None


def test_invented_content_is_judged_only_on_inputs_with_enough_content_words():
    assert invented_share(ORIGINAL, ORIGINAL) == 0.0
    assert invented_share(ORIGINAL, "Nothing but shoes and pizza downtown.") == 1.0
    assert content_stems("The swimmers were swimming in 40 lakes") == {"swimmer", "swim", "lake"}
    # "i love panda garden! yum!" has four content words: any paraphrase of it is mostly new words
    assert GATE.problem("i love panda garden! yum!", "panda garden is my favourite place, so tasty!") is None
    assert (
        RewriteGate(GateConfig(min_content=1)).problem(
            "i love panda garden! yum!", "panda garden is my favourite place, so tasty!"
        )
        == "invented"
    )


def test_measures():
    assert copy_share(ORIGINAL, ORIGINAL) == 1.0 and copy_share(ORIGINAL, "Cold lake trip.") == 0.0
    assert sequence_similarity("to start documenting my life again", "to continue documenting my life again") > 0.8
    assert repetition_share("a b c a b c a b c a b c") > 0.5 and repetition_share(ORIGINAL) == 0.0
    assert key_terms(ORIGINAL) == {"sunday", "anna", "lake", "tahoe", "40"}  # "On" starts the sentence, "I" is no name
    assert key_terms('"Be kind." -- Mary Baker Eddy') == {"baker", "eddy"}  # the attribution's first word starts it
    assert dropped_share(ORIGINAL, "Anna's trip to the lake") == (0.6, 5)


def test_problems_counts_and_errors():
    verdicts = GATE.problems([ORIGINAL] * 3, [REWRITE, "", ORIGINAL], [False, False, False])
    assert verdicts == [None, "empty", "copy"]
    assert count_reasons(verdicts) == {"valid": 1, "empty": 1, "copy": 1}
    with pytest.raises(InputError, match="2 rewrites"):
        GATE.problems([ORIGINAL], [REWRITE, REWRITE])
    with pytest.raises(InputError, match="min_length_ratio"):
        GateConfig(min_length_ratio=3.0, max_length_ratio=2.0)
    with pytest.raises(InputError, match="max_copy"):
        GateConfig(max_copy=1.5)
    with pytest.raises(InputError, match="max_invented"):
        GateConfig(max_invented=-0.1)
    with pytest.raises(InputError, match="min_content"):
        GateConfig(min_content=0)
