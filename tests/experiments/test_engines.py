"""The Ray engine against the local one: the same results cell by cell, a killed worker's cell computed again and
stored once, and a killed run resumed by the same command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

from authorguard.experiments.config import load_config  # noqa: E402
from authorguard.experiments.runner import plan_cells, read_results, run_experiment  # noqa: E402

CONFIG = """
name = "tiny-engines"
scenarios = ["AMT-10"]
attackers = ["char-ngrams", "function-words"]
classifiers = ["svm"]
runs = 2
n_jobs = 2
seed = 5
content_metrics = false
detector = false
fidelity = false

[[methods]]
name = "original"

[[methods]]
name = "dropout"
params = { rate = 0.5 }

[[methods]]
name = "normalise"
"""


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("engines") / "tiny.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def local_frame(config_path, tmp_path_factory):
    return run_experiment(load_config(config_path), tmp_path_factory.mktemp("local") / "out")


def _comparable(frame: pd.DataFrame) -> pd.DataFrame:
    columns = [c for c in frame.columns if c != "cell_seconds"]  # wall time differs, nothing else may
    return frame[columns].sort_values(["view", "method", "run", "attacker", "threat_model"]).reset_index(drop=True)


def _command(config_path, output) -> list[str]:
    return [sys.executable, "-m", "authorguard.cli.app", "experiment", "run", str(config_path), "-o", str(output)]


def test_ray_equals_local_cell_by_cell_and_records_its_cluster(config_path, local_frame, tmp_path):
    frame = run_experiment(load_config(config_path), tmp_path / "ray", engine="ray")
    pd.testing.assert_frame_equal(_comparable(frame), _comparable(local_frame))
    engine = json.loads((tmp_path / "ray" / "experiment.json").read_text())["engine"]
    assert engine["name"] == "ray" and engine["address"] == "local" and engine["resources"]["CPU"] == 2.0
    cells = sorted(p.stem for p in (tmp_path / "ray" / "cells").glob("*.json"))
    assert cells == sorted(c.key for c in plan_cells(load_config(config_path)))


def _running_jobs() -> list:
    """Ray worker processes running one of the experiment's jobs now (their title names the task)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if line.startswith("ray::experiment_job"):
            found.append(process)
    return found


def test_a_worker_killed_mid_cell_is_retried_and_every_cell_is_stored_once(config_path, local_frame, tmp_path):
    run = subprocess.Popen([*_command(config_path, tmp_path / "out"), "--engine", "ray"], stderr=subprocess.PIPE)
    killed = None
    deadline = time.monotonic() + 240
    while killed is None and run.poll() is None and time.monotonic() < deadline:
        jobs = _running_jobs()
        if jobs and list((tmp_path / "out" / "cells").glob("*.json")):  # past the preparations: a cell is running
            jobs[0].send_signal(signal.SIGKILL)
            killed = jobs[0].pid
        time.sleep(0.05)
    _, stderr = run.communicate(timeout=600)
    assert killed is not None, "no cell was seen running"
    assert run.returncode == 0, stderr.decode()[-2000:]
    pd.testing.assert_frame_equal(_comparable(read_results(tmp_path / "out")), _comparable(local_frame))
    assert len(list((tmp_path / "out" / "cells").glob("*.json"))) == len(plan_cells(load_config(config_path)))


def test_a_killed_run_resumes_with_the_same_command_and_computes_only_what_is_missing(
    config_path, local_frame, tmp_path
):
    command = [*_command(config_path, tmp_path / "out"), "--engine", "ray"]
    run = subprocess.Popen(command, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    while not list((tmp_path / "out" / "cells").glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)  # the driver and its local cluster, as a machine that goes away
    run.wait()
    stored = len(list((tmp_path / "out" / "cells").glob("*.json")))
    total = len(plan_cells(load_config(config_path)))
    assert 0 < stored < total
    subprocess.run(command, check=True, capture_output=True)
    pd.testing.assert_frame_equal(_comparable(read_results(tmp_path / "out")), _comparable(local_frame))
    recorded = json.loads((tmp_path / "out" / "experiment.json").read_text())
    assert recorded["cells_computed"] == total - stored and recorded["cells"] == total


def test_an_unknown_engine_and_an_address_without_ray_are_refused(config_path, tmp_path):
    from authorguard.exceptions import InputError

    with pytest.raises(InputError, match="unknown engine 'spark'"):
        run_experiment(load_config(config_path), tmp_path, engine="spark")
    with pytest.raises(InputError, match="--address applies to --engine ray"):
        run_experiment(load_config(config_path), tmp_path, address="10.0.0.1:6379")
