"""The character n-gram attacker on real writing, and what it reads from each kind of release."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from authorguard.attacks.char_ngrams import CharNgramAttacker
from authorguard.data.release import Release
from authorguard.methods.perturbation import WordDropout


@pytest.fixture(scope="module")
def four_authors(newsgroups):
    """Training and test messages of the four most prolific 20 Newsgroups authors (by-date split)."""
    top = [a for a, _ in Counter(a for a in newsgroups.authors if a).most_common(4)]

    def pick(split):
        return [i for i, (a, s) in enumerate(zip(newsgroups.authors, newsgroups.splits)) if a in top and s == split]

    train, test = pick("train"), pick("test")
    texts, authors = np.array(newsgroups.texts, dtype=object), np.array(newsgroups.authors, dtype=object)
    return list(texts[train]), authors[train], list(texts[test]), authors[test]


def test_attributes_real_authors_far_above_chance(four_authors):
    train_texts, train_authors, test_texts, test_authors = four_authors
    scores = CharNgramAttacker("svm", random_state=0).evaluate(
        Release.from_texts(train_texts), train_authors, Release.from_texts(test_texts), test_authors
    )
    assert scores["accuracy"] > 0.8  # chance is 0.25


def test_heavy_word_dropout_lowers_the_attack(four_authors):
    train_texts, train_authors, test_texts, test_authors = four_authors
    dropped = WordDropout(rate=0.9, random_state=0).fit().obfuscate(test_texts)
    clean = CharNgramAttacker("svm", random_state=0).fit(Release.from_texts(train_texts), train_authors)
    accuracy = lambda texts: float(np.mean(clean.predict(Release.from_texts(texts)) == test_authors))  # noqa: E731
    assert accuracy(dropped) < accuracy(test_texts)


def test_reads_texts_of_a_text_release_and_reverse_vectorised_counts_of_a_vector_release():
    text = Release.from_texts(["Hello there, friend.", "Bye now"])
    assert text.kind == "text" and text.document_texts() == ["Hello there, friend.", "Bye now"]
    vectors = Release(text.counts, text.vocabulary)
    assert vectors.kind == "vectors" and vectors.document_texts() == vectors.reverse_texts()
    assert text.rows([1]).document_texts() == ["Bye now"] and text.rows(np.array([True, False])).texts == (
        "Hello there, friend.",
    )
    both = Release.stack([text, vectors])
    assert both.document_texts()[:2] == ["Hello there, friend.", "Bye now"] and len(both) == 4


def test_a_text_release_needs_one_text_per_row():
    from authorguard.exceptions import InputError

    text = Release.from_texts(["apple pear", "kiwi plum"])
    with pytest.raises(InputError, match="2 count rows but 1 texts"):
        Release(text.counts, text.vocabulary, ["only one"])
    with pytest.raises(InputError, match="none of the 2 released texts has a word"):
        Release.from_texts(["", "the 42"])
