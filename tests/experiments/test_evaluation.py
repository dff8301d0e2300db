"""The analyst, the bag-of-words attacker and the gain on a small real slice."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from authorguard.experiments.evaluation import evaluate_syntf, score
from authorguard.experiments.scenarios import AuthorshipScenario


def test_score_separable_and_chance():
    X = sp.csr_matrix(np.repeat(np.eye(4), 10, axis=0) * 5)
    y = np.repeat(list("abcd"), 10)
    assert score(X, y, X, y, "svm") == {"f1_macro": 1.0, "accuracy": 1.0}
    rng = np.random.default_rng(0)
    noise = sp.csr_matrix(rng.poisson(1.0, size=(400, 30)))
    labels = rng.choice(list("abcd"), size=400)
    assert score(noise[:200], labels[:200], noise[200:], labels[200:], "nb")["accuracy"] < 0.45


@pytest.mark.parametrize(("epsilon", "expect_leak"), [(2.0, False), (400.0, True)])
def test_syntf_gain_rows_on_five_authors(newsgroups, epsilon, expect_leak):
    scenario = AuthorshipScenario(5)
    corpus = scenario.select(newsgroups)  # the five authors' messages serve as both the analyst's and the attacker's data
    rows = evaluate_syntf(corpus, scenario, {"epsilon": epsilon, "n_words": 100}, seed=0, classifiers=("svm",))
    assert [r["threat_model"] for r in rows] == ["anonymised-train", "original-train"]
    for row in rows:
        assert row["gain"] == pytest.approx(row["beta_u"] - row["beta_a"])
        assert row["attack_f1_original"] > 0.6  # a real attacker on real text
        assert row["tight_epsilon"] == pytest.approx(100 * row["loss_per_word"])
    attack = rows[0]["attack_f1_syntf"]
    # near-uniform replacements (small epsilon) leave chance-level attribution; a sharp mechanism leaks
    assert (attack > 0.4) == expect_leak
