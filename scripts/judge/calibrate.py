"""Calibrate the consistency judge's thresholds on development labels and write them into the judge's folder.

    python scripts/judge/calibrate.py [--judge FOLDER] [--inputs docs/results/judge/calibration-inputs.jsonl]

Development labels: the hand-written pairs of the three earlier held-out sets (docs/results/faithful/heldout,
heldout-2, heldout-3: 396 pairs of the speeches, Federalist and AMT, blind-labelled; read in earlier sessions, so
development data now — never the judge's frozen set, docs/results/judge/heldout). For each pair the rule meter's
score and the judge's worst-sentence probabilities are written to ``--inputs`` (so that the thresholds can be
refitted without the model: ``tests/metrics/fidelity/judge/test_verdict.py``), then
:func:`~authorguard.metrics.fidelity.judge.verdict.fit_thresholds` chooses ``low`` and ``high`` and they are
written to ``FOLDER/calibration.json``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEVELOPMENT_SETS = ("heldout", "heldout-2", "heldout-3")


def development_pairs() -> list[dict]:
    """``{"set", "id", "input", "output", "label"}`` of every development pair."""
    out = []
    for name in DEVELOPMENT_SETS:
        folder = ROOT / "docs" / "results" / "faithful" / name
        labels = {
            r["id"]: r["label"]
            for r in map(json.loads, (folder / "pairs-labels.jsonl").read_text("utf-8").splitlines())
        }
        for row in map(json.loads, (folder / "pairs-blind.jsonl").read_text("utf-8").splitlines()):
            out.append(
                {
                    "set": name,
                    "id": row["id"],
                    "input": row["input"],
                    "output": row["output"],
                    "label": labels[row["id"]],
                }
            )
    return out


def calibrate(folder: Path, pairs: list[dict], inputs: Path, keys: tuple[str, ...], note: str) -> dict:
    """Score ``pairs`` (``{"input", "output", "label", ...}``) with the rules and the judge in ``folder``, write each
    pair's ``keys``, rule verdict, atom findings and probabilities to ``inputs`` (rounded as kept there, so a test
    can refit from the file), fit the thresholds and write them to ``folder/calibration.json``."""
    import numpy as np

    from authorguard.metrics.fidelity import FidelityMeter
    from authorguard.metrics.fidelity.judge.model import load_judge
    from authorguard.metrics.fidelity.judge.verdict import fit_thresholds, passage_probabilities
    from authorguard.metrics.fidelity.verdict import FidelityScore

    judge = load_judge(folder)
    sources, outputs = [p["input"] for p in pairs], [p["output"] for p in pairs]
    rules = FidelityMeter(meter="rules", n_process=1).score(sources, outputs)
    found = np.round(passage_probabilities(judge, sources, outputs).astype(float), 5)
    with open(inputs, "w", encoding="utf-8") as out:
        for pair, rule, row in zip(pairs, rules, found):
            record = {k: pair[k] for k in keys} | {"rule": rule.verdict, "atom": rule.atom_findings}
            out.write(json.dumps({**record, "p": [float(x) for x in row]}) + "\n")
    scores = [FidelityScore(verdict=r.verdict, atom_findings=r.atom_findings) for r in rules]
    calibration = fit_thresholds(scores, found, [p["label"] for p in pairs]) | {"labels": note}
    (folder / "calibration.json").write_text(json.dumps(calibration, indent=2), encoding="utf-8")
    return calibration


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", type=Path, default=None, help="the judge's folder (default: the trained one)")
    parser.add_argument(
        "--inputs", type=Path, default=ROOT / "docs" / "results" / "judge" / "calibration-inputs-speeches.jsonl"
    )
    args = parser.parse_args()
    from authorguard.metrics.fidelity.judge.model import trained_cache

    folder = args.judge or trained_cache() / "final"
    note = "docs/results/faithful/heldout, heldout-2, heldout-3 (pairs)"
    print(json.dumps(calibrate(folder, development_pairs(), args.inputs, ("set", "id", "label"), note)))


if __name__ == "__main__":
    main()
