"""Tokens, vocabulary, Punkt sentences and the pre-processor (real blog text)."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.data import Preprocessor
from authorguard.neural.a4nt.text import SPECIALS, SentenceSplitter, Vocabulary, detokenize, tokenize


def test_tokenize_lowercases_and_replaces_numbers():
    assert tokenize("I don't have 3,000 Dollars (yet)!") == ["i", "don't", "have", "NUM", "dollars", "(", "yet", ")", "!"]
    assert tokenize("PERSON said", frozenset({"PERSON"})) == ["PERSON", "said"]


def test_detokenize_attaches_punctuation():
    assert detokenize(["i", "went", "(", "again", ")", "to", "school", ",", "then", "home", "."]) == "i went (again) to school, then home."


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
