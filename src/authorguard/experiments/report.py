"""``authorguard report``: Markdown and self-contained HTML with matplotlib figures from a results table.

Contents: the paper's Table 3 per scenario (utility F1, attack F1 and gain, mean +- sd over runs, at each
method's best setting p-hat), the grid (every setting with epsilon, l, l*n, betas and the minimum gain over
scenarios), and figures: utility and attack F1 per method and scenario; gain against epsilon with l*n on a
second axis; the effect of the bigram weight s. Each figure is captioned with the commands that made it.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from authorguard.data.io import atomic_write
from authorguard.experiments.comparison import comparison_table
from authorguard.experiments.results import (
    FLOOR_PREFIX,
    REFERENCE,
    attack_matrix,
    benchmark_points,
    benchmark_table,
    best_settings,
    gains,
    select_attack,
    setting_summary,
    table3,
)
from authorguard.experiments.runner import EXPERIMENT_JSON, read_results


@dataclass(frozen=True)
class ReportOptions:
    """Which attack the selection, the tables and the gain figures use (all attacks are in the F1 figure)."""

    attacker: str = "writeprints"
    threat_model: str = "adversarial"
    classifier: str = "svm"


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    caption: str


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

    colours = list(matplotlib.colormaps["tab10"].colors)
    colours += [c for i, c in enumerate(matplotlib.colormaps["tab20"].colors) if i % 2 == 1]
    if n > len(colours):
        colours += [matplotlib.colormaps["hsv"](i / (n - len(colours) + 1)) for i in range(n - len(colours))]
    return [(tuple(colours[i]), _MARKERS[i % len(_MARKERS)]) for i in range(n)]


def _legend_outside(fig, axis, handles=None, labels=None) -> None:
    """The legend to the right of the plotting area, never over the data."""
    handles, labels = (handles, labels) if handles is not None else axis.get_legend_handles_labels()
    if handles:
        axis.legend(
            handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False
        )


def _f1_figure(frame: pd.DataFrame, chosen: dict[str, str], options: ReportOptions, path: Path) -> None:
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
        part = g[(g["method"] == method) & (g["params"] == chosen[method]) & (g["classifier"] == options.classifier)]
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
                    & (g["classifier"] == options.classifier)
                    & ((g["threat_model"] == threat) | (g["method_name"] == REFERENCE))
                ]
                means.append(part["attack_f1"].mean())
                sds.append(part["attack_f1"].std(ddof=1) if len(part) > 1 else 0)
            axis.bar(np.arange(len(attacks)) + i * width, means, width, yerr=sds, color=styles[i][0])
        axis.set_xticks(np.arange(len(attacks)) + width * (len(methods) - 1) / 2)
        axis.set_xticklabels([f"{a}\n{t}" for a, t in attacks], fontsize=7, rotation=60, ha="right")
        axis.set_title(f"attack F1 ↓, {scenario}", fontsize=9)
    axes[0][0].set_title(f"utility F1 ↑ ({options.classifier})", fontsize=9)
    fig.tight_layout()
    _legend_outside(fig, axes[0][-1], *axes[0][0].get_legend_handles_labels())
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _grid_parameter(summary: pd.DataFrame, name: str) -> pd.Series:
    return summary["params"].map(lambda p: json.loads(p).get(name))


def _gain_epsilon_figure(summary: pd.DataFrame, path: Path) -> bool:
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
    _legend_outside(fig, axis)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def _effect_of_s_figure(summary: pd.DataFrame, path: Path) -> bool:
    """beta_U, beta_A and the gain against s, one panel per group of settings that differ only in s (and in
    the epsilon calibrated to a common target loss)."""
    plt = pyplot()
    data = summary.copy()
    data["s"] = _grid_parameter(data, "bigram_weight")
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
    _legend_outside(fig, axes[0][-1], *axes[0][0].get_legend_handles_labels())
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def _scatter_figure(points: pd.DataFrame, view: str, path: Path) -> None:
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
    _legend_outside(fig, axis)
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def _epsilon_figure(frame: pd.DataFrame, views: list[str], classifier: str, path: Path) -> bool:
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
    _legend_outside(fig, axes[0][-1])
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return True


def markdown_table(frame: pd.DataFrame) -> str:
    columns = list(frame.columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(" --- " for _ in columns) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _grid_table(summary: pd.DataFrame) -> pd.DataFrame:
    out = summary.copy()
    for column in ("min_gain", "mean_beta_u", "mean_beta_a"):
        out[column] = out[column].map(lambda v: f"{v:.3f}")
    for column in ("epsilon", "loss_per_word", "total_loss"):
        out[column] = out[column].map(lambda v: "–" if pd.isna(v) else f"{v:.4g}")
    out["params"] = out["params"].map(lambda p: ", ".join(f"{k}={v}" for k, v in json.loads(p).items()) or "–")
    return out.rename(
        columns={
            "loss_per_word": "l per word",
            "total_loss": "l·n",
            "min_gain": "min gain",
            "mean_beta_u": "beta_U",
            "mean_beta_a": "beta_A",
        }
    )[["method", "params", "epsilon", "l per word", "l·n", "beta_U", "beta_A", "min gain"]]


def _dataset_sections(
    frame: pd.DataFrame, options: ReportOptions, output: Path, made_by: str, sections: list, figures: list[Figure]
) -> None:
    """The SynTF paper's view of a dataset with Top-k scenarios: Table 3, every attack, the grid, gain figures."""
    selected = select_attack(gains(frame), options.attacker, options.threat_model, options.classifier)
    summary = setting_summary(selected)
    chosen = best_settings(selected)
    figures.append(
        Figure(
            "f1_by_scenario",
            "Utility and attack F1 per method and scenario",
            f"Mean ± sd over runs, {options.classifier}; each method at its best setting. Made by {made_by}.",
        )
    )
    _f1_figure(frame, chosen, options, output / "figures" / "f1_by_scenario.png")
    if _gain_epsilon_figure(summary, output / "figures" / "gain_vs_epsilon.png"):
        figures.append(
            Figure(
                "gain_vs_epsilon",
                "Gain against epsilon, l·n on the top axis",
                f"Attack: {options.attacker}, {options.threat_model}, {options.classifier}. Made by {made_by}.",
            )
        )
    if _effect_of_s_figure(summary, output / "figures" / "effect_of_s.png"):
        figures.append(
            Figure(
                "effect_of_s",
                "Effect of the bigram weight s",
                f"Attack: {options.attacker}, {options.threat_model}, {options.classifier}. Made by {made_by}.",
            )
        )
    for scenario in sorted(selected["scenario"].unique()):
        sections.append(
            (
                "table",
                f"Table 3, {scenario}",
                table3(frame, scenario, options.attacker, options.threat_model, options.classifier, chosen),
            )
        )
        sections.append(
            (
                "table",
                f"Every attack, {scenario} (F1; for original both threat models are one attack)",
                attack_matrix(frame, scenario, chosen),
            )
        )
    sections.append(
        ("table", "Every setting (min over scenarios of the mean gain; the best per method is p̂)", _grid_table(summary))
    )


