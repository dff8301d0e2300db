"""The fidelity meter against the committed hand labels (issue 55): tuned on one half, reported on the other.

    python scripts/faithful/meter_agreement.py [--readings runs/faithful/readings.pkl] [--out
    docs/results/faithful/meter-agreement.json]

Label sources (each pair once; a pair labelled twice keeps the blind label):

- ``blind``: docs/results/bottleneck/fidelity-blind.jsonl with the blind helper's labels (100 bottleneck + 100 tarot
  outputs; faithful / partial / changed under docs/results/bottleneck/fidelity-reading.md).
- ``bottleneck-author``: the author's labels of the same bottleneck outputs, a second reading (reported, not tuned on).
- ``tarot``: the TAROT validity label sets (docs/results/tarot/*.jsonl), letters read as verdicts: valid (V) and
  near-copy (C) -> faithful; truncated (T), names dropped (D), length (N) -> partial; meaning lost (U), meta (M),
  loop (L), instruction (I), refusal (R) -> changed. The first set's "valid" was a looser reading (tarot.md): a
  coarse source, reported apart.
- ``synonyms``: docs/results/synonyms/labels.jsonl — a word replaced in its context: ``ok`` -> faithful,
  ``wrong`` -> changed (a word-sense error is a meaning change).
- ``paraphrases``: docs/results/faithful/paraphrases.jsonl, written for the purpose (faithful paraphrases, partial
  ones, and one-change rewrites labelled changed).
- ``normalise``: the blind helpers' labels of ``normalise`` outputs (docs/results/faithful/blind*.jsonl), when present.

Halves: by a hash of the input text (an input's pairs stay on one side). Tuning: the thresholds maximising Cohen's
kappa of faithful vs not on the tuning half. Reported on the held-out half: accuracy, kappa, the 3 x 3 confusion.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import pickle
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
TAROT_LETTERS = {
    "V": "faithful",
    "C": "faithful",
    "T": "partial",
    "D": "partial",
    "N": "partial",
    "U": "changed",
    "M": "changed",
    "L": "changed",
    "I": "changed",
    "R": "changed",
}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def labelled_pairs() -> list[dict]:
    """Every labelled (input, output) pair: ``{"source", "input", "output", "label"}``, each pair once."""
    pairs: dict[tuple[str, str], dict] = {}

    def add(source: str, text: str, output: str, label: str) -> None:
        if output and output.strip() and (text, output) not in pairs:
            pairs[(text, output)] = {"source": source, "input": text, "output": output, "label": label}

    blind = {r["item"]: r for r in _jsonl(RESULTS / "bottleneck" / "fidelity-blind.jsonl")}
    key = {r["item"]: r["method"] for r in _jsonl(RESULTS / "bottleneck" / "fidelity-blind-key.jsonl")}
    for row in _jsonl(RESULTS / "bottleneck" / "fidelity-labels-helper.jsonl"):
        item = blind[row["item"]]
        add(f"blind-{key[row['item']]}", item["input"], item["output"], row["label"])
    for name in ("blind", "blind-2"):  # issue 55's blind sets: normalise beside synonyms, then beside the bottleneck
        labels = RESULTS / "faithful" / f"{name}-labels.jsonl"
        if labels.exists():
            items = {r["item"]: r for r in _jsonl(RESULTS / "faithful" / f"{name}.jsonl")}
            methods = {r["item"]: r["method"] for r in _jsonl(RESULTS / "faithful" / f"{name}-key.jsonl")}
            for row in _jsonl(labels):
                item = items[row["item"]]
                add(f"blind-{methods[row['item']]}", item["input"], item["output"], row["label"])
    for path in sorted((RESULTS / "tarot").glob("validity-*.jsonl")):
        for row in _jsonl(path):
            letter = row.get("label") or row.get("label_relabel")
            if letter in TAROT_LETTERS:
                add("tarot-letters", row["original"], row["rewrite"], TAROT_LETTERS[letter])
    sample = {r["key"]: r for r in _jsonl(RESULTS / "synonyms" / "sample.jsonl")}
    for row in _jsonl(RESULTS / "synonyms" / "labels.jsonl"):
        item = sample[row["key"]]
        context = item["context"]
        original = context.replace("[", "").replace("]", "")
        replaced = context.replace(f"[{item['word']}]", item["replacement"])
        add("synonyms", original, replaced, "faithful" if row["label"] == "ok" else "changed")
    sources = {r["item"]: r["input"] for r in _jsonl(RESULTS / "faithful" / "paraphrase-sources.jsonl")}
    paraphrases = RESULTS / "faithful" / "paraphrases.jsonl"
    if paraphrases.exists():
        for row in _jsonl(paraphrases):
            add(f"written-{row['kind']}", sources[row["item"]], row["output"], row["label"])
    return list(pairs.values())


def second_reading() -> list[dict]:
    """The author's labels of the bottleneck sample (the same outputs the blind helper labelled)."""
    sample = {r["item"]: r for r in _jsonl(RESULTS / "bottleneck" / "fidelity-sample.jsonl")}
    return [
        {
            "source": "bottleneck-author",
            "input": sample[r["item"]]["input"],
            "output": sample[r["item"]]["output"],
            "label": r["label"],
        }
        for r in _jsonl(RESULTS / "bottleneck" / "fidelity-labels-author.jsonl")
        if sample[r["item"]]["output"]
    ]


