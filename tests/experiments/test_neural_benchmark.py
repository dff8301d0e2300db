"""The harness with the neural attackers, the likelihood detector and fluency, on real AMT-10 (tiny settings)."""

from __future__ import annotations

import pytest

pytest.importorskip("peft")
pytest.importorskip("gguf")

from authorguard.experiments.config import config_from_dict
from authorguard.experiments.results import benchmark_table, worst_case
from authorguard.experiments.runner import run_experiment


@pytest.fixture(scope="module")
def neural_run(tmp_path_factory):
    config = config_from_dict(
        {
            "name": "tiny-neural",
            "scenarios": ["AMT-10"],
            "attackers": ["char-ngrams", "transformer", "author-embedding"],
            "classifiers": ["svm"],
            "runs": 1,
            "seed": 2,
            "content_sample": 8,
            "fluency": True,
            "detectors": ["char-ngrams", "lm-stylometric"],
            "attacker_options": {
                "transformer": {"epochs": 1, "max_train_windows": 48, "max_windows": 1, "max_tokens": 64},
                "author-embedding": {"windows": 1},
            },
            "detector_options": {
                "lm-stylometric": {"max_train_documents": 40, "max_test_documents": 30, "max_tokens": 48}
            },
            "methods": [{"name": "original"}, {"name": "dropout", "params": {"rate": 0.5}}],
        }
    )
    return run_experiment(config, tmp_path_factory.mktemp("neural") / "out")


def test_neural_attackers_run_under_every_threat_model(neural_run):
    attacks = neural_run[neural_run["task"] == "attack"]
    for name in ("transformer", "author-embedding"):
        mine = attacks[attacks["attacker"] == name]
        assert set(mine["classifier"]) == {"neural"}
        assert set(mine.loc[mine["method"] == "dropout", "threat_model"]) == {"static", "augmented", "adversarial"}
    reference = attacks[(attacks["method"] == "original") & (attacks["attacker"] == "author-embedding")]
    assert reference["accuracy"].iloc[0] > 0.3  # ten authors, chance 0.1, 16 test samples


def test_worst_case_and_table_include_neural_attackers(neural_run):
    dropout = neural_run[neural_run["method"] == "dropout"]
    value, _ = worst_case(dropout[dropout["classifier"].isin(["svm", "neural"])])
    assert value == pytest.approx(dropout.loc[dropout["task"] == "attack", "f1_macro"].max())
    table = benchmark_table(neural_run, "AMT-10").set_index("method")
    for column in (
        "transformer static",
        "author-embedding adversarial",
        "LM ppl",
        "detector F1 (lm-stylometric)",
        "detector F1 (char-ngrams)",
    ):
        assert column in table.columns, column


def test_fluency_and_both_detectors(neural_run):
    content = neural_run[neural_run["task"] == "content"].set_index("method")
    # deleting half the words makes text less predictable to the language model
    assert content.loc["dropout", "perplexity"] > content.loc["original", "perplexity"]
    assert content.loc["original", "lm_tokens"] > 0
    detectors = neural_run[neural_run["task"] == "detector"].set_index("attacker")
    assert set(detectors.index) == {"char-ngrams", "lm-stylometric"}
    assert detectors.loc["lm-stylometric", "f1_macro"] > 0.8  # half the words gone from 500-word samples
