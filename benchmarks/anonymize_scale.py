"""Batch anonymisation throughput and memory: SynTF over 20 Newsgroups replicated (run on demand).

For each configuration, runs ``authorguard anonymize`` as a separate process on the same input and reports
records/s (wall time of the whole command: start-up, method loading, exact loss, all shards) and the peak
resident memory of the command's whole process tree (sampled every 0.1 s from /proc; for Ray this includes
the raylet, GCS and worker processes the command starts). The local engine also runs on a 1x input: equal
peaks at 1x and 10x show that memory does not grow with the input.

The local engine is one process whose kernels use every core; ``--local-threads 1 2 4 8 16`` runs it on the x10
input with that many kernel and BLAS threads (NUMBA_NUM_THREADS, OPENBLAS_NUM_THREADS), the curve to set beside
Ray's ``--workers``.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/anonymize_scale.py [--replicas 10] [--workers 1 2]
        [--local-threads 1 2 4 8 16]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from process_memory import wait_sampling_memory


def write_input(path: Path, replicas: int) -> int:
    from authorguard.data.newsgroups import load_20newsgroups

    corpus = load_20newsgroups()
    with open(path, "w", encoding="utf-8") as handle:
        for replica in range(replicas):
            for identifier, text in zip(corpus.ids, corpus.texts):
                handle.write(json.dumps({"id": f"{replica}:{identifier}", "text": text}) + "\n")
    return replicas * len(corpus)


def measure(command: list[str], threads: int | None = None) -> dict:
    environment = dict(os.environ)
    if threads:
        environment.update(NUMBA_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
    peak_tree, peak_single = wait_sampling_memory(process)
    seconds = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with status {process.returncode}")
    summary = json.loads(process.stdout.read())
    return {
        "seconds": seconds,
        "records": summary["records_out"],
        "records_per_s": summary["records_out"] / seconds,
        "peak_rss_tree_mib": peak_tree,
        "peak_rss_largest_process_mib": peak_single,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=10)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--shard-size", type=int, default=10_000)
    parser.add_argument("--skip-local", action="store_true")
    parser.add_argument(
        "--local-threads", type=int, nargs="+", default=[], help="local engine on the xN input with these thread counts"
    )
    args = parser.parse_args()
    from syntf_speed import machine

    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        inputs = {1: scratch / "news-x1.jsonl", args.replicas: scratch / f"news-x{args.replicas}.jsonl"}
        for replicas, path in inputs.items():
            print(f"input x{replicas}: {write_input(path, replicas)} records, {path.stat().st_size / 2**20:.0f} MiB")
        base = [
            sys.executable,
            "-m",
            "authorguard.cli.app",
            "anonymize",
            "--method",
            "syntf",
            "--seed",
            "0",
            "--shard-size",
            str(args.shard_size),
            "--json",
        ]
        # (engine, Ray workers, replicas, kernel threads of the local engine or None for all cores)
        runs = [] if args.skip_local else [("local", 1, 1, None), ("local", 1, args.replicas, None)]
        runs += [("local", 1, args.replicas, threads) for threads in args.local_threads]
        runs += [("ray", workers, args.replicas, None) for workers in args.workers]
        for number, (engine, workers, replicas, threads) in enumerate(runs):
            output = scratch / f"out-{number}"
            command = [*base, str(inputs[replicas]), str(output), "--engine", engine]
            if engine == "ray":
                command += ["--workers", str(workers)]
            result = measure(command, threads)
            print(
                json.dumps(
                    {
                        "engine": engine,
                        "workers": workers,
                        "threads": threads or "all",
                        "replicas": replicas,
                        **{k: round(v, 1) if isinstance(v, float) else v for k, v in result.items()},
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
