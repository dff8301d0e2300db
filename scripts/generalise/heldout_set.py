"""Freeze the held-out set that ``generalise``'s blind labels are read on (issue 66), before its levels are tuned.

    python scripts/generalise/heldout_set.py docs/results/generalise/heldout
    python scripts/generalise/heldout_set.py docs/results/generalise/heldout-2 --seed 6602 \
        --exclude docs/results/generalise/heldout

150 BAC-10 test posts (seed 66), each cut to its first whole sentences of at most 150 words, none among the
posts the rules were developed on (the blog sample's first 3,000 posts and ``benchmarks/bottleneck_throughput.py``'s
paragraphs) nor inside a set given to ``--exclude`` (the second, frozen after the first had been read, for the next
design). Writes ``passages.jsonl`` rows ``{"item", "author", "input"}``. Never tune on it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _cut(text: str, words: int) -> str:
    out: list[str] = []
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        if out and len(" ".join([*out, sentence]).split()) > words:
            break
        out.append(sentence)
    return " ".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path)
    parser.add_argument("--seed", type=int, default=66)
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--exclude", type=Path, action="append", default=[])
    args = parser.parse_args()
    from authorguard import registry
    from authorguard.data.splits import SCENARIOS

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bottleneck_throughput import paragraphs

    blogs = registry.datasets.get("blogs")()
    developed = set(blogs.texts[:3000]) | set(paragraphs(1000, 90))
    read = {
        json.loads(line)["input"]
        for folder in args.exclude
        for line in (folder / "passages.jsonl").read_text(encoding="utf-8").splitlines()
    }
    corpus = SCENARIOS["BAC-10"].selection.select(blogs)
    pool = [
        i
        for i, (text, split) in enumerate(zip(corpus.texts, corpus.splits))
        if split == "test" and text not in developed and len(text.split()) >= 40 and _cut(text, 150) not in read
    ]
    chosen = sorted(np.random.default_rng(args.seed).choice(pool, args.count, replace=False).tolist())
    rows = [
        {"item": n, "author": str(corpus.authors[i]), "input": _cut(corpus.texts[i], 150)} for n, i in enumerate(chosen)
    ]
    args.output.mkdir(parents=True, exist_ok=True)
    (args.output / "passages.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    print(f"{len(rows)} passages of {len({r['author'] for r in rows})} bloggers -> {args.output}")


if __name__ == "__main__":
    main()
