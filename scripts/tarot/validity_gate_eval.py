"""Precision and recall of the rewrite-validity gate on hand-labelled policy outputs (docs/results/tarot.md).

The labelled file (``docs/results/tarot/validity-labels.jsonl``, made with ``scripts/tarot/rewrite_label_set.py`` and
labelled by the rules in docs/results/tarot.md#validity-gate) holds 100 BAC-10 test chunks x 4 policies. Chunks are
split by a seeded permutation: the first 50 are the development set the gate's thresholds were set on, the other
50 the held-out set. A rewrite counts as refused when the gate refuses it or, with ``--floor``, when its MiniLM
cosine to the input is below the floor (the utility floor best-of-k applies). Prints Markdown: precision and recall
of "invalid" with Wilson 95 % intervals, the share of valid rewrites kept, recall per label, and per policy the
labelled and the gated invalid rates.

A labelled file whose rows carry ``set`` ("development" / "held-out") says the split itself:
``docs/results/tarot/validity-labels-dpo10x.jsonl`` holds first samples of the 10x TAROT-DPO policy (chunks of the
287 of ``scripts/tarot/tarot_validity.py``; 60 drawn with seed 0, on which the ``invented`` threshold was chosen, then
40
others drawn with seed 1, labelled afterwards), labelled by the same rules; ``validity-labels-dpo10x-v2.jsonl``,
``-dpo10x-anchored.jsonl`` and ``-ppo10x.jsonl`` the first samples of the second 10x round's policies on the same 100
chunks (same sets), labelled without the gate's verdicts. ``validity-labels-selected-dpo.jsonl`` holds what the shipped
``tarot`` gives a user:
the rewrite best-of-4 keeps (one round) for 100 chunks drawn with seed 0 among those it keeps one for, of BAC-10 test
posts 0-399 (``scripts/tarot/tarot_validity.py --label-selected``), labelled by the stricter reading of *meaning*
written
down in docs/results/tarot.md (every output there passed the gate: read it with ``--no-split``).
``--no-split`` treats every labelled output as held out.

Usage:  python scripts/tarot/validity_gate_eval.py [--labels FILE] [--floor 0.5] [--no-split]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

LABELS = {
    "V": "valid",
    "E": "empty",
    "R": "refusal",
    "I": "instruction echoed",
    "M": "meta comment / assistant talk",
    "L": "loop",
    "T": "truncated",
    "C": "near-copy",
    "N": "length",
    "U": "meaning lost / unrelated",
    "D": "names, numbers dropped",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--labels", default="docs/results/tarot/validity-labels.jsonl")
    parser.add_argument("--floor", type=float, default=0.5, help="MiniLM-cosine floor (-1: the gate alone).")
    parser.add_argument("--no-split", action="store_true", help="Every output is held out (no development half).")
    args = parser.parse_args()
    import numpy as np

    from authorguard.neural.tarot.config import TAROT_PROMPT, RewardConfig
    from authorguard.neural.tarot.reward import ObfuscationReward
    from authorguard.text.validity import RewriteGate

    rows = [json.loads(line) for line in Path(args.labels).read_text(encoding="utf-8").splitlines()]
    utility = ObfuscationReward(RewardConfig(privacy=False, gate=False))(
        [r["original"] for r in rows], [r["rewrite"] for r in rows]
    ).utility
    gate = RewriteGate(instruction=TAROT_PROMPT)
    for row, cosine in zip(rows, utility):
        row["refused"] = (
            gate.problem(row["original"], row["rewrite"], row["truncated"]) is not None or cosine < args.floor
        )
        row["invalid"] = row["label"] != "V"
    items = sorted({r["item"] for r in rows})
    if args.no_split:
        development = set()
    elif all("set" in r for r in rows):  # the file says which outputs thresholds were chosen on
        development = {r["item"] for r in rows if r["set"] == "development"}
    else:
        development = set(
            np.asarray(items)[np.random.default_rng(0).permutation(len(items))[: len(items) // 2]].tolist()
        )
    print(f"utility floor: {args.floor}\n")
    print("| set | outputs | invalid (labels) | precision | recall | valid rewrites kept |\n|---|---|---|---|---|---|")
    for name, chosen in (
        ("development", [r for r in rows if r["item"] in development]),
        ("held-out", [r for r in rows if r["item"] not in development]),
    ):
        if not chosen:
            continue
        tp = sum(r["refused"] and r["invalid"] for r in chosen)
        refused = sum(r["refused"] for r in chosen)
        invalid = sum(r["invalid"] for r in chosen)
        kept = sum(not r["refused"] and not r["invalid"] for r in chosen)
        valid = len(chosen) - invalid
        print(
            f"| {name} | {len(chosen)} | {invalid} | {_share(tp, refused)} | {_share(tp, invalid)} | "
            f"{_share(kept, valid)} |"
        )
    held = [r for r in rows if r["item"] not in development]
    print("\nHeld-out recall per label:\n\n| label | outputs | refused |\n|---|---|---|")
    counts = Counter(r["label"] for r in held)
    for label in LABELS:
        if counts[label] and label != "V":
            print(f"| {LABELS[label]} | {counts[label]} | {sum(r['refused'] for r in held if r['label'] == label)} |")
    print(
        f"\nAll {len(items)} chunks, per policy:\n\n| policy | invalid (labels) | refused by the gate | invalid and "
        "passed |\n|---|---|---|---|"
    )
    for policy in dict.fromkeys(r["policy"] for r in rows):
        mine = [r for r in rows if r["policy"] == policy]
        print(
            f"| {policy} | {_share(sum(r['invalid'] for r in mine), len(mine))} | {sum(r['refused'] for r in mine)} | "
            f"{sum(r['invalid'] and not r['refused'] for r in mine)} |"
        )


def _share(k: int, n: int) -> str:
    """k/n with its Wilson 95 % interval (exact two-sided 95 % z, as scipy's ``binomtest(...).proportion_ci`` used)."""
    from statistics import NormalDist

    from authorguard.metrics.statistics import wilson_interval

    if n == 0:
        return "-"
    low, high = wilson_interval(k / n, n, z=NormalDist().inv_cdf(0.975))
    return f"{k / n:.2f} [{low:.2f}, {high:.2f}] ({k}/{n})"


if __name__ == "__main__":
    main()
