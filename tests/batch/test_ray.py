"""The Ray Data engine on a local 2-CPU cluster started by the command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("ray.data")

from authorguard.batch.config import AnonymizeConfig, load_method_params
from authorguard.batch.runner import read_output, run_anonymize


def test_ray_and_local_engines_release_identical_records(tmp_path, jsonl_input, messages, method_config):
    local = run_anonymize(
        AnonymizeConfig(
            method="syntf",
            input=str(jsonl_input),
            output=str(tmp_path / "local"),
            method_params=load_method_params(method_config),
            seed=11,
            shard_size=400,
        )
    )
    command = [
        sys.executable,
        "-m",
        "authorguard.cli.app",
        "anonymize",
        str(jsonl_input),
        str(tmp_path / "ray"),
        "--method",
        "syntf",
        "--config",
        str(method_config),
        "--seed",
        "11",
        "--engine",
        "ray",
        "--workers",
        "2",
        "--shard-size",
        "60",
        "--batch-size",
        "7",
        "--json",
    ]
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    summary = json.loads(result.stdout)
    assert summary == {
        **summary,
        "status": "complete",
        "records_in": len(messages),
        "records_out": len(messages),
        "records_error": 0,
        "shards": 7,
        "releases_per_record": 1,
    }
    assert read_output(tmp_path / "ray") == read_output(tmp_path / "local")
    manifest = json.loads((tmp_path / "ray" / "manifest.json").read_text())
    assert manifest["releases"][0]["engine"] == "ray" and local["records_out"] == len(messages)
