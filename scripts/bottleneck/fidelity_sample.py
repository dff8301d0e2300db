"""Fidelity by hand of the style bottleneck (issue 48): draw posts, rewrite them, and build the blind label set.

    python scripts/bottleneck/fidelity_sample.py draw docs/results/bottleneck/fidelity-sample.jsonl [--level content]
    python scripts/bottleneck/fidelity_sample.py blind docs/results/bottleneck/fidelity-sample.jsonl \
        docs/results/tarot/validity-labels-selected-dpo.jsonl docs/results/bottleneck/fidelity-blind.jsonl
    python scripts/bottleneck/fidelity_sample.py agree docs/results/bottleneck/fidelity-labels-author.jsonl \
        docs/results/bottleneck/fidelity-labels-helper.jsonl docs/results/bottleneck/fidelity-blind-key.jsonl

``draw``: 100 BAC-10 test posts of 20-150 words (seed 0; the split of the benchmark, seed 0), rewritten by
``bottleneck`` (seed 0, its defaults); one row per post with its status. ``blind``: those pairs and the 100 labelled
``tarot`` rewrites shuffled together (seed 0) with neither method nor label: ``{"item", "input", "output"}``, and a
key file naming each item's method. ``agree``: the share of items two label files agree on and Cohen's kappa, per
method (labels: ``faithful`` / ``partial`` / ``changed``).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np

LABELS = ("faithful", "partial", "changed")


def draw(output: Path, level: str, count: int = 100) -> None:
    from authorguard import registry
    from authorguard.data.splits import SCENARIOS

    corpus = SCENARIOS["BAC-10"].selection.select(registry.datasets.get("blogs")())
    pool = [
        i
        for i, (text, split) in enumerate(zip(corpus.texts, corpus.splits))
        if split == "test" and 20 <= len(text.split()) <= 150
    ]
    chosen = sorted(np.random.default_rng(0).choice(pool, count, replace=False).tolist())
    texts = [corpus.texts[i] for i in chosen]
    method = registry.methods.get("bottleneck")(level=level, random_state=0).fit()
    outputs = method.obfuscate(texts)
    statuses = method.record_statuses(texts, outputs)
    rows = [
        {
            "item": k,
            "post": int(i),
            "level": level,
            "input": t,
            "output": o,
            "status": s["status"],
            "reason": s["reason"],
        }
        for k, (i, t, o, s) in enumerate(zip(chosen, texts, outputs, statuses))
    ]
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    report = method.release_report()
    print({k: report.get(k) for k in ("chunks", "chunks_fallback", "refused", "records_flagged", "tokens_per_second")})


def blind(sample: Path, tarot: Path, output: Path) -> None:
    ours = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines()]
    theirs = [json.loads(line) for line in tarot.read_text(encoding="utf-8").splitlines()]
    pairs = [("bottleneck", r["item"], r["input"], r["output"]) for r in ours] + [
        ("tarot", r["item"], r["original"], r["rewrite"]) for r in theirs
    ]
    order = np.random.default_rng(0).permutation(len(pairs))
    rows = [{"item": k, "input": pairs[j][2], "output": pairs[j][3]} for k, j in enumerate(order)]
    key = [{"item": k, "method": pairs[j][0], "source_item": pairs[j][1]} for k, j in enumerate(order)]
    output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    output.with_name(output.stem + "-key.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in key), encoding="utf-8"
    )
    print(f"{len(rows)} blind items -> {output}")


def kappa(a: list, b: list) -> float:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[label] * cb[label] for label in LABELS) / n**2
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def agree(author: Path, helper: Path, key: Path) -> None:
    """``author``: labels of the bottleneck sample by item of the sample; ``helper``: labels of the blind set."""
    mine = {r["item"]: r["label"] for r in map(json.loads, author.read_text(encoding="utf-8").splitlines())}
    blind_labels = {r["item"]: r["label"] for r in map(json.loads, helper.read_text(encoding="utf-8").splitlines())}
    keys = [json.loads(line) for line in key.read_text(encoding="utf-8").splitlines()]
    for method in ("bottleneck", "tarot"):
        theirs = {k["source_item"]: blind_labels[k["item"]] for k in keys if k["method"] == method}
        counts = Counter(theirs.values())
        print(f"{method}: helper {dict(counts)} of {len(theirs)}")
    helper_bottleneck = {k["source_item"]: blind_labels[k["item"]] for k in keys if k["method"] == "bottleneck"}
    items = sorted(set(mine) & set(helper_bottleneck))
    a, b = [mine[i] for i in items], [helper_bottleneck[i] for i in items]
    print(
        f"bottleneck: author {dict(Counter(a))}; agreement {sum(x == y for x, y in zip(a, b))}/{len(items)}, "
        f"Cohen's kappa {kappa(a, b):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw")
    d.add_argument("output", type=Path)
    d.add_argument("--level", default="content")
    b = sub.add_parser("blind")
    b.add_argument("sample", type=Path)
    b.add_argument("tarot", type=Path)
    b.add_argument("output", type=Path)
    a = sub.add_parser("agree")
    a.add_argument("author", type=Path)
    a.add_argument("helper", type=Path)
    a.add_argument("key", type=Path)
    args = parser.parse_args()
    if args.command == "draw":
        draw(args.output, args.level)
    elif args.command == "blind":
        blind(args.sample, args.tarot, args.output)
    else:
        agree(args.author, args.helper, args.key)


if __name__ == "__main__":
    main()
