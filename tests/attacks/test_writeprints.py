"""WritePrints-Limited features computed by hand, and the attacker on real authors."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.attacks.writeprints import SPECIAL_CHARACTERS, WritePrintsAttacker, WritePrintsLimited
from authorguard.data.release import Release
from authorguard.data.scenarios import AuthorshipScenario
from authorguard.exceptions import InputError


def features(model, text):
    return dict(zip(model.feature_names_, model.transform([text])[0]))


def test_features_by_hand():
    model = WritePrintsLimited(top_k=2).fit(["aab aab ab", "the cat"])
    f = features(model, "Ab ab, a 12!")
    assert f["total_characters"] == 12 and f["total_words"] == 4  # "ab", "ab", "a", "12"
    assert f["share_letters"] == pytest.approx(5 / 12)
    assert f["share_upper"] == pytest.approx(1 / 12)
    assert f["share_digits"] == pytest.approx(2 / 12)
    assert f["letter:a"] == pytest.approx(3 / 5) and f["letter:b"] == pytest.approx(2 / 5)
    assert f["digit:1"] == pytest.approx(0.5)
    assert f["word_length:2"] == pytest.approx(3 / 4) and f["word_length:1"] == pytest.approx(1 / 4)
    assert f["special:,"] == pytest.approx(1 / 12) and f["special:!"] == pytest.approx(1 / 12)
    assert f["function_word:a"] == pytest.approx(1 / 4)
    # the two most frequent training letter bigrams (within words) are "ab" (3) then "aa" (2)
    assert [n for n in model.feature_names_ if n.startswith("bigram:")] == ["bigram:ab", "bigram:aa"]
    assert f["bigram:ab"] == pytest.approx(2 / 4)  # "ab ab a" -> letters-only bigrams ab, b?, ... within words: ab, ab
    assert [n for n in model.feature_names_ if n.startswith("word:")] == ["word:aab", "word:ab"]


def test_vocabulary_richness():
    model = WritePrintsLimited().fit(["x"])
    f = features(model, "a a b")
    assert f["hapax_legomena"] == pytest.approx(1 / 2) and f["dis_legomena"] == pytest.approx(1 / 2)
    assert f["yules_k"] == pytest.approx(1e4 * (1 * 1 + 4 * 1 - 3) / 9)


def test_shape_names_and_empty_documents():
    model = WritePrintsLimited(top_k=50).fit(["hello world", ""])
    matrix = model.transform(["", "hello"])
    assert matrix.shape == (2, len(model.get_feature_names_out()))
    assert np.all(matrix[0] == 0) and np.all(matrix >= 0)
    assert sum(n.startswith("special:") for n in model.feature_names_) == len(SPECIAL_CHARACTERS)
    with pytest.raises(InputError, match="'top_k' parameter"):
        WritePrintsLimited(top_k=0).fit(["a"])


def test_attacker_identifies_real_authors_from_reverse_vectorised_counts(newsgroups):
    from sklearn.feature_extraction.text import CountVectorizer

    corpus = AuthorshipScenario(5).select(newsgroups)
    vectorizer = CountVectorizer(lowercase=True)
    counts = vectorizer.fit_transform(corpus.texts)
    release = Release(counts, vectorizer.get_feature_names_out())
    train = np.flatnonzero(np.array(corpus.splits) == "train")
    test = np.flatnonzero(np.array(corpus.splits) == "test")
    authors = np.array(corpus.authors)
    scores = WritePrintsAttacker("svm", random_state=0).evaluate(
        release.rows(train), authors[train], release.rows(test), authors[test]
    )
    assert scores["f1_macro"] > 0.6  # chance is 0.2
    shuffled = np.random.default_rng(0).permutation(authors[train])
    chance = WritePrintsAttacker("nb").evaluate(release.rows(train), shuffled, release.rows(test), authors[test])
    assert chance["accuracy"] < 0.45


def test_word_and_pos_ngrams_by_hand():
    from authorguard.text.resources import pos_tagger

    assert [tag for _, tag in pos_tagger().tag(["The", "cat", "sat", "."])] == ["DT", "NN", "VBD", "."]
    model = WritePrintsLimited(top_k=3, word_order=True).fit(["The cat sat. The cat ran."])
    names = list(model.feature_names_)
    assert "word_bigram:the cat" in names and "pos:DT" in names and "pos_bigram:DT NN" in names
    f = features(model, "The cat sat.")
    assert f["word_bigram:the cat"] == pytest.approx(1 / 3)  # tokens: the cat sat . -> 3 bigrams
    assert f["pos:DT"] == pytest.approx(1 / 4) and f["pos_bigram:DT NN"] == pytest.approx(1 / 3)
    assert not any(n.startswith("pos") for n in WritePrintsLimited().fit(["The cat"]).feature_names_)


def test_text_attacker_reads_text_and_word_order_matters():
    from authorguard.attacks.writeprints import TextWritePrintsAttacker

    # the two authors use the same words; only their order differs
    a = ["the dog bit the man badly today"] * 6
    b = ["man the bit dog the today badly"] * 6
    release = Release.from_texts(a + b)
    authors = ["A"] * 6 + ["B"] * 6
    text_attack = TextWritePrintsAttacker(random_state=0).fit(release, authors)
    assert list(text_attack.predict(Release.from_texts([a[0], b[0]]))) == ["A", "B"]


def test_tagger_pickle_refuses_code():
    import pickle

    from authorguard.text.resources import _BuiltinsOnlyUnpickler

    assert _BuiltinsOnlyUnpickler.loads(pickle.dumps(({"w": 1.0}, {"the": "DT"}, {"DT"}), protocol=2))[2] == {"DT"}
    with pytest.raises(pickle.UnpicklingError, match="refused"):
        _BuiltinsOnlyUnpickler.loads(pickle.dumps(Release))
