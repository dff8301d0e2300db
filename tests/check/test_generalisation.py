"""Generalise what gives me away (issue 66): each evidence word is offered its truthful, less specific form; one
word's generalisation changes that word only; all of them together, with the names, lower the writer's margin
under the same attackers, and every change is listed."""

from __future__ import annotations

import json
import re

import pytest

from authorguard.check import CheckConfig, check
from authorguard.check.evidence import Evidence
from authorguard.check.generalisation import generalise_words, with_offers

TEXT = "My sister Ching took her poodle to Toronto, and she said the poodle was happy."


def test_one_word_changes_that_word_only_and_all_names_come_on_request():
    one = generalise_words(TEXT, ["poodle"])
    assert one.text == "My sister Ching took her dog to Toronto, and she said the dog was happy."
    assert one.changes == [["poodle", "dog"], ["poodle", "dog"]]
    everything = generalise_words(TEXT, ["poodle"], names=True)
    assert everything.text == "My sister took her dog to a city, and she said the dog was happy."
    assert ["Ching", ""] in everything.changes and ["Toronto", "a city"] in everything.changes


def test_bad_words_are_one_line_and_blank_words_change_nothing():
    from authorguard.exceptions import InputError

    with pytest.raises(InputError, match="list of strings"):
        generalise_words(TEXT, "poodle")
    with pytest.raises(InputError, match="empty"):
        generalise_words("  ", ["poodle"])
    assert generalise_words(TEXT, [""]).changes == []  # a blank word covers no name
    assert generalise_words("Two poodles and a poodle.", ["poodle"]).text == "Two dogs and a dog."


def test_each_word_item_is_offered_its_generalisation_and_nothing_else_is():
    items = [
        Evidence("char-ngrams", "a word you use", "poodle", 0.4, 2),
        Evidence("char-ngrams", "a word you use", "happy", 0.2, 1),  # no broader word: withheld
        Evidence("function-words", "function word", "the", 0.3, 1),
        Evidence("char-ngrams", "punctuation and spacing", ", ", 0.1, 1),
    ]
    offered = with_offers(TEXT, items)
    assert [e.generalisation for e in offered] == ["dog", "[word]", "", ""]


def test_generalising_what_gives_the_writer_away_lowers_their_margin(habits_world):
    known, mine, _, background = habits_world
    config = CheckConfig(sizes=(10,), attackers=("char-ngrams",))
    result = check(mine, known, background=background, config=config, generalise=1)
    found = result.generalised
    words = {e.feature for e in result.evidence if e.kind == "a word you use"}
    assert words and found.changes
    # every evidence word in the text is changed, and nothing but the evidence words and names is
    changed = {w for old, _ in found.changes for w in old.split()}
    assert {w for w in changed if not w[:1].isupper()} <= words
    assert not any(re.search(rf"\b{re.escape(w)}\b", found.text) for w in words)
    before = [r for r in result.rankings if r.attacker == "char-ngrams"][0]
    after = [r for r in found.rankings if r.attacker == "char-ngrams"][0]
    assert after.margin < before.margin
    assert any(line.startswith("After generalising what gives you away") for line in result.lines())
    json.dumps(result.to_dict())  # plain JSON, the generalised check included
