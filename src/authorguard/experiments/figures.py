"""The report's figures (matplotlib, written as PNG): utility and attack F1 per method and scenario, the gain
against epsilon with l*n on a second axis, the effect of the bigram weight s, the privacy-utility scatter of a
benchmark view, and privacy and utility against the document-level epsilon. Every series has its own colour and
marker, and legends sit outside the data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from authorguard.experiments.results import FLOOR_PREFIX, REFERENCE, benchmark_points, gains


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_MARKERS = "osD^vP*Xh<>p"


def series_styles(n: int) -> list[tuple[tuple, str]]:
    """``n`` (colour, marker) pairs, every colour different: tab10, then tab20's lighter shades, then evenly
    spaced hues; markers cycle so that series stay apart in grey print too."""
    import matplotlib

    colours = list(matplotlib.color_sequences["tab10"])  # (the colours of the tab10 and tab20 colour maps)
    colours += [c for i, c in enumerate(matplotlib.color_sequences["tab20"]) if i % 2 == 1]
    if n > len(colours):
        colours += [matplotlib.colormaps["hsv"](i / (n - len(colours) + 1)) for i in range(n - len(colours))]
    return [(tuple(colours[i]), _MARKERS[i % len(_MARKERS)]) for i in range(n)]


def legend_outside(fig, axis, handles=None, labels=None) -> None:
    """The legend to the right of the plotting area, never over the data."""
    handles, labels = (handles, labels) if handles is not None else axis.get_legend_handles_labels()
    if handles:
        axis.legend(
            handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False
        )


def f1_figure(frame: pd.DataFrame, chosen: dict[str, str], classifier: str, path: Path) -> None:
    """Utility F1 per method (one panel) and attack F1 per attacker x threat model (a panel per scenario), each
    method at its chosen setting, mean +- sd over runs."""
    plt = pyplot()
    g = gains(frame)
    scenarios = sorted(s for s in g["scenario"].unique())
    methods = list(chosen)
    attacks = [(a, t) for a in sorted(g["attacker"].unique()) for t in sorted(set(g["threat_model"]) - {"none"})]
    fig, axes = plt.subplots(
        1, len(scenarios) + 1, figsize=(3.2 * (len(scenarios) + 1), 3.6), sharey=True, squeeze=False
    )
    width = 0.8 / max(len(methods), 1)
    styles = series_styles(len(methods))
    # utility: one bar per method, mean +- sd over runs
    axis = axes[0][0]
    for i, method in enumerate(methods):
        part = g[(g["method"] == method) & (g["params"] == chosen[method]) & (g["classifier"] == classifier)]
        per_run = part.groupby("run")["utility_f1"].first()
        axis.bar(
            i, per_run.mean(), yerr=per_run.std(ddof=1) if len(per_run) > 1 else 0, color=styles[i][0], label=method
        )
    axis.set_xticks([])
    axis.set_ylabel("F1 (macro)")
    axis.set_ylim(0, 1.05)
    for j, scenario in enumerate(scenarios, start=1):
        axis = axes[0][j]
        for i, method in enumerate(methods):
            means, sds = [], []
            for attacker, threat in attacks:
                part = g[
                    (g["method"] == method)
                    & (g["params"] == chosen[method])
                    & (g["scenario"] == scenario)
                    & (g["attacker"] == attacker)
                    & (g["classifier"] == classifier)
                    & ((g["threat_model"] == threat) | (g["method_name"] == REFERENCE))
                ]
                means.append(part["attack_f1"].mean())
                sds.append(part["attack_f1"].std(ddof=1) if len(part) > 1 else 0)
            axis.bar(np.arange(len(attacks)) + i * width, means, width, yerr=sds, color=styles[i][0])
        axis.set_xticks(np.arange(len(attacks)) + width * (len(methods) - 1) / 2)
        axis.set_xticklabels([f"{a}\n{t}" for a, t in attacks], fontsize=7, rotation=60, ha="right")
        axis.set_title(f"attack F1 ↓, {scenario}", fontsize=9)
    axes[0][0].set_title(f"utility F1 ↑ ({classifier})", fontsize=9)
    fig.tight_layout()
    legend_outside(fig, axes[0][-1], *axes[0][0].get_legend_handles_labels())
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def grid_parameter(summary: pd.DataFrame, name: str) -> pd.Series:
    return summary["params"].map(lambda p: json.loads(p).get(name))


def gain_epsilon_figure(summary: pd.DataFrame, path: Path) -> bool:
    """min-over-scenarios gain against epsilon, one line per other setting; top axis l*n (of the first line)."""
    plt = pyplot()
    data = summary.dropna(subset=["epsilon", "total_loss"]).copy()
    if data["epsilon"].nunique() < 2:
        return False
    data["others"] = data["params"].map(
        lambda p: json.dumps(
            {k: v for k, v in json.loads(p).items() if k not in ("epsilon", "target_loss")}, sort_keys=True
        )
    )
    series = [(others, part.sort_values("epsilon")) for others, part in data.groupby("others", sort=False)]
    lines = [(others, part) for others, part in series if part["epsilon"].nunique() >= 2]
    if not lines:
        return False
    fig, axis = plt.subplots(figsize=(10, 4.8))
    # lines first (an epsilon grid), then single settings as points at their own epsilon: every series its own style
    ordered = lines + [(others, part) for others, part in series if part["epsilon"].nunique() < 2]
    for (others, part), (colour, marker) in zip(ordered, series_styles(len(ordered))):
        label = ", ".join(f"{k}={v}" for k, v in json.loads(others).items()) or "SynTF"
        style = {"linestyle": "-"} if part["epsilon"].nunique() >= 2 else {"linestyle": "none", "markersize": 8}
        axis.plot(part["epsilon"], part["min_gain"], marker=marker, color=colour, label=label, **style)
    axis.set_xlabel("epsilon (per word)")
    axis.set_ylabel("gain = β_U − β_A, min over scenarios (higher is better)")
    axis.axhline(0, color="grey", linewidth=0.5)
    # l is close to linear in epsilon for a fixed vocabulary and s: the top axis uses the first line's fit
    first = lines[0][1]
    slope, intercept = np.polyfit(first["epsilon"].to_numpy(float), first["total_loss"].to_numpy(float), 1)
    top = axis.secondary_xaxis("top", functions=(lambda e: slope * e + intercept, lambda t: (t - intercept) / slope))
    top.set_xlabel("tight loss l·n per document (first line, linear fit)", fontsize=9)
    from matplotlib.ticker import MaxNLocator, StrMethodFormatter

    top.xaxis.set_major_locator(MaxNLocator(4, prune="both"))
    top.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    top.tick_params(labelsize=8)
    legend_outside(fig, axis)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def effect_of_s_figure(summary: pd.DataFrame, path: Path) -> bool:
    """beta_U, beta_A and the gain against s, one panel per group of settings that differ only in s (and in
    the epsilon calibrated to a common target loss)."""
    plt = pyplot()
    data = summary.copy()
    data["s"] = grid_parameter(data, "bigram_weight")
    data = data.dropna(subset=["s"])
    data["others"] = data["params"].map(
        lambda p: json.dumps(
            {k: v for k, v in json.loads(p).items() if k not in ("bigram_weight", "epsilon")}, sort_keys=True
        )
    )
    groups = [
        (others, part.sort_values("s"))
        for others, part in data.groupby("others", sort=False)
        if part["s"].nunique() >= 2
    ]
    if not groups:
        return False
    fig, axes = plt.subplots(1, len(groups), figsize=(5.2 * len(groups), 4.0), squeeze=False, sharey=True)
    for axis, (others, part) in zip(axes[0], groups):
        for column, label in (
            ("min_gain", "gain (min over scenarios)"),
            ("mean_beta_u", "beta_U"),
            ("mean_beta_a", "beta_A"),
        ):
            axis.plot(part["s"], part[column], marker="o", label=label)
        for row in part.itertuples():
            axis.annotate(
                f"l·n={row.total_loss:.0f}",
                (row.s, row.min_gain),
                fontsize=7,
                textcoords="offset points",
                xytext=(0, 6),
            )
        axis.set_xlabel("bigram weight s")
        axis.set_title(", ".join(f"{k}={v}" for k, v in json.loads(others).items()) or "SynTF", fontsize=8)
        axis.set_ylabel("higher is better for gain and β_U; lower for β_A", fontsize=8)
    fig.tight_layout()
    legend_outside(fig, axes[0][-1], *axes[0][0].get_legend_handles_labels())
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def scatter_figure(points: pd.DataFrame, view: str, path: Path) -> None:
    """Privacy-utility scatter of one benchmark view: one point per method setting, a colour and marker per
    method; better is up (utility) and left (worst-case attack F1)."""
    plt = pyplot()
    methods = list(dict.fromkeys(points["method"]))
    styles = dict(zip(methods, series_styles(len(methods))))
    fig, axis = plt.subplots(figsize=(8.5, 4.6))
    for method in methods:
        part = points[points["method"] == method]
        colour, marker = styles[method]
        axis.scatter(part["privacy"], part["utility"], color=colour, marker=marker, s=60, label=method, zorder=3)
        if method.startswith(FLOOR_PREFIX):  # a floor: no method that keeps what this view keeps goes left of it
            for value in part["privacy"]:
                axis.axvline(value, color=colour, linestyle="--", linewidth=1, zorder=1)
        if len(part) > 1:  # several settings of one method: say which point is which (alternately above and below)
            for k, row in enumerate(part.itertuples()):
                axis.annotate(
                    row.setting,
                    (row.privacy, row.utility),
                    fontsize=7,
                    textcoords="offset points",
                    xytext=(6, 6 if k % 2 == 0 else -11),
                )
    axis.set_xlabel("worst-case attack F1 (strongest attacker and threat model) — lower is better ←")
    axis.set_ylabel(f"{points['utility_name'].iloc[0]} — higher is better ↑", fontsize=9)
    # zoom on the points (with a margin) so that close settings stay apart; the limits are printed on the axes
    for values, setter in ((points["privacy"], axis.set_xlim), (points["utility"], axis.set_ylim)):
        low, high = np.nanmin(values), np.nanmax(values)
        margin = max(0.05, 0.15 * (high - low))
        setter(max(-0.02, low - margin), min(1.02, high + margin))
    axis.grid(alpha=0.3)
    if len(points) > 1 and points[["privacy", "utility"]].nunique().max() == 1:  # say it: markers hide each other
        axis.text(
            0.02,
            0.04,
            f"all {len(points)} settings at ({points['privacy'].iloc[0]:.2f}, {points['utility'].iloc[0]:.2f})",
            transform=axis.transAxes,
            fontsize=8,
        )
    axis.set_title(f"{view}: privacy against utility", fontsize=10)
    fig.tight_layout()
    legend_outside(fig, axis)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def epsilon_figure(frame: pd.DataFrame, views: list[str], classifier: str, path: Path) -> bool:
    """Privacy and utility against the document-level ε, one column per benchmark view: every method with a
    guarantee (SynTF's l·n, DP-Prompt's m·ε_token) as a curve, the unprotected original as a dashed line. Top:
    utility (solid: the analyst's model trained on the original text; dotted: retrained on the release); bottom:
    the worst-case attack F1. False (no figure) when no view has two settings with a document ε."""
    points = {view: benchmark_points(frame, view, classifier) for view in views}
    views = [v for v in views if points[v]["document_epsilon"].notna().sum() >= 2]
    if not views:
        return False
    plt = pyplot()
    methods = list(
        dict.fromkeys(m for v in views for m in points[v].loc[points[v]["document_epsilon"].notna(), "method"])
    )
    styles = dict(zip(methods, series_styles(len(methods))))
    fig, axes = plt.subplots(2, len(views), figsize=(3.6 * len(views) + 1.8, 6.2), squeeze=False, sharex=True)
    for column, view in enumerate(views):
        table = points[view]
        reference = table[table["method"] == REFERENCE]
        for row, (value, label) in enumerate(
            (("utility", table["utility_name"].iloc[0]), ("privacy", "worst-case attack F1 ↓"))
        ):
            axis = axes[row][column]
            for method in methods:
                part = table[(table["method"] == method) & table["document_epsilon"].notna()].sort_values(
                    "document_epsilon"
                )
                if part.empty:
                    continue
                colour, marker = styles[method]
                axis.plot(part["document_epsilon"], part[value], color=colour, marker=marker, label=method)
                if value == "utility" and part["utility_retrained"].notna().any():
                    axis.plot(
                        part["document_epsilon"],
                        part["utility_retrained"],
                        color=colour,
                        marker=marker,
                        linestyle=":",
                        alpha=0.7,
                        label=f"{method} (retrained)",
                    )
            if not reference.empty:
                axis.axhline(
                    reference[value].iloc[0],
                    color="black",
                    linestyle="--",
                    linewidth=1,
                    label="original (no protection)",
                )
            axis.set_xscale("log")
            axis.grid(alpha=0.3)
            if column == 0 or value == "utility":  # each scenario has its own utility task
                axis.set_ylabel(label + (" ↑" if value == "utility" else ""), fontsize=9)
            if row == 0:
                axis.set_title(view, fontsize=10)
            else:
                axis.set_xlabel("document-level ε (log scale)")
    legend_outside(fig, axes[0][-1])
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True
