"""The blind file of the judge's frozen pairs, and the agreement of its labels.

    python scripts/judge/blind.py make docs/results/judge/heldout          # pairs-blind.jsonl + pairs-key.jsonl
    python scripts/judge/blind.py agree docs/results/judge/heldout         # two annotators' labels ->
    pairs-labels.jsonl

``make``: the written pairs (``pairs.jsonl``) shuffled (seed 8102) under new ids, input and output only — an
annotator sees neither the rewrite asked for nor any meter; the key (blind id -> item, rewrite) beside it.
``agree``: ``labels-a.jsonl`` and ``labels-b.jsonl`` (``{"id", "label"}``, one of faithful, generalised, partial,
changed) compared; where they differ, ``labels-c.jsonl`` (a third annotator on those ids) decides; the result is
``pairs-labels.jsonl`` (``{"id", "item", "label", "a", "b"[, "c"]}``) and the agreement printed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def make(folder: Path) -> None:
    pairs = {row["item"]: row for row in _read(folder / "pairs.jsonl")}
    sources = {row["item"]: row for row in _read(folder / "pair-sources.jsonl")}
    if set(pairs) != set(sources):
        raise SystemExit(f"pairs.jsonl has {len(pairs)} items, pair-sources.jsonl {len(sources)}")
    order = np.random.default_rng(8102).permutation(sorted(pairs))
    blind, key = [], []
    for position, item in enumerate(order):
        identity = f"j{position:03d}"
        blind.append({"id": identity, "input": pairs[int(item)]["input"], "output": pairs[int(item)]["output"]})
        key.append({"id": identity, "item": int(item), "rewrite": sources[int(item)]["rewrite"]})
    _write(folder / "pairs-blind.jsonl", blind)
    _write(folder / "pairs-key.jsonl", key)
    print(f"{len(blind)} blind pairs -> {folder / 'pairs-blind.jsonl'}")


def agree(folder: Path) -> None:
    first = {r["id"]: r["label"] for r in _read(folder / "labels-a.jsonl")}
    second = {r["id"]: r["label"] for r in _read(folder / "labels-b.jsonl")}
    third_path = folder / "labels-c.jsonl"
    third = {r["id"]: r["label"] for r in _read(third_path)} if third_path.exists() else {}
    key = {r["id"]: r for r in _read(folder / "pairs-key.jsonl")}
    if set(first) != set(key) or set(second) != set(key):
        raise SystemExit("each annotator must label every blind id")
    rows, undecided = [], []
    for identity in sorted(key):
        row = {"id": identity, "item": key[identity]["item"], "a": first[identity], "b": second[identity]}
        if first[identity] == second[identity]:
            row["label"] = first[identity]
        elif identity in third:
            row["c"] = third[identity]
            votes = [first[identity], second[identity], third[identity]]
            row["label"] = max(set(votes), key=votes.count) if len(set(votes)) < 3 else third[identity]
        else:
            undecided.append(identity)
            continue
        rows.append(row)
    agreed = sum(first[i] == second[i] for i in key) / len(key)
    print(f"annotators a and b agree on {agreed:.3f} of {len(key)}; {len(undecided)} need a third: {undecided}")
    if not undecided:
        _write(folder / "pairs-labels.jsonl", rows)
        counts = {label: sum(r["label"] == label for r in rows) for label in sorted({r["label"] for r in rows})}
        print(f"pairs-labels.jsonl: {counts}")


if __name__ == "__main__":
    {"make": make, "agree": agree}[sys.argv[1]](Path(sys.argv[2]))
