"""Tokens, vocabulary, Punkt sentences and the pre-processor (real blog text)."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.data import Preprocessor
from authorguard.neural.a4nt.text import SPECIALS, SentenceSplitter, Vocabulary, detokenize, tokenize


def test_tokenize_lowercases_and_replaces_numbers():
    assert tokenize("I don't have 3,000 Dollars (yet)!") == [
        "i",
        "don't",
        "have",
        "NUM",
        "dollars",
        "(",
        "yet",
        ")",
        "!",
    ]
    assert tokenize("PERSON said", frozenset({"PERSON"})) == ["PERSON", "said"]


def test_detokenize_attaches_punctuation():
    assert (
        detokenize(["i", "went", "(", "again", ")", "to", "school", ",", "then", "home", "."])
        == "i went (again) to school, then home."
    )


def test_vocabulary_round_trip(tmp_path):
    vocabulary = Vocabulary.build([["a", "b", "a"], ["c", "a", "b"]], size=6)
    assert vocabulary.tokens == [*SPECIALS, "a", "b"]
    ids = vocabulary.encode(["a", "zzz", "b"])
    assert ids == [4, Vocabulary.unk, 5]
    assert vocabulary.decode(ids + [Vocabulary.eos, 4]) == ["a", "<unk>", "b"]
    vocabulary.save(tmp_path / "v.json")
    assert Vocabulary.load(tmp_path / "v.json").tokens == vocabulary.tokens
    with pytest.raises(InputError, match="starts with"):
        Vocabulary(["a", "b"])


@pytest.fixture(scope="module")
def blog_texts():
    from authorguard.data import load_dataset

    return list(load_dataset("blogs").texts[:300])


def test_punkt_trained_on_the_corpus_splits_and_round_trips(blog_texts):
    splitter = SentenceSplitter.train(blog_texts, 20000)
    text = "I met Dr. Smith today. He was late!\n\nAnyway, we left at 5 p.m. and went home."
    sentences = splitter.split(text)
    assert sentences[0].startswith("I met") and sentences[-1].endswith("went home.")
    assert len(sentences) >= 3
    # every non-space character kept, in order
    assert "".join("".join(sentences).split()) == "".join(text.split())
    again = SentenceSplitter.from_dict(splitter.to_dict())
    assert [again.split(t) for t in blog_texts[:20]] == [splitter.split(t) for t in blog_texts[:20]]


def test_preprocessor_cuts_long_sentences_without_losing_tokens(blog_texts):
    splitter = SentenceSplitter.train(blog_texts, 20000)
    preprocessor = Preprocessor(splitter, max_tokens=7)
    for text, document in zip(blog_texts[:30], preprocessor.sentences(blog_texts[:30])):
        assert all(1 <= len(s) <= 7 for s in document)
        assert sum(len(s) for s in document) == sum(len(tokenize(s)) for s in splitter.split(text))
    assert preprocessor.sentences([""]) == [[]]


def test_placeholders_are_kept_dropped_or_filled_from_the_input_in_order():
    from authorguard.neural.a4nt.text import fill_placeholders, sentence_numbers

    vocabulary = Vocabulary([*SPECIALS, "i", "met", "at", "and", "."])
    source = tokenize("I met Zelda at 7:30 and Quentin at 9.")
    numbers = sentence_numbers("I met Zelda at 7:30 and Quentin at 9.")
    assert numbers == ["7:30", "9"] and source.count("NUM") == 2
    rewrite = ["<unk>", "and", "<unk>", "met", "at", "NUM", "<unk>", "NUM", "NUM", "."]
    assert fill_placeholders(rewrite, source, numbers, vocabulary, "keep") == rewrite
    assert fill_placeholders(rewrite, source, numbers, vocabulary, "drop") == ["and", "met", "at", "."]
    # zelda, quentin: the source's unknown words, each used once in order; a third <unk> and a third NUM are left out
    assert fill_placeholders(rewrite, source, numbers, vocabulary, "copy") == [
        "zelda",
        "and",
        "quentin",
        "met",
        "at",
        "7:30",
        "9",
        ".",
    ]
    with pytest.raises(InputError, match="unknown placeholder mode 'fill'"):
        fill_placeholders(rewrite, source, numbers, vocabulary, "fill")


def test_the_preprocessor_gives_each_piece_its_own_numbers():
    splitter = SentenceSplitter.train(["One two. Three four five six."] * 30, 1000)
    pieces = Preprocessor(splitter, max_tokens=4).sentences_with_numbers(["a 1 b 2 c 3 d 4 e 5 f. no numbers here"])[0]
    assert [tokens for tokens, _ in pieces] == [
        ["a", "NUM", "b", "NUM"],
        ["c", "NUM", "d", "NUM"],
        ["e", "NUM", "f", "."],
        ["no", "numbers", "here"],
    ]
    assert [numbers for _, numbers in pieces] == [["1", "2"], ["3", "4"], ["5"], []]