def _benchmark_sections(
    frame: pd.DataFrame,
    view: str,
    options: ReportOptions,
    output: Path,
    made_by: str,
    sections: list,
    figures: list[Figure],
) -> None:
    """One text-benchmark view: its table (utility ↑, attacks ↓, worst case ↓, content ↑, detector) and scatter."""
    sections.append(
        (
            "table",
            f"{view}: worst-case attribution accuracy ↓ with its 95 % interval and the scale it was measured at; "
            f"Δ: the paired difference from the original on the same test documents (bootstrap 95 % interval, "
            f"exact McNemar p; real when p < 0.05)",
            comparison_table(frame, view, classifier=options.classifier),
        )
    )
    sections.append(
        (
            "table",
            f"{view}: utility ↑, worst-case attack F1 ↓ (strongest attacker / threat model), content ↑, "
            f"detector F1 ↓ (0.5 = undetectable), LM perplexity (fluency, ↓ reads more naturally)",
            benchmark_table(frame, view, classifier=options.classifier, part_name="summary"),
        )
    )
    sections.append(
        (
            "table",
            f"{view}: attack F1 ↓ per attacker and threat model",
            benchmark_table(frame, view, classifier=options.classifier, part_name="attacks"),
        )
    )
    reports = _method_reports(frame, view)
    if not reports.empty:
        sections.append(
            (
                "table",
                f"{view}: what each rewriting method did (its release report: chunks rewritten, "
                f"empty rewrites, tokens generated, tokens/s)",
                reports,
            )
        )
    name = f"scatter_{re.sub(r'[^A-Za-z0-9]+', '_', view)}"
    _scatter_figure(benchmark_points(frame, view, options.classifier), view, output / "figures" / f"{name}.png")
    figures.append(
        Figure(
            name,
            f"{view}: privacy against utility",
            f"One point per method setting; x: the strongest attack's F1 ({options.classifier}), y: utility; "
            f"a dashed line marks each floor (a style-free view released as it is: no method that keeps "
            f"what it keeps goes left of it). Made by {made_by}.",
        )
    )


