"""The style-free views: deterministic, documented by examples, ordered (each a function of the one before)."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.text.views import (
    canonical_from_lemma,
    canonical_view,
    canonical_word,
    content_minimal_view,
    content_view,
    get_view,
    lemma_from_content,
    lemma_view,
    view_sentences,
    view_words,
)
from authorguard.text.views.reading import SENTENCE_MARK


def test_content_view_examples():
    assert (
        content_view("I didn't like the movie, honestly. It was way too long!") == "not like movie honestly | way long"
    )
    assert content_view("We met Anna in Paris on 3 May.") == "met Anna Paris 3 May"
    assert content_view("The kids can't go; they'll stay home.") == "kids can not go will stay home"


def test_content_view_keeps_meaning_words():
    view = content_view("You should never sell all of your shares. Nobody would.")
    for word in ("should", "never", "all", "nobody", "would"):
        assert word in view.split()
    assert view.count(SENTENCE_MARK) == 1


def test_style_changes_leave_the_view_unchanged():
    """Casing, punctuation, contractions and function words are not in the view."""
    a = "I really didn't enjoy the concert in Berlin!! the band was LOUD!!! 3 hours of noise."
    b = "i really did not enjoy that concert in Berlin. The band was loud. 3 hours of noise"
    for name in ("content", "lemma", "canonical"):
        assert get_view(name)(a) == get_view(name)(b), name


def test_lemma_and_canonical_collapse_words():
    assert lemma_view("The kids were running home.") == "kid run home"
    assert canonical_view("The kids watched movies.") == canonical_view("The children watched films.")
    assert canonical_word("big") == canonical_word("large")


def test_canonical_is_a_fixed_point():
    for word in ("kid", "big", "movie", "purchase", "automobile", "rock", "happy", "sad"):
        assert canonical_word(canonical_word(word)) == canonical_word(word)


@pytest.mark.parametrize("name", ["content", "content-minimal", "lemma", "canonical"])
def test_views_are_deterministic_and_never_longer(name, blogs_texts):
    view = get_view(name)
    for text in blogs_texts:
        first = view(text)
        assert first == view(text)
        assert len(view_words(first)) <= len(text.split()) * 2  # contractions may split one token in two


def test_coarser_views_are_functions_of_finer_ones(blogs_texts):
    """The order of the construction: a lemma view is computed from the content view, a canonical view from the
    lemma view — so two texts with one content view have one lemma and one canonical view."""
    for text in blogs_texts:
        assert lemma_view(text) == lemma_from_content(content_view(text))
        assert canonical_view(text) == canonical_from_lemma(lemma_from_content(content_view(text)))


def test_minimal_view_has_no_marks_and_no_kept_function_words():
    view = content_minimal_view("You should not do that. Nobody could!")
    assert view == "nobody could"  # "not" and "should" are NLTK stop words; "nobody" and "could" are not
    assert SENTENCE_MARK not in content_minimal_view("One sentence. Another sentence.")


def test_empty_and_function_word_only_texts_have_empty_views():
    assert content_view("") == ""
    assert content_view("It is what it is, and I was there.") == ""
    assert view_sentences("") == []


def test_unknown_view_is_one_line():
    with pytest.raises(InputError, match="unknown view 'style'"):
        get_view("style")


@pytest.fixture(scope="module")
def blogs_texts():
    from authorguard.data.blogs import load_blogs

    corpus = load_blogs()
    return [t for t in corpus.texts[:400:20] if t.strip()]
