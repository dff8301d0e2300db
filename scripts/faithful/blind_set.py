"""The blind label set of issue 55: ``normalise`` and ``synonyms`` outputs of the same 100 BAC-10 test posts,
shuffled, no method named.

    python scripts/faithful/blind_set.py docs/results/faithful/blind.jsonl
    python scripts/faithful/blind_set.py docs/results/faithful/blind-2.jsonl --beside bottleneck --seed 1

The inputs are the 100 posts of docs/results/bottleneck/fidelity-sample.jsonl (BAC-10 test posts of 20-150 words,
drawn with seed 0), so the labels sit beside the bottleneck's and TAROT's. ``synonyms`` at its defaults, seed 0.
Writes ``blind.jsonl`` (``{"item", "input", "output"}``, shuffled with seed 0) and ``blind-key.jsonl`` (each item's
method and source item). The labels go in ``blind-labels.jsonl`` (``{"item", "label", "note"}``). ``--beside
bottleneck`` shuffles ``normalise`` with the bottleneck outputs of the sample file instead of ``synonyms`` (the
second set, after the review's fixes to the rules).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("output", type=Path)
    parser.add_argument("--sample", type=Path, default=Path("docs/results/bottleneck/fidelity-sample.jsonl"))
    parser.add_argument("--beside", choices=("synonyms", "bottleneck"), default="synonyms")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from authorguard import registry

    sample = [json.loads(line) for line in args.sample.read_text(encoding="utf-8").splitlines()]
    texts = [row["input"] for row in sample]
    pairs = []
    methods = [("normalise", registry.methods.get("normalise")())]
    if args.beside == "synonyms":
        methods.append(("synonyms", registry.methods.get("synonyms")(random_state=0)))
    else:
        pairs += [("bottleneck", row["item"], row["input"], row["output"]) for row in sample if row["output"]]
    for name, method in methods:
        outputs = method.fit().obfuscate(texts)
        pairs += [(name, row["item"], row["input"], output) for row, output in zip(sample, outputs)]
    order = np.random.default_rng(args.seed).permutation(len(pairs))
    rows = [{"item": k, "input": pairs[j][2], "output": pairs[j][3]} for k, j in enumerate(order)]
    key = [{"item": k, "method": pairs[j][0], "source_item": pairs[j][1]} for k, j in enumerate(order)]
    args.output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    args.output.with_name(args.output.stem + "-key.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in key), encoding="utf-8"
    )
    print(f"{len(rows)} blind items -> {args.output}")


if __name__ == "__main__":
    main()
