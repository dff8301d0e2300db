"""How the judge joins the rule meter: the worst sentence decides, an atom finding is never overruled, the band
between the thresholds is unsure; the calibrated thresholds reproduce from the committed development inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from authorguard.metrics.fidelity.judge.verdict import (
    aligned_sentences,
    combined,
    fit_thresholds,
    passage_probabilities,
)
from authorguard.metrics.fidelity.verdict import FidelityScore

ROOT = Path(__file__).resolve().parents[4]
FAITHFUL, CHANGED = np.array([0.9, 0.05, 0.05]), np.array([0.05, 0.05, 0.9])


def test_an_atom_finding_stays_changed_whatever_the_judge_says():
    rule = FidelityScore(verdict="changed", reasons=["unit detached"], atom_findings=["unit detached"])
    found = combined(rule, FAITHFUL, 0.3, 0.7)
    assert found.verdict == "changed" and found.reasons == ["unit detached"] and found.meter == "judge"


def test_thresholds_decide_and_the_rules_loss_stays():
    assert combined(FidelityScore(verdict="faithful"), CHANGED, 0.3, 0.7).verdict == "changed"
    assert combined(FidelityScore(verdict="faithful"), np.array([0.5, 0, 0.5]), 0.3, 0.7).verdict == "unsure"
    assert combined(FidelityScore(verdict="changed", reasons=["new name: x"]), FAITHFUL, 0.3, 0.7).verdict == "faithful"
    assert combined(FidelityScore(verdict="partial"), FAITHFUL, 0.3, 0.7).verdict == "partial"
    generalised = combined(FidelityScore(verdict="faithful"), np.array([0.2, 0.75, 0.05]), 0.3, 0.7)
    assert generalised.verdict == "generalised" and "less specific" in generalised.reasons[0]
    assert combined(FidelityScore(verdict=None), CHANGED, 0.3, 0.7).verdict is None  # withheld stays unscored


class _Judge:
    """Says changed exactly for pairs whose output holds "moon"."""

    def probabilities(self, inputs, outputs):
        return np.asarray([CHANGED if "moon" in b else FAITHFUL for b in outputs])


def test_the_worst_sentence_decides_a_passage():
    source = "The cat sat on the mat. The dog slept by the door. Then it rained."
    honest = "On the mat sat the cat. By the door the dog slept. Then it rained."
    one_wrong = "On the mat sat the cat. By the moon the dog slept. Then it rained."
    found = passage_probabilities(_Judge(), [source, source], [honest, one_wrong])
    assert found[0][2] < 0.1 and found[1][2] > 0.8
    pairs = aligned_sentences(source, "The cat sat on the mat and the dog slept by the door. Then it rained.")
    assert pairs[0][0] == "The cat sat on the mat. The dog slept by the door." and pairs[1] == (
        "Then it rained.",
        "Then it rained.",
    )


def test_fit_thresholds_respects_its_limits():
    rules = [FidelityScore(verdict="faithful")] * 6
    probabilities = np.array([[1 - p, 0, p] for p in (0.05, 0.1, 0.45, 0.55, 0.9, 0.95)])
    labels = ["faithful", "faithful", "faithful", "changed", "changed", "changed"]
    found = fit_thresholds(rules, probabilities, labels, max_unsure=0.0, max_faithful_changed=0.0)
    assert found["agreement"] == 1.0 and 0.45 <= found["low"] <= found["high"] <= 0.55 and found["unsure"] == 0.0
    missed = probabilities.copy()
    missed[5] = [0.99, 0, 0.01]  # a change the judge cannot see: no threshold keeps it from being called faithful
    with pytest.raises(ValueError):
        fit_thresholds(rules, missed, labels, max_unsure=0.0, max_faithful_changed=0.0)


def test_the_reported_thresholds_reproduce_from_the_development_inputs():
    inputs = ROOT / "docs" / "results" / "judge" / "calibration-inputs.jsonl"
    packaged = ROOT / "docs" / "results" / "judge" / "calibration.json"
    rows = [json.loads(line) for line in inputs.read_text(encoding="utf-8").splitlines()]
    rules = [FidelityScore(verdict=r["rule"], atom_findings=r["atom"]) for r in rows]
    found = fit_thresholds(rules, np.asarray([r["p"] for r in rows]), [r["label"] for r in rows])
    shipped = json.loads(packaged.read_text(encoding="utf-8"))
    assert (found["low"], found["high"], found["agreement"]) == (shipped["low"], shipped["high"], shipped["agreement"])


def test_the_targets_objective_trades_both_errors_and_may_use_the_unsure_band():
    rules = [FidelityScore(verdict="faithful")] * 8
    # the two classes overlap in the middle: one band of unsure takes the overlap
    probabilities = np.array([[1 - p, 0, p] for p in (0.05, 0.1, 0.4, 0.6, 0.45, 0.65, 0.9, 0.95)])
    labels = ["faithful"] * 4 + ["changed"] * 4
    found = fit_thresholds(rules, probabilities, labels, max_unsure=0.5, objective="targets")
    assert found["changed_called_faithful"] == 0.0 and found["faithful_called_changed"] == 0.0
    assert found["low"] < 0.45 and found["high"] > 0.6 and 0 < found["unsure"] <= 0.5
    with pytest.raises(ValueError, match="objective"):
        fit_thresholds(rules, probabilities, labels, objective="speed")
