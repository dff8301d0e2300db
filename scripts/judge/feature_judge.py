"""The feature judge, trained and cross-validated on development labels only: the rule meter's findings and the
lexical differences of :mod:`authorguard.metrics.fidelity.judge.features`, weighed by gradient-boosted trees.

    python scripts/judge/feature_judge.py features          # cache every development set's features
    python scripts/judge/feature_judge.py cv                # grouped 5-fold cross-validation on development labels
    python scripts/judge/feature_judge.py fit -o FOLDER     # fit on all of them, calibrate, save the judge

Development labels (no pair of the judge's frozen set, docs/results/judge/heldout):

- ``written``: docs/results/judge/development (blog and 20 Newsgroups passages, rewritten by helpers to a class:
  paraphrase -> faithful, change -> changed);
- ``speeches``: the hand-written pairs of the three earlier held-out sets (scripts/judge/calibrate.py);
- ``outputs``: the methods' labelled outputs on the development corpora (scripts/faithful/meter_agreement.py).

Cross-validation groups by input text (an input's pairs on one side); the thresholds are fitted on the training folds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "faithful"))
sys.path.insert(0, str(ROOT / "scripts" / "judge"))
CACHE = Path("/work/feature-judge")
AS_CLASS = {"faithful": "faithful", "partial": "faithful", "generalised": "generalised", "changed": "changed"}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def written_pairs() -> list[dict]:
    folder = ROOT / "docs" / "results" / "judge" / "development"
    sources = {r["item"]: r for r in _jsonl(folder / "pair-sources.jsonl")}
    out = []
    for path in sorted(folder.glob("written-*.jsonl")):
        for row in _jsonl(path):
            source = sources[row["item"]]
            label = "faithful" if source["rewrite"].startswith("paraphrase") else "changed"
            out.append(
                {
                    "set": "written",
                    "kind": source["rewrite"],
                    "input": source["input"],
                    "output": row["output"],
                    "label": label,
                }
            )
    return out


def development_sets() -> dict[str, list[dict]]:
    from calibrate import development_pairs
    from meter_agreement import labelled_pairs

    outputs = [p | {"set": "outputs"} for p in labelled_pairs() if p["label"] in AS_CLASS]
    speeches = [p | {"set": "speeches"} for p in development_pairs()]
    return {"written": written_pairs(), "speeches": speeches, "outputs": outputs}


def features(pairs: list[dict]):
    from authorguard.metrics.fidelity import FidelityMeter, canonical_text
    from authorguard.metrics.fidelity.judge.features import feature_matrix

    sources, outputs = [p["input"] for p in pairs], [p["output"] for p in pairs]
    rules = FidelityMeter(meter="rules", n_process=1).score(sources, outputs)
    # as the meter hands them to its judge: both sides read through the normaliser
    read = [canonical_text(t) for t in sources], [canonical_text(t) for t in outputs]
    return rules, feature_matrix(rules, *read)


def cached(name: str, pairs: list[dict]):
    """(rule scores, features) of a set, cached by its content."""
    import inspect
    import pickle

    code = (ROOT / "src" / "authorguard" / "metrics" / "judge" / "features.py").read_bytes()
    code += inspect.getsource(features).encode()
    digest = hashlib.sha256(json.dumps(pairs, sort_keys=True).encode() + code).hexdigest()[:12]
    path = CACHE / f"{name}-{digest}.pkl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        path.write_bytes(pickle.dumps(features(pairs)))
    return pickle.loads(path.read_bytes())


def _group(text: str, folds: int) -> int:
    return int(hashlib.sha256(text.encode()).hexdigest(), 16) % folds


def out_of_fold(sets: dict, folds: int = 5, trees: int = 300):
    """(pairs, rule scores, features, out-of-fold probabilities (n, 3), fold of each pair)."""
    from authorguard.metrics.fidelity.judge.feature_judge import fit_feature_judge

    pairs = [p for name in sets for p in sets[name]]
    loaded = [cached(name, sets[name]) for name in sets]
    rules = [r for rs, _ in loaded for r in rs]
    matrix = np.vstack([x for _, x in loaded])
    labels = [p["label"] for p in pairs]
    groups = np.array([_group(p["input"], folds) for p in pairs])
    found = np.zeros((len(pairs), 3))
    for fold in range(folds):
        train, test = np.flatnonzero(groups != fold), np.flatnonzero(groups == fold)
        judge = fit_feature_judge(matrix[train], [AS_CLASS[labels[i]] for i in train], trees=trees)
        found[test] = judge.predict(matrix[test])
    return pairs, rules, matrix, found, groups


def cross_validate(sets: dict, folds: int = 5, trees: int = 300, max_unsure: float = 0.15) -> dict:
    """Each fold scored with the thresholds fitted on the other folds' out-of-fold probabilities."""
    from authorguard.metrics.fidelity.judge.verdict import combined, fit_thresholds

    pairs, rules, _, found, groups = out_of_fold(sets, folds, trees)
    labels = [p["label"] for p in pairs]
    verdicts: list[str | None] = [None] * len(pairs)
    chosen = []
    for fold in range(folds):
        other = np.flatnonzero(groups != fold)
        band = fit_thresholds([rules[i] for i in other], found[other], [labels[i] for i in other], max_unsure)
        chosen.append((band["low"], band["high"]))
        for i in np.flatnonzero(groups == fold):
            verdicts[i] = combined(rules[i], found[i], band["low"], band["high"]).verdict
    report: dict = {"trees": trees, "thresholds": chosen}
    for name in sets:
        mine = [i for i, p in enumerate(pairs) if p["set"] == name]
        report[name] = summary([verdicts[i] for i in mine], [labels[i] for i in mine], [rules[i] for i in mine])
        report[name]["auc"] = auc(found[mine, 2], [labels[i] for i in mine])
    kinds: Counter = Counter()
    right: Counter = Counter()
    for i, p in enumerate(pairs):
        if p["set"] == "written":
            kinds[p["kind"]] += 1
            right[p["kind"]] += verdicts[i] == labels[i]
    report["written_by_kind"] = {k: f"{right[k]}/{kinds[k]}" for k in sorted(kinds)}
    return report


