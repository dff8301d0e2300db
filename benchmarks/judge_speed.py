"""The whole fidelity meter's speed, with the learned judge and without it: words a second end to end on real
passage pairs (prints the figures for docs/benchmarks.md).

The 150 held-out passages of docs/results/faithful/heldout-4 (speeches, Federalist, AMT; 50-140 words) against the
bottleneck's and ``normalise``'s outputs of them (300 pairs), scored in one process after the meter is loaded (the
parser and the judge's first batch warm, as a long job runs); words are the inputs' words (a pair is as long as the
text it checks).

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/judge_speed.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "docs" / "results" / "faithful" / "heldout-4"


def pairs() -> tuple[list[str], list[str]]:
    passages = {
        r["item"]: r["input"] for r in map(json.loads, (SET / "passages.jsonl").read_text("utf-8").splitlines())
    }
    inputs, outputs = [], []
    for name in ("outputs-bottleneck.jsonl", "outputs-normalise.jsonl"):
        for row in map(json.loads, (SET / name).read_text("utf-8").splitlines()):
            if row.get("text"):
                inputs.append(passages[row["item"]])
                outputs.append(row["text"])
    return inputs, outputs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    from authorguard.metrics.fidelity import FidelityMeter

    inputs, outputs = pairs()
    words = sum(len(text.split()) for text in inputs)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; {len(inputs)} pairs"
    )
    for meter in ("rules", "judge"):
        scorer = FidelityMeter(meter=meter)
        scorer.score(inputs[:8], outputs[:8])  # loads the parser (and the judge)
        times = []
        for _ in range(options.repeats):
            started = time.perf_counter()
            scorer.score(inputs, outputs)
            times.append(time.perf_counter() - started)
        best = min(times)
        print(
            json.dumps(
                {
                    "meter": meter,
                    "pairs": len(inputs),
                    "input_words": words,
                    "seconds": round(best, 2),
                    "words_per_second": round(words / best),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
