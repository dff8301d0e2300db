"""Wall time and peak memory of the classical text benchmark (run on demand; the figures go to docs/benchmarks.md).

Runs ``authorguard experiment run CONFIG`` (default ``configs/text-benchmark.toml``: BAC-10 and AMT-10, every
baseline x four classical attackers x three threat models, utility both ways, content metrics, detector) from
scratch in a temporary folder, as a separate process, and reports its wall time, the peak resident memory of
its process tree (the joblib workers included), and where the time went (the cells' own seconds, per scenario
and method, summed over runs).

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/text_benchmark.py [--config configs/text-benchmark.toml]
        [--output DIR]   (DIR keeps the run, for `authorguard report`)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from process_memory import wait_sampling_memory

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", type=Path, default=ROOT / "configs" / "text-benchmark.toml")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        output = args.output or Path(scratch) / "run"
        command = ["authorguard", "experiment", "run", str(args.config), "-o", str(output), "--restart"]
        started = time.perf_counter()
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TRANSFORMERS_VERBOSITY": "error"},
        )
        peak_tree, peak_single = wait_sampling_memory(process, interval=0.5)
        seconds = time.perf_counter() - started
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): {process.stderr.read()[-2000:]}")
        from authorguard.experiments.runner import read_results

        frame = read_results(output)
    print(
        f"config {args.config.name}: {seconds / 60:.1f} min wall, {os.cpu_count()} CPUs; peak RSS {peak_tree:,.0f} MiB "
        f"(process tree), {peak_single:,.0f} MiB (largest process)"
    )
    cells = (
        frame.groupby(["view", "method", "params", "run"])["cell_seconds"]
        .first()
        .groupby(["view", "method", "params"])
        .sum()
    )
    print("cell seconds (summed over runs; cells run n_jobs at a time):")
    for (view, method, params), value in cells.items():
        print(f"  {view:>8} {method:>10} {params:<40} {value:7.0f} s")


if __name__ == "__main__":
    main()