def half(text: str) -> str:
    return "tune" if hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 0 else "held-out"


def agreement(truth: list[str], predicted: list[str]) -> dict:
    from sklearn.metrics import cohen_kappa_score, confusion_matrix

    binary_truth = [t == "faithful" for t in truth]
    binary_predicted = [p == "faithful" for p in predicted]
    labels = ["faithful", "partial", "changed"]
    return {
        "n": len(truth),
        "accuracy": round(sum(a == b for a, b in zip(binary_truth, binary_predicted)) / len(truth), 3),
        "kappa": round(float(cohen_kappa_score(binary_truth, binary_predicted)), 3),
        "accuracy_3way": round(sum(a == b for a, b in zip(truth, predicted)) / len(truth), 3),
        "kappa_3way": round(float(cohen_kappa_score(truth, predicted, labels=labels)), 3),
        "confusion": {
            "rows (labels)": labels,
            "columns (meter)": labels,
            "counts": confusion_matrix(truth, predicted, labels=labels).tolist(),
        },
        "labels": dict(Counter(truth)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--readings",
        type=Path,
        default=ROOT / "runs" / "faithful" / "readings.pkl",
        help="cache of the parsed pairs (parsing is most of the time)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "faithful" / "meter-agreement.json")
    args = parser.parse_args()
    from authorguard.metrics.fidelity import FidelityMeter, FidelityThresholds
    from authorguard.metrics.fidelity.verdict import judge_pair as judge

    pairs = labelled_pairs() + second_reading()
    meter = FidelityMeter()
    cache = pickle.loads(args.readings.read_bytes()) if args.readings.exists() else {}
    missing = sorted({t for p in pairs for t in (p["input"], p["output"])} - set(cache))
    if missing:
        cache.update(zip(missing, meter.read(missing)))
        args.readings.parent.mkdir(parents=True, exist_ok=True)
        args.readings.write_bytes(pickle.dumps(cache))
    for pair in pairs:
        pair["half"] = half(pair["input"])

    def verdicts(rows: list[dict], thresholds: FidelityThresholds) -> list[str]:
        out = []
        for row in rows:
            if " ".join(row["input"].split()) == " ".join(row["output"].split()):
                out.append("faithful")
            else:
                out.append(judge(cache[row["input"]], cache[row["output"]], thresholds).verdict)
        return out

    tune = [p for p in pairs if p["half"] == "tune" and p["source"] != "bottleneck-author"]
    grid = [
        FidelityThresholds(max_invented=i, min_recall=r, max_new_names=n, agents=agents, negation=negation)
        for i, r, n, agents, negation in itertools.product(
            (0.1, 0.15, 0.2, 0.25, 0.3, 0.4), (0.4, 0.5, 0.6, 0.7, 0.8), (0, 1), (True, False), (True, False)
        )
    ]
    best = max(grid, key=lambda t: agreement([p["label"] for p in tune], verdicts(tune, t))["kappa"])
    report = {"thresholds": best.__dict__, "tuned_on": len(tune), "by_half": {}, "by_source_held_out": {}}
    for name in ("tune", "held-out"):
        rows = [p for p in pairs if p["half"] == name and p["source"] != "bottleneck-author"]
        report["by_half"][name] = agreement([p["label"] for p in rows], verdicts(rows, best))
    held = [p for p in pairs if p["half"] == "held-out"]
    for source in sorted({p["source"] for p in held}):
        rows = [p for p in held if p["source"] == source]
        predicted = verdicts(rows, best)
        report["by_source_held_out"][source] = {
            "n": len(rows),
            "labels": dict(Counter(p["label"] for p in rows)),
            "meter": dict(Counter(predicted)),
            "accuracy": round(
                sum((a["label"] == "faithful") == (b == "faithful") for a, b in zip(rows, predicted)) / len(rows), 3
            ),
        }
    clean = [p for p in held if p["source"] not in ("tarot-letters", "bottleneck-author")]
    report["held_out_without_letters"] = agreement([p["label"] for p in clean], verdicts(clean, best))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
