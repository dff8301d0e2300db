"""The roles realiser's training targets: every target is in the language its constraint allows, so the realiser
learns only what it may write."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from authorguard.neural.realiser.constrained import roles_accepts
from authorguard.neural.realiser.data import target_of, view_plan_words
from authorguard.text.views.constraints import FREE_WORDS
from authorguard.text.views.roles import roles_view

SAMPLE = Path(__file__).resolve().parents[3] / "docs" / "results" / "bottleneck" / "fidelity-sample.jsonl"
TRICKY = [
    "I didn't like the movie, honestly. It's WAY too long!!",
    '"Hello," she said -- it\'s the end...',
    "Anna's dog has been sick; he's been to the vet (twice).",
    "Prices rose 3.5% in 1997, or so they say?",
    "well-known café opened on TUESDAY :) the the the end",
]


def test_every_roles_target_is_in_its_constraints_language(tokenizer):
    accepts = roles_accepts(tokenizer)
    texts = TRICKY + [json.loads(line)["input"] for line in SAMPLE.read_text(encoding="utf-8").splitlines()[:60]]
    for text in texts:
        view, target = roles_view(text), target_of("roles", text)
        assert accepts(view, target), (view, target)
        words, _, _ = view_plan_words(view)
        said = [w.strip(",;:.!?") for w in target.split()]
        assert [w for w in said if w.lower() not in FREE_WORDS or w not in words][: len(words)] or not words


def test_an_acronym_keeps_its_capitals_and_a_shouted_word_does_not():
    # "the WHO" keeps its article: no free article may stand before "who", so the text's own is copied
    assert roles_view("I like the NFL and the WHO. It was LOUD.") == "I like \u2e3dthe NFL and the WHO | it was loud"
    # a function word shouted with its neighbours is style; "A" inside a sentence is a name, not the article
    assert roles_view("I LOVE IT. Vitamin A helps.") == "I love it | vitamin A helps"


def test_a_contraction_whose_reading_is_a_guess_is_copied():
    # "it's called" is passive, "that's happened" perfect, "everyone's wages" a possessive: the form does not say
    assert roles_view("It's called Raja. Everyone's wages rose. He's here.") == (
        "it's called Raja | Everyone's wages rose | he is here"
    )


def test_the_roles_view_reads_contractions_out_and_keeps_who_does_what():
    assert roles_view("I didn't see him, but she's seen them.") == "I did not see him, but she has seen them"
    assert roles_view("We'll go. He'd left. They're here!") == "we will go | he had left | they are here"
    # an article is the text's own, optional (the article slot): the realiser writes it or leaves it out
    assert roles_view("Anna's dog barked at the mailman.") == "Anna's dog barked at \u2e3dthe mailman"
    assert target_of("content", "A  b\nc.") == "A b c."


@pytest.mark.parametrize("text", TRICKY)
def test_the_roles_view_marks_only_the_articles_optional(text):
    from authorguard.text.views import content_view, view_words
    from authorguard.text.views.constraints import free_word_allowed, word_after_gap_allowed

    words = view_words(roles_view(text))
    kept = {w.lower() for w in words}
    # an article is a required view word only where leaving it out would garble ("the the the end": a loop)
    for i, word in enumerate(words):
        if word.lower() in FREE_WORDS:
            previous, following = words[i - 1] if i else "", words[i + 1] if i + 1 < len(words) else ""
            assert not (free_word_allowed(word, (), previous) and word_after_gap_allowed(following, (word,))), text

    # every word the content view keeps is said by the roles view ("not" read out of "didn't"; compared by their
    # letters and digits: the roles view keeps punctuation and atoms whole, "movie," "3.5%" "well-known")
    def pieces(view: str) -> set[str]:
        return set(re.findall(r"[^\W_]+", view.lower()))

    assert pieces(content_view(text)) <= pieces(" ".join(kept)) | {"not"}


def test_questions_and_hard_wrapped_lines_in_the_roles_view():
    from authorguard.neural.realiser.model import chunk_views_with_edges, view_as_text

    wrapped = "I would claim that the attack on the IRA\nwas probably planned. Why don't you ask\nthem?"
    # "IRA" keeps its capitals (WordNet writes it so: an acronym, not a shouted "ira")
    assert roles_view(wrapped) == (
        "I would claim that \u2e3dthe attack on \u2e3dthe IRA was probably planned | why do not you ask them ?"
    )
    assert target_of("roles", wrapped).endswith("Why do not you ask them?")
    assert view_as_text(roles_view(wrapped)).endswith("why do not you ask them?")
    chunks, _ = chunk_views_with_edges([roles_view(wrapped)], 3)
    assert chunks[-1].text.endswith("them ?") and all(c.text != "?" for c in chunks)


def test_demonstratives_and_graders_are_view_words_and_articles_free():
    # issue 65: free demonstratives, "very" and "such" were most of the held-out damage ("This answers" -> "The
    # answers"); only the articles are free, and not one of a quantity or a rate
    assert roles_view("That's funny. That car is red. I like that.") == "that is funny | that car is red | I like that"
    assert roles_view("Such a very good day. A few cities paid $1 a share.") == (
        "such \u2e3da very good day | a few cities paid $1 a share"
    )


def test_the_article_slot_keeps_every_article_of_the_text_and_stays_with_its_word():
    """The roles view holds each article of the text where it stood (optional or required, never a new one); a
    chunk is never cut between an article and its word; the realiser is shown the view without them."""
    from authorguard.neural.realiser.config import RealiserConfig
    from authorguard.neural.realiser.model import chunk_views_with_edges
    from authorguard.text.atoms import OPTIONAL_MARK, is_optional

    text = "The senate passed a bill on the budget. A judge and an aide read the text of the ruling in the U.S."
    view = roles_view(text)
    assert [w.lstrip(OPTIONAL_MARK) for w in view.split() if w.lstrip(OPTIONAL_MARK) in FREE_WORDS] == [
        "the",
        "a",
        "the",
        "a",
        "an",
        "the",
        "the",
        "the",
    ]
    for size in (1, 2, 3):
        chunks, _ = chunk_views_with_edges([view], size)
        assert all(not is_optional(c.text.split()[-1]) for c in chunks), size
        assert " ".join(c.text for c in chunks).replace(" | ", " ").split() == view.replace(" | ", " ").split()
    shown = RealiserConfig().messages("ordered", view)[1]["content"]
    assert OPTIONAL_MARK not in shown and " the " not in shown
    # a text's own mark is no optional word
    assert roles_view(f"The dog barked {OPTIONAL_MARK}loudly.") == f"{OPTIONAL_MARK}the dog barked loudly"