def _method_reports(frame: pd.DataFrame, view: str) -> pd.DataFrame:
    """One row per (method, run) of ``view`` whose method reported something (``method_report`` column)."""
    if "method_report" not in frame:
        return pd.DataFrame()
    rows = {}
    for _, row in frame[frame["view"] == view].iterrows():
        report = (
            json.loads(row["method_report"]) if isinstance(row["method_report"], str) and row["method_report"] else {}
        )
        if report:
            rows[(row["method"], row["run"])] = {"method": row["method"], "run": row["run"], **report}
    return pd.DataFrame(list(rows.values()))


def build_report(
    results: str | os.PathLike,
    output_dir: str | os.PathLike,
    options: ReportOptions = ReportOptions(),
    command: str | None = None,
) -> dict[str, Path]:
    """Write ``report.md``, ``report.html`` (figures embedded) and ``figures/*.png`` to ``output_dir``."""
    frame = read_results(results)
    output = Path(output_dir)
    (output / "figures").mkdir(parents=True, exist_ok=True)
    run_dir = Path(results) if Path(results).is_dir() else Path(results).parent
    experiment = (
        json.loads((run_dir / EXPERIMENT_JSON).read_text(encoding="utf-8"))
        if (run_dir / EXPERIMENT_JSON).exists()
        else {}
    )
    run_command = " ".join(experiment.get("command", [])) or "(unknown: no experiment.json beside the results)"
    report_command = command or f"authorguard report {results} -o {output_dir}"
    made_by = f"`{run_command}` then `{report_command}`"

    figures: list[Figure] = []
    sections: list[tuple[str, str, pd.DataFrame | Figure]] = []
    dataset_rows = frame[frame["view"] == "all"]
    if not dataset_rows.empty:
        _dataset_sections(dataset_rows, options, output, made_by, sections, figures)
    benchmark_views = [v for v in dict.fromkeys(frame["view"]) if v != "all"]
    for view in benchmark_views:
        _benchmark_sections(frame, view, options, output, made_by, sections, figures)
    if _epsilon_figure(frame, benchmark_views, options.classifier, output / "figures" / "epsilon.png"):
        figures.append(
            Figure(
                "epsilon",
                "Privacy and utility against the document-level ε",
                f"Methods with a guarantee, each setting at the ε one document's release costs (SynTF: l·n; "
                f"DP-Prompt: m · ε_token); {options.classifier}. Made by {made_by}.",
            )
        )
    title = f"authorguard report: {experiment.get('config', {}).get('name', Path(results).name)}"
    selection = (
        f"Attack used for the selection and tables: **{options.attacker}**, threat model "
        f"**{options.threat_model}**, classifier **{options.classifier}**. "
        if not dataset_rows.empty
        else ""
    )
    benchmark = (
        f"Benchmark tables: macro F1 of classifier **{options.classifier}**, mean ± sd over runs; ↑ higher is better, "
        f"↓ lower is better. "
        if (frame["view"] != "all").any()
        else ""
    )
    intro = f"{selection}{benchmark}Runs: {frame['run'].nunique()}. Results: `{results}`. Made by {made_by}."
    markdown = [f"# {title}", "", intro, ""]
    for _, heading, table in sections:
        markdown += [f"## {heading}", "", markdown_table(table), ""]
    for figure in figures:
        markdown += [f"## {figure.title}", "", f"![{figure.title}](figures/{figure.name}.png)", "", figure.caption, ""]
    paths = {"markdown": output / "report.md", "html": output / "report.html"}
    with atomic_write(paths["markdown"]) as handle:
        handle.write("\n".join(markdown))
    with atomic_write(paths["html"]) as handle:
        handle.write(html_page(title, intro, sections, figures, output / "figures"))
    return paths


