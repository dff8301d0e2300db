"""The paired comparison with the original: a constructed case whose answer is known, the scale it states, and
results without per-document answers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from authorguard.exceptions import InputError
from authorguard.experiments.comparison import comparison_table


def _attack_row(
    method: str, correct: np.ndarray, *, attacker="char-ngrams", threat="adversarial", n_train=900, digest="d1"
):
    return {
        "view": "BAC-10",
        "scenario": "BAC-10",
        "method": method,
        "method_name": method,
        "params": json.dumps({}),
        "run": 0,
        "task": "attack",
        "attacker": attacker,
        "threat_model": threat,
        "classifier": "svm",
        "accuracy": float(correct.mean()),
        "f1_macro": float(correct.mean()),
        "n_train": n_train,
        "n_test": len(correct),
        "correct": "".join("1" if c else "0" for c in correct),
        "test_digest": digest,
    }


def _constructed() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    original = rng.random(1500) < 0.5
    hides = original.copy()  # 80 of the original's right answers lost, 5 gained: a real 5-point drop
    hides[np.flatnonzero(original)[:80]] = False
    hides[np.flatnonzero(~original)[:5]] = True
    same = original.copy()  # as many lost as gained: no difference
    same[np.flatnonzero(original)[:20]] = False
    same[np.flatnonzero(~original)[:20]] = True
    weaker = original & (rng.random(1500) < 0.5)  # a weaker attack on the same method: never its worst case
    return pd.DataFrame(
        [
            _attack_row("original", original, threat="none"),
            _attack_row("hides", hides),
            _attack_row("hides", weaker, attacker="writeprints", n_train=300),
            _attack_row("same", same, threat="static"),
            _attack_row("elsewhere", same, digest="d2"),  # other test documents: no pairing
            # a detector's and a utility task's rows train on other numbers of documents: no attacker's sample
            {**_attack_row("same", same), "task": "detector", "attacker": "char-ngrams", "n_train": 400},
            {**_attack_row("same", same), "task": "topic", "attacker": "", "n_train": 5000},
        ]
    )


def test_a_real_drop_is_marked_real_and_an_equal_accuracy_is_not():
    table = comparison_table(_constructed(), "BAC-10").set_index("method")
    assert table.loc["hides", "worst case (accuracy)"] == f"{_constructed()['accuracy'][1]:.3f}"
    assert table.loc["hides", "attack"] == "char-ngrams / adversarial"
    assert table.loc["hides", "real difference"] == "yes" and table.loc["hides", "Δ vs original"].startswith("-5.")
    low, high = (float(x) for x in table.loc["hides", "Δ 95 % CI"].strip("[]").split(","))
    assert low < -5.0 < high < 0
    assert table.loc["same", "real difference"] == "no" and table.loc["same", "McNemar p"] == "1"
    assert table.loc["elsewhere", "real difference"] == "–"  # not the same documents: no paired test
    assert table.loc["original", "attack"] == "char-ngrams / any" and table.loc["original", "Δ vs original"] == "–"


def test_each_row_states_its_scale_and_an_attacker_trained_on_a_sample():
    table = comparison_table(_constructed(), "BAC-10").set_index("method")
    assert table.loc["original", "scale (documents)"] == "900 train / 1,500 test"
    assert table.loc["hides", "scale (documents)"] == "900 train / 1,500 test (writeprints on a sample)"
    assert table.loc["same", "scale (documents)"] == "900 train / 1,500 test"
    low, high = (float(x) for x in table.loc["original", "95 % CI"].strip("[]").split(","))
    assert high - low < 0.06  # 1,500 documents: within ± 3 points


def test_results_without_per_document_answers_get_no_paired_test_and_an_unknown_view_is_refused():
    old = _constructed().drop(columns=["correct", "test_digest"])
    assert set(comparison_table(old, "BAC-10")["real difference"]) == {"–"}
    with pytest.raises(InputError, match="no view 'AMT-10'"):
        comparison_table(old, "AMT-10")


def test_the_answers_survive_the_csv_and_pair_from_it(tmp_path):
    from authorguard.experiments.runner import read_results

    frame = _constructed()
    frame.loc[0, "correct"] = "0" + frame.loc[0, "correct"][1:]  # a leading zero, as a number would lose it
    frame.to_csv(tmp_path / "results.csv", index=False)
    again = read_results(tmp_path / "results.csv")
    assert list(again["correct"]) == list(frame["correct"]) and again["correct"].str.len().eq(1500).all()
    assert comparison_table(again, "BAC-10").set_index("method").loc["hides", "real difference"] == "yes"
