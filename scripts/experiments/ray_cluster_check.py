"""Issue 67's cluster check: a config through a local Ray cluster of a head and one worker node (``ray start``),
the worker node killed (kill -9) while it runs a cell, the run finished on the head, and every cell compared with
``--engine local``; then the run's cells deleted in part and the same command resuming, each cell stored once.

Usage:  python scripts/experiments/ray_cluster_check.py CONFIG -o DIR [--port 6390]

Prints one JSON object: the cluster, the killed processes, whether Ray and local agree cell by cell, the cells
computed by each command.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# a throwaway cluster on one machine: Ray's token authentication off unless the caller set a mode
ENV = {**os.environ, "RAY_AUTH_MODE": os.environ.get("RAY_AUTH_MODE", "disabled"), "RAY_ENABLE_UV_RUN_RUNTIME_ENV": "0"}


def _ray(*arguments: str) -> None:
    subprocess.run(["ray", *arguments], check=True, capture_output=True, env=ENV)


def _worker_node_processes(port: int):
    import psutil

    raylets = [
        p
        for p in psutil.process_iter(["cmdline"])
        if any(f"--node_manager_port={port}" in part for part in (p.info["cmdline"] or []))
    ]
    return [q for r in raylets for q in [r, *r.children(recursive=True)]]


def _comparable(frame):
    columns = [c for c in frame.columns if c != "cell_seconds"]
    return frame[columns].sort_values(["view", "method", "run", "attacker", "threat_model"]).reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--port", type=int, default=6390)
    args = parser.parse_args()
    import pandas as pd

    from authorguard.experiments.config import load_config
    from authorguard.experiments.runner import plan_cells, read_results, run_experiment

    output = Path(args.output)
    config = load_config(args.config)
    local = run_experiment(config, output / "local")
    address = f"127.0.0.1:{args.port}"
    worker_port = args.port + 1
    _ray("start", "--head", f"--port={args.port}", "--num-cpus=1", "--include-dashboard=false")
    try:
        _ray("start", f"--address={address}", "--num-cpus=1", f"--node-manager-port={worker_port}")
        command = [sys.executable, "-m", "authorguard.cli.app", "experiment", "run", args.config]
        command += ["-o", str(output / "ray"), "--engine", "ray", "--address", address]
        run = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        killed: list[int] = []
        deadline = time.monotonic() + 600
        while not killed and run.poll() is None and time.monotonic() < deadline:
            processes = _worker_node_processes(worker_port)
            busy = [p for p in processes if " ".join(p.cmdline()).startswith("ray::experiment_job")]
            if busy and list((output / "ray" / "cells").glob("*.json")):
                for process in processes:
                    process.send_signal(signal.SIGKILL)
                killed = [p.pid for p in processes]
            time.sleep(0.05)
        _, stderr = run.communicate(timeout=1800)
        if run.returncode != 0:
            raise SystemExit(stderr.decode()[-3000:])
        first = json.loads((output / "ray" / "experiment.json").read_text())
        # resume: a third of the cells deleted, the same command computes exactly those
        cells = sorted((output / "ray" / "cells").glob("*.json"))
        for path in cells[::3]:
            path.unlink()
        subprocess.run(command, check=True, capture_output=True, env=ENV)
        second = json.loads((output / "ray" / "experiment.json").read_text())
    finally:
        _ray("stop", "--force")
    ray_frame = read_results(output / "ray")
    try:
        pd.testing.assert_frame_equal(_comparable(ray_frame), _comparable(local))
        equal = True
    except AssertionError:
        equal = False
    print(
        json.dumps(
            {
                "cluster": first["engine"],
                "worker_node_processes_killed": len(killed),
                "cells": len(plan_cells(config)),
                "first_run_cells_computed": first["cells_computed"],
                "resume_deleted": len(cells[::3]),
                "resume_cells_computed": second["cells_computed"],
                "rows_ray": len(ray_frame),
                "rows_local": len(local),
                "equal_to_local_cell_by_cell": equal,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
