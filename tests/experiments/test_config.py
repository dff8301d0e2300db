"""Experiment configs: TOML and YAML, and one clear error per mistake."""

from __future__ import annotations

import pytest

from authorguard.data.scenarios import parse_scenario
from authorguard.exceptions import InputError
from authorguard.experiments.config import MethodSpec, config_from_dict, load_config


def minimal(**extra) -> dict:
    return {
        "methods": [{"name": "original"}, {"name": "syntf", "grid": {"epsilon": [1.0, 2.0], "n_words": [10, 20]}}],
        **extra,
    }


def test_grid_is_the_cartesian_product_over_fixed_params():
    spec = MethodSpec(
        "syntf", params={"n_words": 5, "bigram_weight": 0.1}, grid={"epsilon": [1.0, 2.0], "n_words": [10, 20]}
    )
    settings = spec.settings()
    assert len(settings) == 4
    assert settings[0] == {"n_words": 10, "bigram_weight": 0.1, "epsilon": 1.0}
    assert MethodSpec("original").settings() == [{}]


def test_toml_and_yaml_give_the_same_config(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text(
        'runs = 2\nscenarios = ["Top5-Multi"]\n[[methods]]\nname = "original"\n'
        '[[methods]]\nname = "syntf"\ngrid = { epsilon = [1.0, 2.0] }\n',
        encoding="utf-8",
    )
    yaml = tmp_path / "c.yaml"
    yaml.write_text(
        "runs: 2\nscenarios: [Top5-Multi]\nmethods:\n  - name: original\n  - name: syntf\n    grid: {epsilon: [1.0, "
        "2.0]}\n",
        encoding="utf-8",
    )
    assert load_config(toml) == load_config(yaml)
    assert load_config(toml).parsed_scenarios()[0].multi


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (minimal(runz=3), r"unknown key 'runz'"),
        ({"runs": 1}, r"missing key 'methods'"),
        ({"methods": [{"name": "original", "grids": {}}]}, r"unknown key 'grids' in methods\[0\]"),
        ({"methods": [{"name": "syntff"}]}, r"unknown method 'syntff'; did you mean 'syntf'"),
        ({"methods": [{"name": "syntf", "params": {"epsilom": 1}}]}, r"unknown parameter 'epsilom'"),
        ({"methods": [{"name": "syntf", "grid": {"epsilon": 3}}]}, r"grid value of 'epsilon' must be a non-empty list"),
        ({"methods": [{"name": "syntf", "grid": {"epsilon": [1.0], "target_loss": [2.0]}}]}, r"not both"),
        ({"methods": [{"name": "original", "params": {"target_loss": 2.0}}]}, r"needs a method with calibrate"),
        (minimal(dataset="20newz"), r"unknown dataset '20newz'"),
        (minimal(attackers=["writeprint"]), r"unknown attacker 'writeprint'"),
        (minimal(scenarios=["Top10"]), r"scenario 'Top10' must look like"),
        (minimal(scenarios="Top10-Any"), r"'scenarios' must be a list"),
        (minimal(threat_models=["original"]), r"'threat_models' parameter"),
        (minimal(classifiers=["rf"]), r"'classifiers' parameter"),
        (minimal(runs=0), r"'runs' parameter"),
        (minimal(n_jobs=0), r"'n_jobs' parameter"),
        ({"methods": [{"name": "original"}, {"name": "original"}]}, r"share the label 'original'"),
        (minimal(detectors=["lm"]), r"unknown detector 'lm'"),
        (
            minimal(attacker_options={"transformer": {"epochs": 1}}),
            r"names 'transformer', which 'attackers' does not list",
        ),
        (
            minimal(attackers=["transformer"], attacker_options={"transformer": {"epoch": 1}}),
            r"attacker_options.transformer: .*unexpected keyword argument 'epoch'",
        ),
        (minimal(attackers=["transformer"], attacker_options={"transformer": {"epochs": 0}}), r"'epochs' parameter"),
        (minimal(fluency="yes"), r"'fluency' must be true or false"),
        (
            minimal(detector_options={"lm-stylometric": {"max_tokens": 8}}),
            r"names 'lm-stylometric', which 'detectors' does not list",
        ),
        (
            minimal(detectors=["lm-stylometric"], detector_options={"lm-stylometric": {"max_token": 8}}),
            r"detector_options.lm-stylometric: .*unexpected keyword argument 'max_token'",
        ),
    ],
)
def test_bad_configs_fail_naming_the_key(data, message):
    with pytest.raises(InputError, match=message):
        config_from_dict(data)


def test_bad_files(tmp_path):
    with pytest.raises(InputError, match="no such config file"):
        load_config(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("runs = [\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a valid TOML file"):
        load_config(broken)
    other = tmp_path / "c.ini"
    other.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match=r"must be \.toml, \.yaml or \.yml"):
        load_config(other)


def test_scenario_names():
    assert parse_scenario("Top10-Any").top_k == 10
    assert parse_scenario("Top5-Multi", min_test_documents=3).min_test_documents == 3