_STYLE = (
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
    "table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #bbb;padding:3px 8px}"
    "th{background:#eee}img{max-width:100%;border:1px solid #ddd}figcaption{font-size:13px;color:#555}"
)
# After load, the page records how many of its figures decoded: headless checks read it from the DOM.
_CHECK_SCRIPT = (
    "window.addEventListener('load',function(){var i=document.querySelectorAll('img.figure');var n=0;"
    "i.forEach(function(x){if(x.complete&&x.naturalWidth>0){n++;}});"
    "document.body.setAttribute('data-figures-loaded',n+'/'+i.length);});"
)


def _inline(text: str) -> str:
    """Markdown's **bold** and `code` in an escaped line, for the intro paragraph."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", escaped)


def html_page(title: str, intro: str, sections, figures: list[Figure], figure_dir: Path) -> str:
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1><p>{_inline(intro)}</p>",
    ]
    for _, heading, table in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.append(table.to_html(index=False, escape=True, border=0))
    for figure in figures:
        data = base64.b64encode((figure_dir / f"{figure.name}.png").read_bytes()).decode("ascii")
        parts.append(
            f"<figure><h2>{html.escape(figure.title)}</h2><img class='figure' alt='{html.escape(figure.title)}' "
            f"src='data:image/png;base64,{data}'><figcaption>{_inline(figure.caption)}</figcaption></figure>"
        )
    parts.append(f"<script>{_CHECK_SCRIPT}</script></body></html>")
    return "".join(parts)


def find_chromium() -> str | None:
    """The headless browser: ``chromium`` (Debian), ``chromium-browser`` or ``google-chrome`` on PATH."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def check_html_in_chromium(
    path: str | os.PathLike, screenshot: str | os.PathLike | None = None, timeout: float = 120
) -> tuple[int, int]:
    """Render ``path`` in headless Chromium; (figures decoded, figures on the page). Optionally saves a PNG."""
    browser = find_chromium()
    if browser is None:
        raise FileNotFoundError("no headless Chromium on PATH (Debian: apt-get install chromium)")
    url = Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory() as profile:
        flags = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=10000",
        ]
        dom = subprocess.run(
            flags + ["--dump-dom", url], capture_output=True, text=True, timeout=timeout, check=True
        ).stdout
        if screenshot is not None:
            subprocess.run(
                flags + [f"--screenshot={Path(screenshot).resolve()}", "--window-size=1280,2400", url],
                capture_output=True,
                timeout=timeout,
                check=True,
            )
    match = re.search(r'data-figures-loaded="(\d+)/(\d+)"', dom)
    if not match:
        raise RuntimeError(f"{path}: the page did not finish loading in Chromium")
    return int(match.group(1)), int(match.group(2))
