"""Rewrite a scenario's test split with a text method in parts that survive a session: resumable, committed.

A slow rewriter (the bottleneck writes ~15-20 words/s of blog text on 2 cores) cannot finish BAC-10's 2,350 test
posts in one session. The parts file pins which posts go in which part (ids), so a part rewritten today and one
rewritten next session come from the same command; each part's output is ``authorguard obfuscate --seed SEED`` of
that part's posts (the same seed for every part: batch k of 64 posts within a part is re-seeded from (SEED, k), so a
post's randomness follows from its part and place in it), stored xz-compressed beside the parts file (written under
a temporary name, then renamed: an interrupted part is never taken for a finished one). A part whose output exists
is skipped.

Usage:
    AUTHORGUARD_DATA=../shared/data python scripts/benchmark/rewrite_parts.py \
        docs/results/attributor-gpu/bottleneck-test --method bottleneck --seed 0 [--stop-after-s 3600]
    python scripts/benchmark/rewrite_parts.py FOLDER --plan --scenario BAC-10 --first 494 --size 232
        (writes FOLDER/parts.json: the first N posts in split order as part 0, the rest in a seeded order in parts
        of SIZE; how the BAC-10 parts were cut)
"""

from __future__ import annotations

import argparse
import json
import lzma
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _test_posts(scenario: str) -> tuple[list[str], dict[str, str]]:
    """The scenario's test post ids in split order, and id -> text."""
    from authorguard.experiments.config import config_from_dict
    from authorguard.experiments.views import build_view

    view = build_view(config_from_dict({"scenarios": [scenario], "methods": [{"name": "original"}]}), scenario)
    ids, texts = [str(i) for i in view.corpus.ids], list(view.corpus.texts)
    test = [ids[i] for i in view.attacks[0].test]
    return test, {ids[i]: texts[i] for i in view.attacks[0].test}


def plan(folder: Path, scenario: str, first: int, size: int, seed: int) -> None:
    test, _ = _test_posts(scenario)
    rest = [test[i] for i in first + np.random.default_rng(seed).permutation(len(test) - first)]
    parts = [test[:first]] + [rest[k : k + size] for k in range(0, len(rest), size)]
    if (folder / "parts.json").exists():
        raise SystemExit(f"{folder / 'parts.json'} exists: its parts pin what was rewritten; remove it by hand first")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "parts.json").write_text(json.dumps({"scenario": scenario, "parts": parts}), encoding="utf-8")
    print(f"{folder / 'parts.json'}: {len(test)} test posts in {len(parts)} parts")


def rewrite(folder: Path, method: str, seed: int, stop_after_s: float | None) -> None:
    started = time.monotonic()
    spec = json.loads((folder / "parts.json").read_text(encoding="utf-8"))
    _, text_of = _test_posts(spec["scenario"])
    for k, ids in enumerate(spec["parts"]):
        out = folder / f"part-{k:02d}.jsonl.xz"
        if out.exists():
            continue
        if stop_after_s is not None and time.monotonic() - started > stop_after_s:
            print(f"stopped before part {k}: {stop_after_s:.0f} s spent")
            break
        with tempfile.TemporaryDirectory() as scratch:
            source, target = Path(scratch) / "in.jsonl", Path(scratch) / "out.jsonl"
            source.write_text("".join(json.dumps({"id": i, "text": text_of[i]}) + "\n" for i in ids), "utf-8")
            begun = time.monotonic()
            command = ["authorguard", "obfuscate", str(source), "-o", str(target), "--method", method]
            subprocess.run([*command, "--seed", str(seed), "--no-fidelity"], check=True)
            seconds = time.monotonic() - begun
            partial = out.with_name(out.name + ".partial")
            with lzma.open(partial, "wt", encoding="utf-8") as handle:
                handle.write(target.read_text(encoding="utf-8"))
            partial.replace(out)
        words = sum(len(text_of[i].split()) for i in ids)
        print(f"part {k}: {len(ids)} posts, {words} words in {seconds:.0f} s ({words / seconds:.1f} input words/s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--plan", action="store_true", help="write parts.json instead of rewriting")
    parser.add_argument("--scenario", default="BAC-10")
    parser.add_argument("--first", type=int, default=494, help="--plan: posts of part 0, in split order")
    parser.add_argument("--size", type=int, default=232, help="--plan: posts of each later part")
    parser.add_argument("--method", default="bottleneck")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stop-after-s", type=float, default=None, help="start no part after this many seconds")
    args = parser.parse_args(argv)
    if args.plan:
        plan(args.folder, args.scenario, args.first, args.size, args.seed)
    else:
        rewrite(args.folder, args.method, args.seed, args.stop_after_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
