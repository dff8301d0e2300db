"""The feature judge's lexical features read the differences they name, on fixed sentences."""

from __future__ import annotations

from authorguard.metrics.fidelity.judge.features import FEATURES, LEXICAL_FEATURES, lexical_features, rule_features
from authorguard.metrics.fidelity.verdict import FidelityScore


def _lexical(source: str, output: str) -> dict[str, float]:
    return dict(zip(LEXICAL_FEATURES, lexical_features(source, output)))


def test_a_hedge_reversed_shows_and_a_copy_shows_nothing():
    source = "The talks will probably fail this year."
    found = _lexical(source, "The talks will certainly fail this year.")
    assert found["hedges_differ"] == 2 and found["times_differ"] == 0
    copy = _lexical(source, source)
    assert copy["word_jaccard"] == 1.0 and copy["content_added"] == copy["content_lost"] == 0
    assert sum(v for k, v in copy.items() if k != "word_jaccard") == 0


def test_times_tenses_persons_and_negations():
    assert _lexical("We met last week.", "We met next week.")["times_differ"] == 2
    assert _lexical("They sold the farm.", "They will sell the farm.")["future_differ"] == 1
    assert _lexical("I think it works.", "She thinks it works.")["persons_differ"] == 2
    assert _lexical("It does not work.", "It does work.")["negation_words_differ"] == 1
    assert _lexical("It doesn't work.", "It does work.")["negation_words_differ"] == 1


def test_numbers_added_lost_and_moved():
    moved = _lexical("A 5 hp engine drives a 120 volt generator.", "A 120 hp engine drives a 5 volt generator.")
    assert moved["numbers_moved"] == 2 and moved["numbers_added"] == moved["numbers_lost"] == 0
    changed = _lexical("It cost 40 dollars.", "It cost 45 dollars.")
    assert changed["numbers_added"] == changed["numbers_lost"] == 1


def test_a_sibling_noun_and_an_antonym_are_paired_a_synonym_is_not():
    assert _lexical("My dog sleeps all day.", "My cat sleeps all day.")["co_hyponyms"] == 1
    assert _lexical("The test was easy.", "The test was difficult.")["antonyms"] == 1
    synonym = _lexical("The car was fast.", "The automobile was fast.")
    assert synonym["co_hyponyms"] == 0 and synonym["antonyms"] == 0


def test_names_and_order():
    assert _lexical("We bought it from Ford yesterday.", "We bought it from Toyota yesterday.")["capitals_added"] == 1
    swapped = _lexical("The tiger chased the zebra across the plain.", "The zebra chased the tiger across the plain.")
    assert swapped["order_inversions"] > 0
    assert _lexical("The tiger chased the zebra across the plain.", "The tiger chased the zebra.")["content_lost"] == 2


def test_rule_features_follow_the_rule_score():
    rule = FidelityScore(verdict="changed", reasons=["x"], new_names=["ford"], atom_findings=["unit"])
    found = dict(zip(FEATURES, rule_features(rule)))
    assert found["rule_changed"] == 1 and found["rule_faithful"] == 0
    assert found["new_names"] == 1 and found["atom_findings"] == 1 and found["reasons"] == 1
