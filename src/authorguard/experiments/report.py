"""``authorguard report``: Markdown and self-contained HTML with matplotlib figures from a results table.

Contents: the paper's Table 3 per scenario (utility F1, attack F1 and gain, mean +- sd over runs, at each
method's best setting p-hat), the grid (every setting with epsilon, l, l*n, betas and the minimum gain over
scenarios), and figures: utility and attack F1 per method and scenario; gain against epsilon with l*n on a
second axis; the effect of the bigram weight s. For each text-benchmark view: which differences are real
(:mod:`~authorguard.experiments.comparison`), the summary and per-attack tables, the scatter. Each figure is
captioned with the commands that made it. The figures are drawn by :mod:`~authorguard.experiments.figures`, the
pages written by :mod:`~authorguard.experiments.pages`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from authorguard.data.io import atomic_write
from authorguard.experiments.comparison import comparison_table
from authorguard.experiments.figures import (
    effect_of_s_figure,
    epsilon_figure,
    f1_figure,
    gain_epsilon_figure,
    scatter_figure,
)
from authorguard.experiments.pages import Figure, html_page, markdown_table
from authorguard.experiments.results import (
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
    f1_figure(frame, chosen, options.classifier, output / "figures" / "f1_by_scenario.png")
    if gain_epsilon_figure(summary, output / "figures" / "gain_vs_epsilon.png"):
        figures.append(
            Figure(
                "gain_vs_epsilon",
                "Gain against epsilon, l·n on the top axis",
                f"Attack: {options.attacker}, {options.threat_model}, {options.classifier}. Made by {made_by}.",
            )
        )
    if effect_of_s_figure(summary, output / "figures" / "effect_of_s.png"):
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
    scatter_figure(benchmark_points(frame, view, options.classifier), view, output / "figures" / f"{name}.png")
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
    if epsilon_figure(frame, benchmark_views, options.classifier, output / "figures" / "epsilon.png"):
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
