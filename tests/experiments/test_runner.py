"""The runner on a tiny real experiment: rows, files, resume, parallel = serial, early failures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from authorguard.exceptions import InputError
from authorguard.experiments.config import load_config
from authorguard.experiments.runner import plan_cells, read_results, run_experiment

from .conftest import tiny_config_text


def test_tiny_experiment_writes_one_row_per_cell_task_attack(tiny_run):
    folder, frame, _ = tiny_run
    runs, classifiers, scenarios, attackers = 2, 2, 2, 2
    utility = runs * classifiers  # per setting and training (the reference has one: "none")
    reference_attack = runs * scenarios * attackers * classifiers  # one threat model ("none")
    protected_attack = 3 * reference_attack  # static, augmented, adversarial
    settings = {"original": 1, "scrubadub": 1, "syntf": 2}
    content, detector = runs, runs  # per setting; no detector for the reference
    expected = sum(
        n
        * (
            utility + reference_attack + content
            if m == "original"
            else 2 * utility + protected_attack + content + detector
        )
        for m, n in settings.items()
    )
    assert len(frame) == expected
    assert set(frame.loc[frame["method"] == "original", "threat_model"]) == {"", "none"}  # "" = content row
    assert set(frame.loc[frame["method"] == "syntf", "threat_model"]) == {"", "static", "augmented", "adversarial"}
    assert set(frame.loc[frame["task"] == "topic", "threat_model"]) == {"none", "static", "adversarial"}
    scored = frame[frame["task"] != "content"]
    assert (
        scored[["f1_macro", "accuracy"]].notna().all().all()
        and scored[["f1_macro", "accuracy"]].stack().between(0, 1).all()
    )
    syntf = frame[frame["method"] == "syntf"]
    assert syntf["total_loss"].to_numpy() == pytest.approx(40 * syntf["loss_per_word"].to_numpy())
    assert sorted(syntf["epsilon"].unique()) == [10.0, 40.0]
    # the unprotected reference identifies these prolific authors from their words
    original_attack = frame[
        (frame["method"] == "original") & (frame["attacker"] == "bow") & (frame["scenario"] == "Top2-Any")
    ]
    assert original_attack["f1_macro"].min() > 0.8
    # every attack row keeps its per-document answers (for the paired test), and they are its accuracy
    attacks = frame[frame["task"] == "attack"]
    assert (attacks["correct"].str.len() == attacks["n_test"]).all()
    assert np.allclose(attacks["correct"].map(lambda c: c.count("1") / len(c)), attacks["accuracy"])
    assert attacks.groupby("scenario")["test_digest"].nunique().eq(1).all()


def test_results_files_round_trip_and_record_the_config(tiny_run):
    folder, frame, config_path = tiny_run
    parquet = read_results(folder / "results.parquet")
    csv = read_results(folder / "results.csv")
    pd.testing.assert_frame_equal(parquet, frame)
    assert len(csv) == len(frame)
    assert csv["f1_macro"].to_numpy() == pytest.approx(
        frame["f1_macro"].to_numpy(), nan_ok=True
    )  # content rows have no F1
    experiment = json.loads((folder / "experiment.json").read_text())
    assert experiment["config"]["runs"] == 2
    assert experiment["command"][-1] == str(config_path)
    assert experiment["cells"] == len(plan_cells(load_config(config_path)))


def test_runs_use_different_seeds(tiny_run):
    folder, frame, config_path = tiny_run
    syntf = frame[(frame["method"] == "syntf") & (frame["task"] == "attack")]
    assert syntf["seed"].nunique() == 2
    by_run = syntf.pivot_table(
        index=["params", "scenario", "attacker", "threat_model", "classifier"], columns="run", values="f1_macro"
    )
    assert (by_run[0] != by_run[1]).any()  # fresh randomness per run


def test_resume_recomputes_only_missing_cells(tiny_run, tmp_path):
    import shutil

    folder, frame, config_path = tiny_run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    cells = sorted((copy / "cells").glob("*.json"))
    cells[0].unlink()
    (copy / "results.parquet").unlink()
    resumed = run_experiment(load_config(config_path), copy)
    experiment = json.loads((copy / "experiment.json").read_text())
    assert experiment["cells_computed"] == 1 and experiment["preparations_computed"] == 0
    pd.testing.assert_frame_equal(resumed.drop(columns="cell_seconds"), frame.drop(columns="cell_seconds"))


def test_a_parallel_rerun_reproduces_the_serial_run(tiny_corpus_file, tiny_run, tmp_path):
    _, frame, _ = tiny_run  # (a rerun with the same config and seed, in two worker processes)
    path = tmp_path / "parallel.toml"
    path.write_text(tiny_config_text(tiny_corpus_file, n_jobs=2), encoding="utf-8")
    parallel = run_experiment(load_config(path), tmp_path / "out")
    pd.testing.assert_series_equal(parallel["f1_macro"], frame["f1_macro"])


def test_changed_evaluation_settings_do_not_reuse_cells(tiny_corpus_file, tiny_run, tmp_path):
    import shutil

    folder, _, _ = tiny_run
    shutil.copytree(folder, tmp_path / "out")
    path = tmp_path / "changed.toml"
    path.write_text(
        tiny_config_text(
            tiny_corpus_file,
            classifiers='["nb"]',
            scenarios='["Top2-Any"]',
            runs=1,
            attackers='["bow"]',
            syntf_grid="{ epsilon = [10.0] }",
        ),
        encoding="utf-8",
    )
    frame = run_experiment(load_config(path), tmp_path / "out")
    assert json.loads((tmp_path / "out" / "experiment.json").read_text())["cells_computed"] == 3
    assert set(frame.loc[frame["task"].isin(["topic", "attack"]), "classifier"]) == {"nb"}


def test_scenario_with_too_few_authors_fails_before_any_work(tiny_corpus_file, tmp_path):
    path = tmp_path / "big.toml"
    path.write_text(tiny_config_text(tiny_corpus_file, scenarios='["Top9-Any"]'), encoding="utf-8")
    with pytest.raises(InputError, match=r"scenario Top9-Any: only 3 eligible authors"):
        run_experiment(load_config(path), tmp_path / "out")
    assert not list((tmp_path / "out" / "cells").glob("*"))


def test_calibrated_target_loss_sets_epsilon(tiny_corpus_file, tmp_path):
    path = tmp_path / "calibrated.toml"
    path.write_text(
        tiny_config_text(
            tiny_corpus_file,
            runs=1,
            scenarios='["Top2-Any"]',
            attackers='["bow"]',
            classifiers='["nb"]',
            syntf_grid="{ target_loss = [5.0] }",
        ),
        encoding="utf-8",
    )
    frame = run_experiment(load_config(path), tmp_path / "out")
    syntf = frame[frame["method"] == "syntf"]
    assert syntf["loss_per_word"].to_numpy() == pytest.approx(5.0, rel=1e-4)  # Brent tolerance on epsilon
    assert syntf["param_target_loss"].iloc[0] == 5.0


def test_the_document_epsilon_comes_from_whichever_report_the_method_gives():
    from authorguard.experiments.cells import _document_epsilon

    assert _document_epsilon({"tight_epsilon": 3000.0, "method_report": {}}) == 3000.0  # SynTF: l·n
    assert (
        _document_epsilon({"method_report": {"document_epsilon": 512.0, "tokens_per_second": 40}}) == 512.0
    )  # DP-Prompt
    assert _document_epsilon({"method_report": {"chunks": 3}}) is None and _document_epsilon({}) is None


def test_a_train_cap_keeps_the_whole_test_split_and_an_attacker_sample_keeps_each_authors_share():
    from authorguard.experiments.cells import attacker_sample
    from authorguard.experiments.config import config_from_dict
    from authorguard.experiments.views import build_view

    base = {"methods": [{"name": "original"}], "scenarios": ["AMT-10"], "attackers": ["bow"], "classifiers": ["svm"]}
    full = build_view(config_from_dict(base), "AMT-10")
    capped = build_view(config_from_dict({**base, "max_train_documents_per_author": 3}), "AMT-10")
    assert len(capped.attacks[0].test) == len(full.attacks[0].test) == 16
    assert len(capped.attacks[0].train) == 30 < len(full.attacks[0].train)
    attack = full.attacks[0]
    sample = attacker_sample(attack.train, attack.targets, 64, seed=0)
    assert len(sample) == 64 and set(sample) <= set(attack.train) and list(sample) == sorted(sample)
    for author in set(attack.targets[attack.train]):  # each author's share of 64, rounded down or up
        share = 64 * np.count_nonzero(attack.targets[attack.train] == author) / len(attack.train)
        assert np.floor(share) <= np.count_nonzero(attack.targets[sample] == author) <= np.ceil(share)
    assert np.array_equal(attacker_sample(attack.train, attack.targets, None, 0), attack.train)
    with pytest.raises(InputError, match="attacker_train_documents names 'writeprints'"):
        config_from_dict({**base, "attacker_train_documents": {"writeprints": 10}})


def test_a_stored_cell_is_never_computed_again_and_two_caps_are_refused(tmp_path, monkeypatch):
    """A job retried after its first attempt stored the cell (a Ray worker killed after the write) finds it
    stored and computes nothing."""
    from authorguard.experiments import runner
    from authorguard.experiments.config import config_from_dict

    config = config_from_dict({"methods": [{"name": "original"}], "scenarios": ["AMT-10"], "attackers": ["bow"]})
    cell = plan_cells(config)[0]
    (tmp_path / f"{cell.key}.json").write_text(json.dumps({"key": cell.key, "rows": []}), encoding="utf-8")
    calls = []
    monkeypatch.setattr(runner, "evaluate_cell", lambda *args: calls.append(args) or [])
    assert runner._run_cell(config, cell, tmp_path, tmp_path) == cell.key and calls == []
    with pytest.raises(InputError, match="not both"):
        config_from_dict(
            {
                "methods": [{"name": "original"}],
                "scenarios": ["AMT-10"],
                "max_documents_per_author": 5,
                "max_train_documents_per_author": 5,
            }
        )
