"""Both fidelity meters against blind labels: the judge's frozen pairs, and every output set already labelled blind.

    python scripts/judge/evaluate.py [-o docs/results/judge/evaluation.json] [--sets frozen outputs]

``frozen``: docs/results/judge/heldout (176 hand-written pairs, labels frozen before the judge was trained; never
tuned on): agreement of the verdicts with the labels (``unsure`` counts as a disagreement), Cohen's κ of faithful
vs not, the share of the pairs labelled changed that the meter calls faithful, the share of the honest
paraphrases (labelled faithful) it calls changed, the share it calls unsure, and its words a second.

``outputs``: the methods' outputs labelled blind in earlier sessions, set by set — the bottleneck's and
``normalise``'s on the four earlier held-out passage sets (docs/results/faithful/heldout*/blind), ``generalise``'s
(docs/results/generalise/heldout*/blind; and of those labelled changed, the share not called faithful or
generalised), the bottleneck's and TAROT's first blind sample (docs/results/bottleneck/fidelity-blind.jsonl) and the
TAROT validity sets (docs/results/tarot/validity-*.jsonl, letters read as verdicts as meter_agreement.py reads them).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
sys.path.insert(0, str(ROOT / "scripts" / "faithful"))


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def kappa(a: list[bool], b: list[bool]) -> float:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def frozen_pairs() -> list[dict]:
    folder = RESULTS / "judge" / "heldout"
    labels = {r["id"]: r["label"] for r in _jsonl(folder / "pairs-labels.jsonl")}
    return [{**r, "label": labels[r["id"]]} for r in _jsonl(folder / "pairs-blind.jsonl")]


def blind_outputs() -> dict[str, list[dict]]:
    """Set name -> labelled (input, output) pairs of the earlier blind output sets."""
    from meter_agreement import TAROT_LETTERS

    sets: dict[str, list[dict]] = {}
    for group in ("faithful", "generalise"):
        for folder in sorted((RESULTS / group).glob("heldout*/blind")):
            key = {r["id"]: r["method"] for r in _jsonl(folder / "key.jsonl")}
            items = {r["id"]: r for path in sorted(folder.glob("part-*.jsonl")) for r in _jsonl(path)}
            for path in sorted(folder.glob("labels-*.jsonl")):
                for row in _jsonl(path):
                    item = items.get(row["id"])
                    if item is None or row.get("label") not in ("faithful", "generalised", "partial", "changed"):
                        continue
                    method = key[row["id"]].split("@")[0]
                    name = f"{method} ({folder.parent.name}, {group})"
                    sets.setdefault(name, []).append(
                        {"input": item["input"], "output": item["output"], "label": row["label"]}
                    )
    blind = {r["item"]: r for r in _jsonl(RESULTS / "bottleneck" / "fidelity-blind.jsonl")}
    methods = {r["item"]: r["method"] for r in _jsonl(RESULTS / "bottleneck" / "fidelity-blind-key.jsonl")}
    for row in _jsonl(RESULTS / "bottleneck" / "fidelity-labels-helper.jsonl"):
        item = blind[row["item"]]
        name = f"{methods[row['item']]} (first blind sample)"
        sets.setdefault(name, []).append({"input": item["input"], "output": item["output"], "label": row["label"]})
    for path in sorted((RESULTS / "tarot").glob("validity-*.jsonl")):
        for row in _jsonl(path):
            letter = row.get("label") or row.get("label_relabel")
            if letter in TAROT_LETTERS:
                sets.setdefault("tarot (validity sets)", []).append(
                    {"input": row["original"], "output": row["rewrite"], "label": TAROT_LETTERS[letter]}
                )
    return sets


def measure(pairs: list[dict], meter: str) -> dict:
    from authorguard.metrics.fidelity import FidelityMeter

    started = time.perf_counter()
    scores = FidelityMeter(meter=meter, n_process=1).score([p["input"] for p in pairs], [p["output"] for p in pairs])
    seconds = time.perf_counter() - started
    said, truth = [s.verdict for s in scores], [p["label"] for p in pairs]
    changed = [i for i, t in enumerate(truth) if t == "changed"]
    honest = [i for i, t in enumerate(truth) if t == "faithful"]
    words = sum(len(p["input"].split()) + len(p["output"].split()) for p in pairs)
    found = {
        "pairs": len(pairs),
        "meter": scores[0].meter if scores else meter,
        "agreement": round(sum(s == t for s, t in zip(said, truth)) / len(pairs), 3),
        "kappa_faithful": round(kappa([t == "faithful" for t in truth], [s == "faithful" for s in said]), 3),
        "changed_called_faithful": round(sum(said[i] == "faithful" for i in changed) / max(1, len(changed)), 3),
        "changed_called_faithful_or_generalised": round(
            sum(said[i] in ("faithful", "generalised") for i in changed) / max(1, len(changed)), 3
        ),
        "paraphrases_called_changed": round(sum(said[i] == "changed" for i in honest) / max(1, len(honest)), 3),
        "unsure": round(said.count("unsure") / len(pairs), 3),
        "verdicts": dict(Counter(v or "not scored" for v in said)),
        "labels": dict(Counter(truth)),
        "words_per_second": round(words / seconds),
    }
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, default=RESULTS / "judge" / "evaluation.json")
    parser.add_argument("--sets", nargs="+", default=["frozen", "outputs"])
    parser.add_argument("--meters", nargs="+", default=["rules", "judge"])
    args = parser.parse_args()
    result: dict = {}
    if "frozen" in args.sets:
        pairs = frozen_pairs()
        result["frozen"] = {meter: measure(pairs, meter) for meter in args.meters}
        print(json.dumps({"frozen": result["frozen"]}), flush=True)
    if "outputs" in args.sets:
        result["outputs"] = {}
        for name, pairs in blind_outputs().items():
            result["outputs"][name] = {meter: measure(pairs, meter) for meter in args.meters}
            print(json.dumps({name: result["outputs"][name]}), flush=True)
    args.output.write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
