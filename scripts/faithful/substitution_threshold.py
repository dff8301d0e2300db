"""Choose the fidelity meter's substitution threshold (issue 65) on the development labels only: the tuning half of
the committed labelled pairs of blogs and 20 Newsgroups (scripts/faithful/meter_agreement.py), never the frozen
held-out set.

    python scripts/faithful/substitution_threshold.py [-o docs/results/faithful/substitution-threshold.json]

For each threshold: how many pairs labelled faithful the meter calls ``changed`` / ``unsure`` / ``faithful``, how many
labelled partial or changed it calls ``unsure`` (damage it no longer names) or ``faithful``, and Cohen's κ of
faithful vs not on the pairs it settles. The rule, written before looking: the lowest threshold at which at most 5 %
of the pairs labelled changed become ``unsure``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout_meter import kappa
from meter_agreement import half, labelled_pairs

GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 2.0)
MAX_CHANGED_TO_UNSURE = 0.05


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, default=None)
    args = parser.parse_args()
    from dataclasses import replace

    from authorguard.metrics.fidelity import FidelityMeter, FidelityThresholds
    from authorguard.metrics.fidelity.atoms import atom_findings
    from authorguard.metrics.fidelity.verdict import judge_pair as judge

    pairs = [p for p in labelled_pairs() if half(p["input"]) == "tune" and p["source"] != "tarot-letters"]
    pairs = [p for p in pairs if " ".join(p["input"].split()) != " ".join(p["output"].split())]
    meter = FidelityMeter()
    texts = sorted({t for p in pairs for t in (p["input"], p["output"])})
    readings = dict(zip(texts, meter.read(texts)))
    from authorguard.metrics.fidelity import CANONICAL_RULES
    from authorguard.text.normalise import normalise

    broken = [
        bool(atom_findings(normalise(p["input"], CANONICAL_RULES), normalise(p["output"], CANONICAL_RULES)))
        for p in pairs
    ]
    rows = []
    for threshold in GRID:
        thresholds = replace(FidelityThresholds(), substitution_similarity=threshold)
        said = [
            "changed" if b else judge(readings[p["input"]], readings[p["output"]], thresholds).verdict
            for p, b in zip(pairs, broken)
        ]
        by_label = {
            label: dict(Counter(s for p, s in zip(pairs, said) if p["label"] == label))
            for label in ("faithful", "partial", "changed")
        }
        settled = [(p["label"] == "faithful", s == "faithful") for p, s in zip(pairs, said) if s != "unsure"]
        changed = [s for p, s in zip(pairs, said) if p["label"] == "changed"]
        rows.append(
            {
                "threshold": threshold,
                "by_label": by_label,
                "changed_to_unsure": round(changed.count("unsure") / len(changed), 3),
                "kappa_settled": round(kappa([a for a, _ in settled], [b for _, b in settled]), 3),
                "unsure_share": round(said.count("unsure") / len(said), 3),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    chosen = min((r["threshold"] for r in rows if r["changed_to_unsure"] <= MAX_CHANGED_TO_UNSURE), default=None)
    print(f"chosen: {chosen} (tuning half: {len(pairs)} pairs; sources {dict(Counter(p['source'] for p in pairs))})")
    if args.output:
        args.output.write_text(json.dumps({"chosen": chosen, "pairs": len(pairs), "grid": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
