"""The check ranks the writer where the answer is known, says when too little text allows no conclusion, and
refuses bad input with one line."""

from __future__ import annotations

import math

import pytest

from authorguard.check import CheckConfig, check
from authorguard.check.config import MIN_TEXT_WORDS
from authorguard.exceptions import AuthorguardError, InputError

CONFIG = CheckConfig(sizes=(5, 10), attackers=("char-ngrams", "function-words"))


def test_the_writer_is_picked_out_of_their_own_text(habits_world):
    known, mine, _, background = habits_world
    result = check(mine, known, background=background, config=CONFIG)
    chars = [r for r in result.rankings if r.attacker == "char-ngrams"]
    assert [r.candidates for r in chars] == [5, 10]
    assert all(r.rank == 1 and r.margin > 0 for r in chars)
    assert all(0.5 < r.probability <= 1 for r in chars)
    assert result.verdict().startswith("Yes")
    # what carries the signal is the writer's habit: the favourite word, or the sentence ending
    assert any(e.feature in ("basically", "!!", "!", "! ") or "!" in e.feature for e in result.evidence)


def test_another_authors_text_is_not_pinned_on_the_writer(habits_world):
    known, _, theirs, background = habits_world
    result = check(theirs, known, background=background, config=CONFIG)
    chars = [r for r in result.rankings if r.attacker == "char-ngrams"]
    assert all(r.rank > 1 and r.margin < 0 and r.probability < 0.5 for r in chars)


def test_candidate_sets_larger_than_the_background_are_cut_and_said(habits_world):
    known, mine, _, background = habits_world
    result = check(mine, known, background=background, config=CheckConfig(sizes=(10, 100), attackers=("char-ngrams",)))
    assert [r.candidates for r in result.rankings] == [10, 14]
    assert any("the set of 100 candidates is 14" in s for s in result.statements)


def test_too_short_a_text_gets_a_statement_not_a_number(habits_world):
    known, mine, _, background = habits_world
    short = " ".join(mine.split()[: MIN_TEXT_WORDS - 1])
    result = check(short, known, background=background, config=CONFIG)
    assert result.rankings == [] and "no number is given" in result.statements[0]
    assert result.verdict().startswith("No attacker could be run")


def test_too_little_known_writing_leaves_attackers_out_and_says_so(habits_world):
    known, mine, _, background = habits_world
    result = check(mine, [" ".join(" ".join(known).split()[:600])], background=background, config=CONFIG)
    assert {r.attacker for r in result.rankings} == {"char-ngrams"}
    assert any("function-words needs 1000 words" in s for s in result.statements)
    assert any("may be understated" in s for s in result.statements)
    nothing = check(mine, [" ".join(known[0].split()[:200])], background=background, config=CONFIG)
    assert nothing.rankings == [] and any("no attacker here is reliable" in s for s in nothing.statements)


def test_the_result_is_plain_json(habits_world):
    import json

    known, mine, _, background = habits_world
    result = check(mine, known, background=background, config=CONFIG)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["verdict"] == result.verdict() and len(data["rankings"]) == 4
    assert all(isinstance(e["description"], str) for e in data["evidence"])
    assert any(line.startswith("char-ngrams") for line in result.lines())


def test_same_seed_same_result(habits_world):
    known, mine, _, background = habits_world
    first = check(mine, known, background=background, config=CONFIG)
    second = check(mine, known, background=background, config=CONFIG)
    assert first.rankings == second.rankings


@pytest.mark.parametrize(
    "text, known, message",
    [
        ("", ["some known writing"], "the text is empty"),
        ("   \n", ["some known writing"], "the text is empty"),
        ("a text", [], "the known writing is empty"),
        ("a text", ["  "], "the known writing is empty"),
    ],
)
def test_empty_input_is_one_line(text, known, message, habits_world):
    with pytest.raises(InputError, match=message):
        check(text, known, background=habits_world[3], config=CONFIG)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"sizes": (1,)}, "sizes must be integers of 2 or more"),
        ({"sizes": ()}, "sizes must be integers of 2 or more"),
        ({"attackers": ("nope",)}, "nope"),
        ({"calibration_pieces": 0}, "calibration_pieces"),
    ],
)
def test_bad_options_are_one_line(options, message):
    with pytest.raises(AuthorguardError, match=message):
        CheckConfig(**options)


def test_rewrite_step_checks_the_rewrite_under_both_threat_models(habits_world):
    from authorguard.base import TextObfuscator

    class DropHabits(TextObfuscator):
        """Removes author 0's habits: the attackers must lose the writer."""

        name = "drop-habits"

        def obfuscate(self, raw_documents):
            return [t.replace("!!", ".").replace("basically", "so") for t in raw_documents]

        def release_report(self):
            return {}

    known, mine, _, background = habits_world
    result = check(
        mine,
        known,
        background=background,
        config=CheckConfig(sizes=(10,), attackers=("char-ngrams",)),
        rewrite=[DropHabits()],
    )
    (rewrite,) = result.rewrites
    assert rewrite.method == "drop-habits" and rewrite.status == "rewritten" and "!!" not in rewrite.text
    assert {r.threat_model for r in rewrite.rankings} == {"static", "augmented"}
    before = result.rankings[0]
    static = next(r for r in rewrite.rankings if r.threat_model == "static")
    assert static.probability < before.probability
    assert math.isfinite(rewrite.meaning) or math.isnan(rewrite.meaning)
    assert rewrite.fidelity in ("faithful", "partial", "changed")  # the fidelity meter reads every rewrite
    assert f"fidelity {rewrite.fidelity}" in "\n".join(result.lines())


def test_the_text_itself_in_the_known_writing_is_left_out_and_said(habits_world):
    known, mine, _, background = habits_world
    result = check(mine, known + [mine + " and more"], background=background, config=CONFIG)
    assert "1 of your known documents contains the text itself" in result.statements[0]
    assert result.known_words == sum(len(k.split()) for k in known)
    with pytest.raises(InputError, match="only the text itself"):
        check(mine, [mine], background=background, config=CONFIG)


def test_a_long_text_is_read_in_pieces_of_the_trained_length(habits_world):
    import numpy as np

    from tests.conftest import author_text

    known, _, _, background = habits_world
    long_text = author_text(0, 1200, np.random.default_rng(5))
    result = check(long_text, known, background=background, config=CONFIG)
    assert result.piece_words == 500
    assert all(r.rank == 1 for r in result.rankings if r.attacker == "char-ngrams")


def test_a_background_author_holding_the_writers_own_writing_is_left_out_and_said(habits_world):
    """A writer whose posts sit in the background (a blogger of the staged corpus) is not their own rival."""
    from authorguard.check.background import Background

    known, mine, _, background = habits_world
    authors = dict(background.authors)
    authors["the-writer-again"] = ["  " + known[0].replace(" ", "\n", 3) + " \n", *known[1:3]]  # whitespace differs
    with_the_writer = Background(authors, background.genre, background.source)
    config = CheckConfig(sizes=(len(authors) + 1,), attackers=("char-ngrams",))
    result = check(mine, known, background=with_the_writer, config=config)
    assert result.background_authors == len(background.authors)  # the copy is not a candidate
    assert any("as the-writer-again" in s and "not your own rival" in s for s in result.statements)
    untouched = check(mine, known, background=background, config=config)
    assert untouched.background_authors == len(background.authors)
    assert not any("own rival" in s for s in untouched.statements)
