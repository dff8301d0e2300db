"""The blind-label figures of ``generalise`` on its frozen held-out set (issue 66), from the committed outputs and
labels, with the meter's verdicts beside them.

    python scripts/generalise/heldout_summary.py [--set docs/results/generalise/heldout] [-o …/summary.json]

Per level (``outputs-*.jsonl``): the four-way blind labels (``blind/labels-*.jsonl`` through ``blind/key.jsonl``,
read with ``reading.md``), the share faithful or generalised, the share of words kept as written (the output's
words found in order in ``normalise``'s text of the input), the meter's verdicts now, and how often it calls an
output the labels call partial or changed ``faithful`` or ``generalised``.
"""

from __future__ import annotations

import argparse
import difflib
import json
from collections import Counter
from pathlib import Path


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=Path("docs/results/generalise/heldout"))
    parser.add_argument("-o", "--output", type=Path, default=None)
    args = parser.parse_args()
    from authorguard.metrics.fidelity import FidelityMeter
    from authorguard.text.normalise import normalise

    passages = {p["item"]: p["input"] for p in _rows(args.set / "passages.jsonl")}
    key = {r["id"]: r for r in _rows(args.set / "blind" / "key.jsonl")}
    labels: dict[tuple[int, str], str] = {}
    for path in sorted((args.set / "blind").glob("labels-*.jsonl")):
        for row in _rows(path):
            labels[(key[row["id"]]["item"], key[row["id"]]["method"])] = row["label"]
    meter = FidelityMeter()
    summary = {}
    for path in sorted(args.set.glob("outputs-*.jsonl")):
        rows = _rows(path)
        method = rows[0]["method"]
        sources = [normalise(passages[r["item"]]) for r in rows]
        kept = total = 0
        for source, row in zip(sources, rows):
            a, b = source.split(), (row["text"] or "").split()
            kept += sum(
                block.size for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
            )
            total += len(a)
        verdicts = [s.verdict for s in meter.score([passages[r["item"]] for r in rows], [r["text"] for r in rows])]
        read = [labels.get((r["item"], method)) for r in rows]
        counts = Counter(label for label in read if label)
        damaged = [v for v, label in zip(verdicts, read) if label in ("partial", "changed")]
        summary[method] = {
            "passages": len(rows),
            "blind labels": dict(counts),
            "faithful or generalised by blind labels": round(
                (counts["faithful"] + counts["generalised"]) / max(sum(counts.values()), 1), 3
            ),
            "words kept as written": round(kept / max(total, 1), 3),
            "meter now": dict(Counter(verdicts)),
            "meter calls damaged outputs faithful or "
            "generalised": f"{sum(v in ('faithful', 'generalised') for v in damaged)} of {len(damaged)}",
        }
        print(method, json.dumps(summary[method]))
    if args.output:
        args.output.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
