"""A tiny real experiment: the three most prolific 20 Newsgroups authors, as a records file."""

from __future__ import annotations

import json

import pytest

from authorguard.data.scenarios import AuthorshipScenario


@pytest.fixture(scope="session")
def tiny_corpus_file(newsgroups, tmp_path_factory):
    """JSONL of the Top3-Any authors' messages (both splits) with their newsgroups: ~250 documents."""
    authors = set(AuthorshipScenario(3).authors(newsgroups))
    path = tmp_path_factory.mktemp("tiny") / "tiny.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        for row in zip(newsgroups.ids, newsgroups.texts, newsgroups.authors, newsgroups.labels, newsgroups.splits):
            if row[2] in authors:
                handle.write(json.dumps(dict(zip(("id", "text", "author", "label", "split"), row))) + "\n")
    return path


def tiny_config_text(corpus_path, **overrides) -> str:
    values = {
        "runs": 2,
        "n_jobs": 1,
        "scenarios": '["Top2-Any", "Top3-Any"]',
        "attackers": '["bow", "writeprints"]',
        "classifiers": '["nb", "svm"]',
        "syntf_grid": "{ epsilon = [10.0, 40.0] }",
    }
    values.update(overrides)
    return f"""
name = "tiny"
dataset = "records"
dataset_options = {{ path = "{corpus_path}" }}
scenarios = {values["scenarios"]}
attackers = {values["attackers"]}
classifiers = {values["classifiers"]}
runs = {values["runs"]}
n_jobs = {values["n_jobs"]}
seed = 3
content_sample = 12

[[methods]]
name = "original"

[[methods]]
name = "scrubadub"

[[methods]]
name = "syntf"
params = {{ n_words = 40 }}
grid = {values["syntf_grid"]}
"""


@pytest.fixture(scope="session")
def tiny_run(tiny_corpus_file, tmp_path_factory):
    """The tiny experiment run once (2 runs, 2 scenarios, 2 attackers, 2 classifiers, both threat models)."""
    from authorguard.experiments.config import load_config
    from authorguard.experiments.runner import run_experiment

    folder = tmp_path_factory.mktemp("tiny-run")
    config_path = folder / "tiny.toml"
    config_path.write_text(tiny_config_text(tiny_corpus_file), encoding="utf-8")
    frame = run_experiment(
        load_config(config_path), folder / "out", command=["authorguard", "experiment", "run", str(config_path)]
    )
    return folder / "out", frame, config_path


TEXT_CONFIG = """
name = "tiny-text"
scenarios = ["AMT-10"]
attackers = ["char-ngrams", "function-words", "writeprints-text"]
classifiers = ["svm"]
runs = 1
n_jobs = 1
seed = 5

[[methods]]
name = "original"

[[methods]]
name = "dropout"
params = { rate = 0.5 }

[[methods]]
name = "syntf"
params = { n_words = 100, epsilon = 20.0 }
"""


@pytest.fixture(scope="session")
def tiny_text_run(tmp_path_factory):
    """The text benchmark on AMT-10 (real: 10 authors, 160 samples): original, dropout and SynTF, three attackers."""
    from authorguard.experiments.config import load_config
    from authorguard.experiments.runner import run_experiment

    folder = tmp_path_factory.mktemp("tiny-text")
    config_path = folder / "text.toml"
    config_path.write_text(TEXT_CONFIG, encoding="utf-8")
    frame = run_experiment(
        load_config(config_path), folder / "out", command=["authorguard", "experiment", "run", str(config_path)]
    )
    return folder / "out", frame, config_path
