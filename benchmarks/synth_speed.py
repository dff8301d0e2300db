"""`authorguard synth` end to end: documents a minute and peak memory against corpus size (run on demand; prints the
figures for docs/benchmarks.md).

The blog corpus's posts (bloggers as authors, age group as the label) written as JSONL, whole and repeated 2 and 4
times under new ids (the same bloggers writing more: the release counts at most k documents an author, so its memory
should not grow with the documents), each run as one `authorguard synth` process at ε = 4.

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/synth_speed.py [--repeats 1 2 4] [--folder /tmp/synth-speed]
        [--engine local|ray]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path


def write_corpus(path: Path, repeats: int) -> int:
    from authorguard.data.blogs import load_blogs

    corpus = load_blogs()
    ages = corpus.attributes["age_group"]
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        for copy in range(repeats):
            for i, (text, author) in enumerate(zip(corpus.texts, corpus.authors)):
                row = {"id": f"{copy}-{i}", "text": text, "author": author, "age": ages[i]}
                out.write(json.dumps(row) + "\n")
                written += 1
    return written


def run(path: Path, engine: str = "local") -> dict:
    """Wall seconds and peak resident memory (MiB) of one `authorguard synth` process on ``path`` (GNU time's)."""
    command = [
        sys.executable,
        "-m",
        "authorguard.cli.app",
        "synth",
        str(path),
        "-o",
        str(path.with_suffix(".out.jsonl")),
    ]
    command += ["--author-field", "author", "--label-field", "age", "--epsilon", "4", "--seed", "0"]
    if engine == "ray":  # a local 2-CPU Ray cluster started by the command (its start-up counted)
        command += ["--engine", "ray", "--workers", "2"]
    measured = path.with_suffix(".time")
    subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", str(measured), *command], check=True, capture_output=True)
    seconds, kib = measured.read_text(encoding="utf-8").split()[-2:]
    return {"seconds": float(seconds), "peak_mib": round(int(kib) / 1024)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/synth-speed"))
    parser.add_argument("--engine", choices=("local", "ray"), default="local")
    options = parser.parse_args()
    options.folder.mkdir(parents=True, exist_ok=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    for repeats in options.repeats:
        path = options.folder / f"blogs-x{repeats}.jsonl"
        documents = write_corpus(path, repeats)
        found = run(path, options.engine)
        rate = documents / found["seconds"] * 60
        print(
            json.dumps(
                {"engine": options.engine, "documents": documents, **found, "documents_per_minute": round(rate)}
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
