"""The bottleneck's tables (docs/results/bottleneck.md) from experiment runs: per scenario and method setting, the
worst-case attribution accuracy over attackers x threat models with its 95 % Wilson interval and standard error,
the worst case under the adversarial threat model alone, the meaning attacker on the original (the meaning floor),
MiniLM cosine and chrF; then the issue's checks: each bottleneck level against its floor (2 SE), the levels'
order, and the share of the original's identification above chance that each floor keeps.

    python scripts/bottleneck/floor_table.py runs/bottleneck-floors [runs/bottleneck-levels ...]
"""

from __future__ import annotations

import argparse
import json
import math

import pandas as pd

from authorguard.experiments.runner import read_results
from authorguard.metrics.statistics import wilson_interval

THREATS = ("static", "augmented", "adversarial")


def _label(method: str, params: str) -> str:
    """``bottleneck level=content`` for a bottleneck row (whatever its config label), else the method's name."""
    values = json.loads(params) if isinstance(params, str) and params else {}
    if method.startswith("bottleneck"):
        method = "bottleneck"
    return method + (" " + " ".join(f"{k}={v}" for k, v in sorted(values.items())) if values else "")


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    for column in ("attacker", "threat_model", "classifier", "params"):
        frame[column] = frame[column].fillna("")
    rows = []
    for (scenario, method, params), group in frame.groupby(["scenario", "method", "params"], sort=False):
        attacks = group[group["task"] == "attack"]
        scores = {}
        for (attacker, threat), part in attacks.groupby(["attacker", "threat_model"]):
            for t in THREATS if threat == "none" else (threat,):
                scores[(attacker, t)] = float(part["accuracy"].mean())
        if not scores:
            continue
        n = int(attacks["n_test"].max())
        (worst_attacker, worst_threat), worst = max(scores.items(), key=lambda kv: kv[1])
        adversarial = max(v for (a, t), v in scores.items() if t == "adversarial")
        content = group[group["task"] == "content"]
        lo, hi = wilson_interval(worst, n)
        rows.append(
            {
                "scenario": scenario,
                "method": _label(method, params),
                "n_test": n,
                "worst": worst,
                "interval": f"[{lo:.3f}, {hi:.3f}]",
                "se": math.sqrt(worst * (1 - worst) / n),
                "attack": f"{worst_attacker} / {worst_threat}",
                "adversarial": adversarial,
                "meaning": scores.get(("meaning", "static")),
                "minilm": content["embedding_cosine"].mean() if "embedding_cosine" in content else float("nan"),
                "chrf": content["chrf"].mean() if "chrf" in content else float("nan"),
                "meteor": content["meteor"].mean() if "meteor" in content else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def checks(table: pd.DataFrame) -> list[str]:
    lines = []
    for scenario, part in table.groupby("scenario", sort=False):
        by = dict(zip(part["method"], part.to_dict("records")))
        original = by.get("original")
        for level in ("content", "lemma", "canonical"):
            floor, ours = by.get(f"view:{level}"), by.get(f"bottleneck level={level}")
            if floor and original and original["worst"] > 0:
                lines.append(
                    f"{scenario}: view:{level} worst {floor['worst']:.3f} = "
                    f"{floor['worst'] / original['worst']:.0%} of the original's {original['worst']:.3f}"
                )
            if floor and ours:
                se = math.sqrt(floor["se"] ** 2 + ours["se"] ** 2)
                gap = ours["adversarial"] - floor["adversarial"]
                lines.append(
                    f"{scenario}: bottleneck {level} adversarial {ours['adversarial']:.3f} vs its floor "
                    f"{floor['adversarial']:.3f}: {gap:+.3f} ({gap / se:+.1f} SE of the difference)"
                )
        levels = [
            (lv, by[f"bottleneck level={lv}"]["worst"])
            for lv in ("content", "lemma", "canonical", "syntf")
            if f"bottleneck level={lv}" in by
        ]
        if len(levels) > 1:
            order = " >= ".join(f"{lv} {w:.3f}" for lv, w in levels)
            ordered = all(
                a[1]
                >= b[1]
                - 2 * math.sqrt(by[f"bottleneck level={a[0]}"]["se"] ** 2 + by[f"bottleneck level={b[0]}"]["se"] ** 2)
                for a, b in zip(levels, levels[1:])
            )
            lines.append(
                f"{scenario}: levels' worst cases {order}: {'ordered' if ordered else 'NOT ordered'} within 2 SE"
            )
        if original and original.get("meaning") is not None:
            lines.append(f"{scenario}: meaning floor (meaning attacker on the original) {original['meaning']:.3f}")
    return lines


def load(run: str) -> pd.DataFrame:
    """A run's results table, or — while it is still running — the rows of its finished cells."""
    from pathlib import Path

    cells = sorted(Path(run, "cells").glob("*.json"))
    if not (Path(run) / "results.parquet").exists() and not (Path(run) / "results.csv").exists() and cells:
        return pd.DataFrame([row for cell in cells for row in json.loads(cell.read_text(encoding="utf-8"))["rows"]])
    return read_results(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+")
    args = parser.parse_args()
    table = pd.concat([summarise(load(run)) for run in args.runs], ignore_index=True)
    table = table.drop_duplicates(["scenario", "method"])  # the original is in every run (the same split)
    shown = table.copy()
    for column in ("worst", "se", "adversarial", "meaning", "minilm", "chrf", "meteor"):
        shown[column] = shown[column].map(lambda v: "–" if v is None or v != v else f"{v:.3f}")
    print(shown.to_markdown(index=False))
    print()
    print("\n".join(checks(table)))


if __name__ == "__main__":
    main()
