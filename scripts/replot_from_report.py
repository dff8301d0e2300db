"""Redraw a report's setting-level figures (gain against epsilon, effect of s) from its own "Every setting" table.

For reports whose run folder is gone: the table holds every number these two figures plot (epsilon, l·n, β_U,
β_A and the minimum gain of each setting), so the figures are redrawn with the current plotting code from the
same measurements. The per-run figure (utility and attack F1) needs the results table and is not redrawn.

Usage:  python scripts/replot_from_report.py docs/results/syntf-20news-ablation/report.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from authorguard.experiments.report import _effect_of_s_figure, _gain_epsilon_figure


def _value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(text, text)


def setting_table(report: Path) -> pd.DataFrame:
    """The "Every setting" table of ``report`` as the summary the figures take."""
    lines = report.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## Every setting"))
    header = [c.strip() for c in lines[start + 2].strip("|").split("|")]
    rows = []
    for line in lines[start + 4:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
        params = {} if cells["params"] == "–" else {k: _value(v) for k, v in (p.split("=", 1) for p in cells["params"].split(", "))}
        number = lambda key: float("nan") if cells[key] == "–" else float(cells[key])  # noqa: E731
        rows.append({"method": cells["method"], "params": json.dumps(params, sort_keys=True), "epsilon": number("epsilon"),
                     "total_loss": number("l·n"), "mean_beta_u": number("beta_U"), "mean_beta_a": number("beta_A"),
                     "min_gain": number("min gain")})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path)
    args = parser.parse_args()
    summary = setting_table(args.report)
    figures = args.report.parent / "figures"
    for name, draw in (("gain_vs_epsilon", _gain_epsilon_figure), ("effect_of_s", _effect_of_s_figure)):
        if (figures / f"{name}.png").exists():
            print(name, "redrawn" if draw(summary, figures / f"{name}.png") else "not drawn (too few settings)")


if __name__ == "__main__":
    main()
