"""beta, gain and the choice of p-hat, on a results table made by hand."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from authorguard.exceptions import InputError
from authorguard.experiments.results import best_settings, gains, mean_sd, select_attack, setting_summary, table3


def row(method, params, run, task, f1, scenario="all", attacker="", threat="", **extra):
    return {
        "method": method,
        "method_name": "syntf" if method == "syntf" else method,
        "params": json.dumps(params),
        "run": run,
        "task": task,
        "scenario": scenario,
        "attacker": attacker,
        "threat_model": threat,
        "classifier": "svm",
        "f1_macro": f1,
        "epsilon": params.get("epsilon"),
        "loss_per_word": None,
        "total_loss": None,
        "n_words": None,
        **extra,
    }


@pytest.fixture
def frame():
    rows = []
    for run in (0, 1):
        rows += [
            row("original", {}, run, "topic", 0.8),
            row("original", {}, run, "attack", 0.9, "S1", "bow", "none"),
            row("original", {}, run, "attack", 0.6, "S2", "bow", "none"),
        ]
        for eps, utility, a1, a2 in ((10, 0.4, 0.45, 0.15), (20, 0.6, 0.72, 0.3)):
            p = {"epsilon": eps}
            rows += [
                row("syntf", p, run, "topic", utility),
                row("syntf", p, run, "attack", a1, "S1", "bow", "anonymised-train"),
                row("syntf", p, run, "attack", a2, "S2", "bow", "anonymised-train"),
            ]
    return pd.DataFrame(rows)


def test_gain_is_beta_u_minus_beta_a_per_run(frame):
    g = gains(frame)
    one = g[
        (g["method"] == "syntf") & (g["params"] == '{"epsilon": 10}') & (g["scenario"] == "S1") & (g["run"] == 0)
    ].iloc[0]
    assert one["beta_u"] == pytest.approx(0.4 / 0.8) and one["beta_a"] == pytest.approx(0.45 / 0.9)
    assert one["gain"] == pytest.approx(0.0)
    reference = g[g["method"] == "original"]
    assert reference["gain"].to_numpy() == pytest.approx(0.0)


def test_p_hat_maximises_the_minimum_gain_over_scenarios(frame):
    selected = select_attack(gains(frame), "bow", "anonymised-train", "svm")
    summary = setting_summary(selected).set_index("params")
    # eps 10: gains S1 0.5-0.5=0, S2 0.5-0.25=0.25 -> min 0; eps 20: S1 0.75-0.8=-0.05, S2 0.75-0.5=0.25 -> min -0.05
    assert summary.loc['{"epsilon": 10}', "min_gain"] == pytest.approx(0.0)
    assert summary.loc['{"epsilon": 20}', "min_gain"] == pytest.approx(-0.05)
    assert best_settings(selected)["syntf"] == '{"epsilon": 10}'
    table = table3(frame, "S2", "bow", "anonymised-train", "svm", best_settings(selected)).set_index("method")
    assert table.loc["syntf", "gain"] == "0.250 ± 0.000"
    assert table.loc["original", "utility F1"] == "0.800 ± 0.000"


def test_missing_reference_or_attack_is_an_error(frame):
    with pytest.raises(InputError, match="no 'original' method"):
        gains(frame[frame["method"] != "original"])
    with pytest.raises(InputError, match="no attacker 'writeprints'"):
        select_attack(gains(frame), "writeprints", "anonymised-train", "svm")


def test_mean_sd():
    assert mean_sd(pd.Series([1.0, 3.0])) == "2.000 ± 1.414"
    assert mean_sd(pd.Series([0.5])) == "0.500"
    assert mean_sd(pd.Series([], dtype=float)) == "–"


def test_attack_matrix_lists_every_attack_and_the_reference_under_every_threat_model(frame):
    from authorguard.experiments.results import attack_matrix

    table = attack_matrix(frame, "S1", {"original": "{}", "syntf": '{"epsilon": 10}'}).set_index("method")
    assert table.loc["original", "bow adversarial svm"] == table.loc["original", "bow static svm"] == "0.900 ± 0.000"
    assert table.loc["original", "bow augmented svm"] == "0.900 ± 0.000"  # the reference: one attack for all three
    assert table.loc["syntf", "bow adversarial svm"] == "0.450 ± 0.000"  # given as the legacy "anonymised-train"
    assert table.loc["syntf", "bow static svm"] == "–"  # not measured in this table
    assert table.loc["syntf", "utility svm"] == "0.400 ± 0.000"
