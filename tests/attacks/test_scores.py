"""Every attacker ranks the candidates: ``scores`` has one column per trained author, and its argmax is ``predict``."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.attacks.base import Attacker, make_attacker
from authorguard.data.release import Release

CHEAP = ["char-ngrams", "bow", "function-words", "writeprints", "writeprints-text"]


@pytest.mark.parametrize("name", CHEAP)
@pytest.mark.parametrize("n_authors", [2, 4])
def test_scores_rank_like_predict(name, n_authors, top_author_split):
    (train_texts, train_authors), (test_texts, _) = top_author_split(n_authors, 12, 6)
    attacker = make_attacker(name, "svm", 0).fit(Release.from_texts(train_texts), train_authors)
    scores = attacker.scores(Release.from_texts(test_texts))
    assert scores.shape == (len(test_texts), n_authors)
    assert list(attacker.classes_) == sorted(set(train_authors))
    assert np.array_equal(attacker.classes_[scores.argmax(1)], attacker.predict(Release.from_texts(test_texts)))


def test_naive_bayes_scores_are_log_probabilities(top_author_split):
    (train_texts, train_authors), (test_texts, _) = top_author_split(3, 10, 4)
    attacker = make_attacker("char-ngrams", "nb", 0).fit(Release.from_texts(train_texts), train_authors)
    scores = attacker.scores(Release.from_texts(test_texts))
    assert np.allclose(np.exp(scores).sum(1), 1.0)


def test_an_attacker_without_scores_says_so():
    class Guess(Attacker):
        name = "guess"

        def fit(self, release, authors):
            return self

        def predict(self, release):
            return np.array(["a"] * len(release))

    with pytest.raises(NotImplementedError, match="guess attacker gives no per-author scores"):
        Guess().scores(Release.from_texts(["one document"]))
