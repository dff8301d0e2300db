"""A⁴NT's sentence classifiers as benchmark attackers (toy styles, then real blog text)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from authorguard.data.release import Release


def _toy_documents(n: int, rng):
    from tests.neural.a4nt.conftest import toy_sentences

    texts, labels = [], []
    for i in range(n):
        label = i % 2
        texts.append(" ".join(" ".join(s) for s in toy_sentences(label, 8, rng)))
        labels.append("teen" if label == 0 else "adult")
    return texts, labels


@pytest.mark.parametrize("name", ["lstm", "cnn"])
def test_sentence_classifier_attackers_learn_word_choice(name):
    from authorguard.attacks.base import make_attacker

    rng = np.random.default_rng(3)
    train_texts, train_labels = _toy_documents(40, rng)
    test_texts, test_labels = _toy_documents(20, rng)
    attacker = make_attacker(name, "svm", 0, {"steps": 80, "width": 16, "embedding_dim": 16})
    scores = attacker.evaluate(
        Release.from_texts(train_texts), train_labels, Release.from_texts(test_texts), test_labels
    )
    assert scores["accuracy"] >= 0.9
    assert attacker.own_classifier == "neural"
    assert np.mean(attacker.losses_[-10:]) < np.mean(attacker.losses_[:10])


def test_lstm_attacker_on_real_blog_authors():
    from authorguard.attacks.recurrent import LSTMAttacker
    from authorguard.data import load_dataset

    corpus = load_dataset("blogs")
    authors = sorted(set(corpus.authors))[:3]
    rows = [i for i, a in enumerate(corpus.authors) if a in authors][:60]
    texts, labels = [corpus.texts[i] for i in rows], [corpus.authors[i] for i in rows]
    attacker = LSTMAttacker(random_state=0, steps=10, width=8, embedding_dim=8).fit(Release.from_texts(texts), labels)
    predicted = attacker.predict(Release.from_texts(texts[:7] + [""]))
    assert len(predicted) == 8 and set(predicted) <= set(authors)
