"""End-to-end speed of ``authorguard obfuscate --method bottleneck`` (issue 48's target: >= 100 output words/s on
48 blog paragraphs of 90 words, 2 cores, second run) or of any text method (``--method normalise``: issue 55's
target, >= 2,000 words/s with the fidelity field): the command as a user runs it, timed twice (the first run loads
the model and warms the caches; the second is the figure), output words counted, fidelity verdicts counted.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/bottleneck_throughput.py [--level content] [--method
bottleneck]
        AUTHORGUARD_DATA=../shared/data python benchmarks/bottleneck_throughput.py --method normalise --paragraphs 1000
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

import numpy as np


def paragraphs(count: int, words: int, seed: int = 0) -> list[str]:
    """``count`` blog paragraphs: the first ``words`` words of posts that have at least that many (seeded)."""
    from authorguard import registry

    blogs = registry.datasets.get("blogs")()
    rng = np.random.default_rng(seed)
    chosen = [i for i in rng.permutation(len(blogs)) if len(blogs.texts[i].split()) >= words][:count]
    return [" ".join(blogs.texts[i].split()[:words]) for i in chosen]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", default="bottleneck")
    parser.add_argument("--level", default=None, help="The bottleneck's level (default: the method's default).")
    parser.add_argument("--paragraphs", type=int, default=48)
    parser.add_argument("--words", type=int, default=90)
    args = parser.parse_args()
    texts = paragraphs(args.paragraphs, args.words)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        source = folder / "in.jsonl"
        source.write_text(
            "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
        )
        command = [
            sys.executable,
            "-m",
            "authorguard.cli.app",
            "obfuscate",
            str(source),
            "-o",
            str(folder / "out.jsonl"),
            "--method",
            args.method,
            "--seed",
            "0",
        ]
        if args.level:
            (folder / "params.toml").write_text(f'level = "{args.level}"\n', encoding="utf-8")
            command += ["--config", str(folder / "params.toml")]
        seconds = []
        for _ in range(2):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=os.environ.copy())
            seconds.append(time.perf_counter() - started)
        rows = [json.loads(line) for line in (folder / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    written = sum(len((r["text"] or "").split()) for r in rows)  # a withheld record has no text
    from authorguard.base import RECORD_STATUSES

    statuses = {s: sum(r["release_status"] == s for r in rows) for s in RECORD_STATUSES}
    from authorguard.metrics.fidelity import VERDICTS

    fidelity = {v: sum(r.get("fidelity") == v for r in rows) for v in (*VERDICTS, None)}
    print(
        f"{args.method}{' level ' + args.level if args.level else ''}: {len(texts)} paragraphs of {args.words} words; "
        f"{written} output words; first run {seconds[0]:.1f} s, second run {seconds[1]:.1f} s = "
        f"{written / seconds[1]:.1f} output words/s (whole command, model loading included); statuses {statuses}; "
        f"fidelity (meter) {fidelity}; "
        f"{os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
