"""The evidence says where each item is in the text and what the writer can do about it."""

from __future__ import annotations

from authorguard.check.evidence import Evidence, advice, spans_of


def test_spans_find_whole_words_and_characters_as_written():
    text = "Basically, we went. basically!! We stayed!!"
    assert spans_of("a word you use", "Basically", text) == [[0, 9]]
    assert spans_of("function word", "we", text) == [[11, 13], [32, 34]]  # any case, whole words only
    assert spans_of("punctuation and spacing", "!! ", text) == [[29, 31], [41, 43]]


def test_advice_names_the_faithful_edit_or_a_common_word_and_never_a_capital():
    assert "“!”" in advice("punctuation and spacing", "!!")
    assert "“film”" in advice("a word you use", "movies")  # through the lemma: movies -> movie -> film
    assert "“going to”" in advice("a word you use", "gonna")
    # no synonym for a word of several senses: "engagement" is not "battle" here
    assert "rephrase" in advice("a word you use", "engagement") and "battle" not in advice(
        "a word you use", "engagement"
    )
    # a word alone is not a sentence start: no advice to capitalise it
    assert "normalise" not in advice("a word you use", "downloading")
    assert "rate" in advice("function word", "we")


def test_the_description_says_how_often_and_on_which_side():
    item = Evidence("function-words", "function word", "my", 0.2, 0, [], 0.0, 9.0, 21.0, "")
    text = item.describe()
    assert "0 times here" in text and "9.0 in your known writing" in text and "21.0 in the other candidates'" in text
    assert "you use it less than they do, as your known writing does" in text
