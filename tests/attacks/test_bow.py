"""The bag-of-words attacker and the shared counts classifier."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from authorguard.attacks.bow import BagOfWordsAttacker
from authorguard.data.release import Release
from authorguard.metrics.classification import CountsClassifier, classification_scores


def test_separable_counts_are_attributed_and_noise_is_not():
    words = ("w0", "w1", "w2", "w3")
    release = Release(sp.csr_matrix(np.repeat(np.eye(4), 10, axis=0) * 5), words)
    authors = np.repeat(list("abcd"), 10)
    assert BagOfWordsAttacker("svm", random_state=0).evaluate(release, authors, release, authors) == {
        "f1_macro": 1.0,
        "accuracy": 1.0,
    }
    rng = np.random.default_rng(0)
    noise = Release(sp.csr_matrix(rng.poisson(1.0, size=(400, 30))), [f"w{i}" for i in range(30)])
    labels = rng.choice(list("abcd"), size=400)
    scores = BagOfWordsAttacker("nb").evaluate(
        noise.rows(range(200)), labels[:200], noise.rows(range(200, 400)), labels[200:]
    )
    assert scores["accuracy"] < 0.45


def test_test_release_with_other_columns_is_aligned_by_word():
    train = Release(sp.csr_matrix([[3, 0], [0, 3]]), ("apple", "pear"))
    test = Release(sp.csr_matrix([[0, 0, 2], [2, 1, 0]]), ("pear", "kiwi", "apple"))  # apple-doc, pear-doc
    model = CountsClassifier("nb").fit(train, ["A", "P"])
    assert list(model.predict(test)) == ["A", "P"]


def test_scores():
    assert classification_scores(["a", "b", "b"], ["a", "b", "a"]) == {"f1_macro": 2 / 3, "accuracy": 2 / 3}
