"""The README's methods table from one full-size run: per method, the worst-case attribution accuracy with its 95 %
interval and attack, the paired difference from the original on the same test documents (real when McNemar
p < 0.05), the topic task retrained on the release, and the fidelity meter's shares — all at the run's one scale.

Usage:  python scripts/benchmark/full_table.py runs/full-bac10 [--view BAC-10] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json

import pandas as pd


def table(run: str, view: str) -> pd.DataFrame:
    from authorguard.experiments.comparison import comparison_table
    from authorguard.experiments.results import setting_label
    from authorguard.experiments.runner import read_results

    frame = read_results(run)
    compared = comparison_table(frame, view)
    part = frame[frame["view"] == view]
    utility, fidelity = [], []
    for method, setting in zip(compared["method"], compared["setting"]):
        rows = part[(part["method"] == method) & (part["params"].map(setting_label).replace("", "–") == setting)]
        rows = rows[rows["classifier"].isin(["svm", "", "neural"]) | rows["classifier"].isna()]
        task = rows[
            ~rows["task"].isin(["attack", "content", "detector"]) & rows["threat_model"].isin(["none", "adversarial"])
        ]
        utility.append(f"{task['accuracy'].mean():.3f}" if not task.empty else "–")
        content = rows[rows["task"] == "content"]
        if "faithful" in content and content["faithful"].notna().any():
            shares = content[[c for c in ("faithful", "generalised", "changed") if c in content]].mean()
            generalised = f"{shares['generalised']:.0%} generalised, " if shares.get("generalised", 0) > 0 else ""
            fidelity.append(f"{shares['faithful']:.0%} faithful, {generalised}{shares['changed']:.0%} changed")
        else:
            fidelity.append("–")
    compared.insert(6, "topic accuracy (retrained)", utility)
    sample = int(part.loc[part["task"] == "content", "n_test"].max()) if (part["task"] == "content").any() else 0
    compared[f"fidelity (meter, {sample} test documents)"] = fidelity
    return compared


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run")
    parser.add_argument("--view", default="BAC-10")
    parser.add_argument("--json", help="Also write the table as JSON records here.")
    args = parser.parse_args()
    result = table(args.run, args.view)
    print(result.to_markdown(index=False, disable_numparse=True))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result.to_dict("records"), handle, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
