"""The held-out fidelity figures of issue 65, from the committed outputs and blind labels.

    python scripts/faithful/heldout_summary.py [-o docs/results/faithful/heldout/summary.json]
    python scripts/faithful/heldout_summary.py --set docs/results/faithful/heldout-2 -o
    docs/results/faithful/heldout-2/summary.json

Per method (``outputs-*.jsonl``): the blind labels (``blind/labels-*.jsonl`` joined through ``blind/key.jsonl``),
the automatic checks against the normalised input — passages with a figure whose unit, currency or scale was lost,
passages that quote and whose quotations are not all kept verbatim with their marks, loops — the record statuses
(``normalised``: chunks released as ``normalise``'s text), and the fidelity meter as committed: its verdicts and,
where blind labels exist, how often it calls a damaged output (labelled partial or changed) ``faithful``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

HELD_OUT = Path("docs/results/faithful/heldout")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, default=None)
    parser.add_argument("--set", type=Path, default=HELD_OUT, help="the frozen set's folder")
    args = parser.parse_args()
    held_out = args.set
    from authorguard.metrics.fidelity import FidelityMeter
    from authorguard.metrics.fidelity.atoms import has_figures, loop_findings, quotation_findings, unit_findings
    from authorguard.text.atoms import quotations
    from authorguard.text.normalise import normalise

    passages = {p["item"]: p["input"] for p in _rows(held_out / "passages.jsonl")}
    labels: dict[tuple[int, str], str] = {}
    blind = held_out / "blind"
    if (blind / "key.jsonl").exists():
        key = {k["id"]: k for k in _rows(blind / "key.jsonl")}
        for path in sorted(blind.glob("labels-*.jsonl")):
            for row in _rows(path):
                labels[(key[row["id"]]["item"], key[row["id"]]["method"])] = row["label"]
    summary = {}
    meter = FidelityMeter()
    for path in sorted(held_out.glob("outputs-*.jsonl")):
        rows = _rows(path)
        method = rows[0]["method"]
        sources = [normalise(passages[r["item"]]) for r in rows]
        outputs = [r["text"] or "" for r in rows]
        scores = meter.score([passages[r["item"]] for r in rows], [r["text"] for r in rows])
        quoting = [i for i, s in enumerate(sources) if quotations(s)]
        figures = {
            "passages": len(rows),
            "statuses": dict(Counter(r["status"] for r in rows)),
            "units lost (passages)": sum(bool(unit_findings(s, o)) for s, o in zip(sources, outputs) if o),
            "passages that quote": len(quoting),
            "quotations not kept verbatim (passages)": sum(
                bool(quotation_findings(sources[i], outputs[i])) for i in quoting if outputs[i]
            ),
            "loops (passages)": sum(bool(loop_findings(s, o)) for s, o in zip(sources, outputs) if o),
            "passages with a figure (a unit, currency, scale or decade)": sum(has_figures(s) for s in sources),
            "meter": dict(Counter(s.verdict or "not scored" for s in scores)),
        }
        judged = [
            (labels[(r["item"], method)], s.verdict) for r, s in zip(rows, scores) if (r["item"], method) in labels
        ]
        if judged:
            damaged = [m for label, m in judged if label != "faithful"]
            figures["blind labels"] = dict(Counter(label for label, _ in judged))
            figures["faithful by blind labels"] = round(
                sum(label == "faithful" for label, _ in judged) / len(judged), 3
            )
            figures["meter calls damaged outputs faithful"] = (
                f"{sum(m == 'faithful' for m in damaged)} of {len(damaged)}" if damaged else "none damaged"
            )
            figures["meter vs labels (label -> meter)"] = {
                f"{a} -> {b}": n for (a, b), n in sorted(Counter(judged).items(), key=str)
            }
        summary[method] = figures
        print(method, json.dumps(figures, ensure_ascii=False), flush=True)
    if args.output:
        args.output.write_text(json.dumps(summary, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
