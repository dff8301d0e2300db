"""The judge's rule-made pairs on real sentences (20 Newsgroups and blog posts): each rule makes the change its class
claims, and no more."""

from __future__ import annotations

import re

import numpy as np
import pytest

from authorguard.neural.judge import faithful, tables
from authorguard.neural.judge.pairs import CHANGED, FAITHFUL, GENERALISED, RULES, PairContext, make_pairs, pair_for

SENTENCES = {
    "money": "I won the lottery 2 hours before the show and got front row seats for $20.",
    "chip": "I believe that any motherboard that uses the HINT chipset is limited to 24-bit DMA, not 32-bit DMA.",
    "quote": 'St Noam was on the radio tonight, he has just published a new book "501 years".',
    "manual": "My card's manual says it does something like 640 by 400 in 2 colours.",
    "tesla": "First of all, realize that Tesla invented AC power generators and transformers in 1888.",
    "display": "I would like to display these images on a PC.",
    "package": "It is still in its sealed box on the kitchen table.",
    "polite": "If you have something related to it, please let me know.",
    "government": "The French government did not approve the plan in the United States last year.",
    "agency": "The company hired the students because the director liked their work.",
    "mood": "The team played a strong game and the fans cheered for an hour.",
    "percent": "Prices rose 30 percent in March, and the shops were unlikely to stay open.",
}


@pytest.fixture(scope="module")
def parsed():
    from authorguard.metrics.fidelity.reading import parser

    return {name: parser()(text) for name, text in SENTENCES.items()}


def _context(seed: int = 0) -> PairContext:
    names = {"PERSON": ["Barry Bonds", "Cal Ripken"], "ORG": ["Microsoft"], "NORP": ["Canadians"], "GPE": ["Ohio"]}
    return PairContext(np.random.default_rng(seed), names)


def _apply(name: str, key: str, parsed, seed: int = 0) -> str | None:
    return RULES[name][1](SENTENCES[key], parsed[key], _context(seed))


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d[\d,.]*", text)


def test_every_rule_has_its_class_and_the_classes_are_three():
    assert {label for label, _ in RULES.values()} == {FAITHFUL, GENERALISED, CHANGED}
    assert len([n for n, (label, _) in RULES.items() if label == CHANGED]) >= 14


def test_number_rules_change_move_or_detach_a_number(parsed):
    changed = _apply("number_changed", "money", parsed)
    assert changed != SENTENCES["money"] and _numbers(changed) != _numbers(SENTENCES["money"])
    swapped = _apply("numbers_swapped", "chip", parsed)
    assert _numbers(swapped) == _numbers(SENTENCES["chip"])[::-1][:2] + _numbers(SENTENCES["chip"])[2:]
    assert _apply("unit_dropped", "money", parsed) == SENTENCES["money"].replace("$20", "20")
    assert "percent" not in _apply("unit_dropped", "percent", parsed)


def test_negation_hedge_antonym_and_time(parsed):
    assert _apply("negation", "government", parsed) == SENTENCES["government"].replace("did not", "did")
    assert " not " in _apply("negation", "display", parsed)
    assert "likely to stay" in _apply("hedge", "percent", parsed) and "unlikely" not in _apply(
        "hedge", "percent", parsed
    )
    assert _apply("antonym", "display", parsed) == "I would dislike to display these images on a PC."
    shifted = _apply("time_shifted", "tesla", parsed, seed=1)
    assert shifted != SENTENCES["tesla"] and shifted.replace("1888", "").split() != SENTENCES["tesla"].split()


def test_who_does_what_who_says_it_and_what_is_quoted(parsed):
    swapped = _apply("agent_patient", "agency", parsed)
    assert swapped.startswith("The students hired the company")
    speaker = _apply("speaker", "manual", parsed)
    assert not speaker.startswith("My card's manual") and speaker.endswith(
        "says it does something like 640 by 400 in 2 colours."
    )
    quoted = _apply("quotation_reworded", "quote", parsed)
    assert (
        quoted.count('"') == 2
        and quoted.split('"')[1] != "501 years"
        and quoted.split('"')[0] == SENTENCES["quote"].split('"')[0]
    )


def test_names_kinds_and_nouns(parsed):
    replaced = _apply("name_replaced", "tesla", parsed)
    assert "Tesla" not in replaced and any(name in replaced for name in ("Canadians", "Microsoft"))
    wrong = _apply("name_wrong_kind", "tesla", parsed)
    kinds = {k for options in tables.WRONG_KINDS.values() for k in options}
    assert any(k in wrong for k in kinds) and ("Tesla" not in wrong or "AC" not in wrong)
    sibling = _apply("co_hyponym", "package", parsed)
    assert (
        sibling is not None
        and sibling != SENTENCES["package"]
        and len(sibling.split()) == len(SENTENCES["package"].split())
    )


def test_clause_dropped_and_claim_added(parsed):
    dropped = _apply("clause_dropped", "mood", parsed)
    assert dropped is not None and len(dropped.split()) < len(SENTENCES["mood"].split()) and dropped.endswith(".")
    added = next(a for seed in range(20) if (a := _apply("claim_added", "display", parsed, seed)))  # a third apply
    assert added.startswith("I would like to display these images on a PC") and len(added) > len(SENTENCES["display"])


def test_faithful_rules_keep_every_word_that_carries_meaning(parsed):
    moved = _apply("clause_moved", "polite", parsed)
    assert moved == "Please let me know if you have something related to it."
    country = _apply("nationality", "government", parsed)
    assert "government of France" in country and "French" not in country
    assert "U.S." in faithful.abbreviation(SENTENCES["government"], parsed["government"], _context(1)) or "U.S." in (
        faithful.abbreviation(SENTENCES["government"], parsed["government"], _context(2))
    )
    assert faithful.contractions("I did not at all desire it.", None, _context()) in ("I didn't at all desire it.",)


def test_generalised_rule_names_what_a_name_is(parsed):
    found = _apply("name_by_kind", "tesla", parsed)
    capitals = lambda text: set(re.findall(r"\b[A-Z]\w+", text))  # noqa: E731
    assert found is not None and found != SENTENCES["tesla"]
    assert capitals(found) < capitals(SENTENCES["tesla"])  # a name went, none came


def test_pairs_follow_their_class_shares_and_never_copy(parsed):
    texts = list(SENTENCES.values()) * 10
    docs = [parsed[name] for name in SENTENCES] * 10
    made = make_pairs(texts, docs, _context(3))
    assert len(made) > 60 and all(p.rewrite != p.source for p in made)
    labels = {p.label for p in made}
    assert labels == {FAITHFUL, GENERALISED, CHANGED}
    again = make_pairs(texts, docs, _context(3))
    assert [p.rewrite for p in again] == [p.rewrite for p in made]  # a seed makes the same pairs
    faithful = pair_for(SENTENCES["government"], parsed["government"], FAITHFUL, _context(4))
    assert faithful is not None and faithful.label == FAITHFUL and faithful.rewrite != SENTENCES["government"]