def auc(p_changed, labels) -> float | None:
    from sklearn.metrics import roc_auc_score

    mine = [(p, t == "changed") for p, t in zip(p_changed, labels) if t in ("faithful", "changed")]
    if len({t for _, t in mine}) < 2:
        return None
    return round(float(roc_auc_score([t for _, t in mine], [p for p, _ in mine])), 3)


def summary(said, labels, rules) -> dict:
    changed = [i for i, t in enumerate(labels) if t == "changed"]
    honest = [i for i, t in enumerate(labels) if t == "faithful"]
    return {
        "pairs": len(labels),
        "agreement": round(sum(s == t for s, t in zip(said, labels)) / len(labels), 3),
        "changed_called_faithful": round(sum(said[i] == "faithful" for i in changed) / max(1, len(changed)), 3),
        "faithful_called_changed": round(sum(said[i] == "changed" for i in honest) / max(1, len(honest)), 3),
        "unsure": round(said.count("unsure") / len(labels), 3),
        "rules_agreement": round(sum(r.verdict == t for r, t in zip(rules, labels)) / len(labels), 3),
    }


def fit_and_save(sets: dict, folder: Path, trees: int, calibrate_on: list[str]) -> dict:
    """Fit on every pair of ``sets``; thresholds (objective ``targets``, at most 15 % unsure) fitted on the
    out-of-fold probabilities of the ``calibrate_on`` sets; the judge saved to ``folder`` with its provenance."""
    from authorguard.metrics.fidelity.judge.feature_judge import fit_feature_judge
    from authorguard.metrics.fidelity.judge.verdict import fit_thresholds
    from authorguard.utils.weights import file_sha256

    pairs, rules, matrix, found, _ = out_of_fold(sets, trees=trees)
    labels = [p["label"] for p in pairs]
    mine = [i for i, p in enumerate(pairs) if p["set"] in calibrate_on]
    calibration = fit_thresholds(
        [rules[i] for i in mine], found[mine], [labels[i] for i in mine], max_unsure=0.15, objective="targets"
    )
    calibration["labels"] = f"out-of-fold probabilities of {', '.join(calibrate_on)} (scripts/judge/feature_judge.py)"
    judge = fit_feature_judge(matrix, [AS_CLASS[t] for t in labels], trees=trees)
    judge.calibration = calibration
    judge.provenance = {
        "command": " ".join(["python", "scripts/judge/feature_judge.py", *sys.argv[1:]]),
        "trained_on": {name: len(pairs_) for name, pairs_ in sets.items()},
        "trees": trees,
        "depth": 3,
        "features": "authorguard.metrics.fidelity.judge.features.FEATURES",
    }
    path = judge.save(folder)
    return {"path": str(path), "sha256": file_sha256(path), "calibration": calibration}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=["features", "cv", "fit"])
    parser.add_argument("-o", "--output", type=Path)
    parser.add_argument("--trees", type=int, nargs="+", default=[300])
    parser.add_argument("--sets", nargs="+", default=["written", "speeches"])
    parser.add_argument("--calibrate-on", nargs="+", default=["written", "speeches"])
    args = parser.parse_args()
    sets = {k: v for k, v in development_sets().items() if k in args.sets and v}
    if args.step == "features":
        for name, pairs in sets.items():
            cached(name, pairs)
            print(name, len(pairs), flush=True)
    elif args.step == "cv":
        for trees in args.trees:
            print(json.dumps(cross_validate(sets, trees=trees)), flush=True)
    else:
        print(json.dumps(fit_and_save(sets, args.output, args.trees[0], args.calibrate_on), indent=1))


if __name__ == "__main__":
    main()
