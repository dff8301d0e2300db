"""Tokenisation, morphology, stop words and bigrams."""

from __future__ import annotations

import numpy as np

from authorguard.text.analysis import TermAnalyzer, lemmatize, tokenize, wordnet_synonyms
from authorguard.text.bigrams import BigramIndex
from tests.reference import dice


def test_tokenize_keeps_unicode_letters_and_splits_punctuation():
    assert tokenize("Café, don't—e-mail 3D 1993!") == ["Café", "don", "t", "e", "mail", "3D", "1993"]


def test_analyzer_drops_stop_words_numbers_and_single_letters():
    assert TermAnalyzer("lower")("The 3 cats and I ran 1993 mp3 X") == ["cats", "ran"]


def test_lemmas():
    assert [lemmatize(w) for w in ["cats", "running", "geese", "was", "hockey"]] == [
        "cat",
        "run",
        "goose",
        "wa",
        "hockey",
    ]
    # 'was' is a stop word, removed before lemmatisation (WordNet would give the noun 'wa')
    assert TermAnalyzer("lemma")("Geese was running") == ["goose", "run"]


def test_normalize_word():
    analyzer = TermAnalyzer("lemma")
    assert analyzer.normalize_word("Cats") == "cat"
    assert analyzer.normalize_word("the") is None and analyzer.normalize_word("two words") is None


def test_wordnet_synonyms():
    assert {"automobile", "motorcar"} <= wordnet_synonyms("car")
    assert "car" not in wordnet_synonyms("car")


def test_bigram_dice_equals_set_definition():
    words = ["night", "nacht", "a", "aa", "banana", "ban"]
    index = BigramIndex.from_words(words)
    for i, v in enumerate(words):
        for j, w in enumerate(words):
            assert index.dice(i, j) == dice(v, w)
    assert index.set_sizes.tolist() == [4, 4, 0, 1, 3, 2]


def test_dense_bigram_rows_are_the_postings_of_the_frequent_bigrams():
    index = BigramIndex.from_words(["there", "other", "then", "a", "eth", "xy"])
    slot, members = index.dense_members(min_words=3)
    frequency = np.diff(index.postings.indptr)
    assert (slot >= 0).tolist() == (frequency >= 3).tolist() and members.dtype == np.uint8
    for k in np.flatnonzero(slot >= 0):
        holders = index.postings.indices[index.postings.indptr[k] : index.postings.indptr[k + 1]]
        assert np.flatnonzero(members[slot[k]]).tolist() == sorted(holders)
    letters = "abcdefghijklmnopqrstuvwxyz"
    long_word = "".join(a + b for a in letters for b in letters[:12])  # over 255 distinct bigrams
    assert BigramIndex.from_words([long_word, "ab"]).dense_members(1)[1].dtype == np.uint16  # sums cannot wrap


def test_stop_words_read_from_the_data_folder_equal_nltks_without_importing_it():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from authorguard.text.resources import english_stop_words\n"
        "words = english_stop_words()\n"
        "assert 'nltk' not in sys.modules, 'nltk imported'\n"
        "from nltk.corpus import stopwords\n"
        "assert words == frozenset(stopwords.words('english')) and len(words) > 100\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
