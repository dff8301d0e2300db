"""The README's use-case commands as written, on a small real input: wall time and exit status of each (run on
demand; prints a Markdown table for docs/benchmarks.md).

The input is 120 real blog posts of 50-400 words from the blog sample (``../shared/data/blogs``), written as
``posts.jsonl`` (id, author, topic, text), and, for ``anonymize``, the same file in a folder. Each command runs in
a fresh process, in a scratch folder, one after the other (start-up included):

- ``authorguard syntf posts.jsonl -o released.jsonl --vocabulary embeddings``
- ``authorguard obfuscate posts.jsonl -o rewritten.jsonl --method synonyms`` (and ``--method tarot`` on the
  first ``--lm-posts`` posts, the LM methods being ~100x slower on a CPU)
- ``authorguard anonymize --method syntf archive/ released/``
- ``authorguard assess posts.jsonl --author-field author --label-field topic -o audit/ --budget-minutes B``
- ``authorguard methods``, ``authorguard demo``
- ``authorguard experiment run configs/text-benchmark.toml -o tb`` (``--skip experiment`` where every extra is
  installed: it then runs the whole benchmark)

Usage:  AUTHORGUARD_DATA=../shared/data python benchmarks/readme_commands.py [--work DIR] [--lm-posts 10]
        [--budget-minutes 3] [--skip assess tarot]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def write_posts(folder: Path, count: int = 120) -> Path:
    """``count`` blog posts of 50-400 words (the blog sample's first such posts), as JSONL."""
    source = Path(os.environ.get("AUTHORGUARD_DATA", "../shared/data")) / "blogs" / "blogs_sample.jsonl.gz"
    rows = []
    with gzip.open(source, "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if 50 < len(row["text"].split()) < 400:
                rows.append(
                    {"id": f"p{len(rows)}", "author": str(row["id"]), "topic": row["topic"], "text": row["text"]}
                )
                if len(rows) == count:
                    break
    path = folder / "posts.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def timed(command: list[str], folder: Path) -> tuple[float, int, str]:
    environment = dict(os.environ)
    if environment.get("AUTHORGUARD_DATA"):  # the commands run in the scratch folder
        environment["AUTHORGUARD_DATA"] = str(Path(environment["AUTHORGUARD_DATA"]).resolve())
    started = time.perf_counter()
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=environment)
    last = (done.stderr.strip().splitlines() or done.stdout.strip().splitlines() or [""])[-1]
    return time.perf_counter() - started, done.returncode, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", default="runs/readme-commands")
    parser.add_argument("--lm-posts", type=int, default=10)
    parser.add_argument("--budget-minutes", type=float, default=3.0)
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args()
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    (work / "archive").mkdir(parents=True)
    posts = write_posts(work)
    shutil.copy(posts, work / "archive" / "posts.jsonl")
    lm = work / "posts-lm.jsonl"
    lm.write_text(
        "".join(posts.read_text(encoding="utf-8").splitlines(keepends=True)[: args.lm_posts]), encoding="utf-8"
    )
    commands = {
        "methods": ["authorguard", "methods"],
        "syntf": ["authorguard", "syntf", "posts.jsonl", "-o", "released.jsonl", "--vocabulary", "embeddings"],
        "synonyms": ["authorguard", "obfuscate", "posts.jsonl", "-o", "rewritten.jsonl", "--method", "synonyms"],
        "tarot": ["authorguard", "obfuscate", "posts-lm.jsonl", "-o", "rewritten-tarot.jsonl", "--method", "tarot"],
        "anonymize": ["authorguard", "anonymize", "--method", "syntf", "archive", "released"],
        "assess": [
            "authorguard",
            "assess",
            "posts.jsonl",
            "--author-field",
            "author",
            "--label-field",
            "topic",
            "-o",
            "audit",
            "--budget-minutes",
            str(args.budget_minutes),
        ],
        "demo": ["authorguard", "demo"],
        # the benchmark's README command: hours with every extra; without them it must stop at once, naming them
        "experiment": ["authorguard", "experiment", "run", str(REPO / "configs" / "text-benchmark.toml"), "-o", "tb"],
    }
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs; input: 120 blog posts ({posts.stat().st_size:,} bytes)"
    )
    print("| command | records | wall s | exit | last line |")
    print("| --- | --- | --- | --- | --- |")
    for name, command in commands.items():
        if name in args.skip:
            continue
        seconds, status, last = timed(command, work)
        records = args.lm_posts if name == "tarot" else (0 if name in ("methods", "demo") else 120)
        print(f"| `{' '.join(command)}` | {records or '-'} | {seconds:.1f} | {status} | {last[:110]} |", flush=True)


if __name__ == "__main__":
    main()
