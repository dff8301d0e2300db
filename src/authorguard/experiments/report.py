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
from authorguard.experiments.results import REFERENCE, attack_matrix, best_settings, gains, select_attack, setting_summary, table3
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


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _f1_figure(frame: pd.DataFrame, chosen: dict[str, str], options: ReportOptions, path: Path) -> None:
    plt = _plt()
    g = gains(frame)
    scenarios = sorted(s for s in g["scenario"].unique())
    methods = list(chosen)
    attacks = [(a, t) for a in sorted(g["attacker"].unique()) for t in sorted(set(g["threat_model"]) - {"none"})]
    fig, axes = plt.subplots(1, len(scenarios) + 1, figsize=(3.2 * (len(scenarios) + 1), 3.6), sharey=True, squeeze=False)
    width = 0.8 / max(len(methods), 1)
    # utility: one bar per method, mean +- sd over runs
    axis = axes[0][0]
    for i, method in enumerate(methods):
        part = g[(g["method"] == method) & (g["params"] == chosen[method]) & (g["classifier"] == options.classifier)]
        per_run = part.groupby("run")["utility_f1"].first()
        axis.bar(i, per_run.mean(), yerr=per_run.std(ddof=1) if len(per_run) > 1 else 0, color=f"C{i}", label=method)
    axis.set_xticks([])
    axis.set_title(f"utility ({options.classifier})")
    axis.set_ylabel("F1 (macro)")
    axis.set_ylim(0, 1.05)
    for j, scenario in enumerate(scenarios, start=1):
        axis = axes[0][j]
        for i, method in enumerate(methods):
            means, sds = [], []
            for attacker, threat in attacks:
                part = g[(g["method"] == method) & (g["params"] == chosen[method]) & (g["scenario"] == scenario)
                         & (g["attacker"] == attacker) & (g["classifier"] == options.classifier)
                         & ((g["threat_model"] == threat) | (g["method_name"] == REFERENCE))]
                means.append(part["attack_f1"].mean())
                sds.append(part["attack_f1"].std(ddof=1) if len(part) > 1 else 0)
            axis.bar(np.arange(len(attacks)) + i * width, means, width, yerr=sds, color=f"C{i}")
        axis.set_xticks(np.arange(len(attacks)) + width * (len(methods) - 1) / 2)
        axis.set_xticklabels([f"{a}\n{t.replace('-train', '')}" for a, t in attacks], fontsize=7)
        axis.set_title(f"attack, {scenario}")
    axes[0][0].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _grid_parameter(summary: pd.DataFrame, name: str) -> pd.Series:
    return summary["params"].map(lambda p: json.loads(p).get(name))


def _gain_epsilon_figure(summary: pd.DataFrame, path: Path) -> bool:
    """min-over-scenarios gain against epsilon, one line per other setting; top axis l*n (of the first line)."""
    plt = _plt()
    data = summary.dropna(subset=["epsilon", "total_loss"]).copy()
    if data["epsilon"].nunique() < 2:
        return False
    data["others"] = data["params"].map(lambda p: json.dumps({k: v for k, v in json.loads(p).items()
                                                              if k not in ("epsilon", "target_loss")}, sort_keys=True))
    lines = [(others, part.sort_values("epsilon")) for others, part in data.groupby("others", sort=False)
             if part["epsilon"].nunique() >= 2]  # single points (other grids) are in the tables
    if not lines:
        return False
    fig, axis = plt.subplots(figsize=(7.5, 4.2))
    for i, (others, part) in enumerate(lines):
        label = ", ".join(f"{k}={v}" for k, v in json.loads(others).items()) or "SynTF"
        axis.plot(part["epsilon"], part["min_gain"], marker="o", color=f"C{i % 10}", label=label)
    axis.set_xlabel("epsilon (per word)")
    axis.set_ylabel("gain = beta_U - beta_A (min over scenarios)")
    axis.axhline(0, color="grey", linewidth=0.5)
    # l is close to linear in epsilon for a fixed vocabulary and s: the top axis uses the first line's fit
    first = lines[0][1]
    slope, intercept = np.polyfit(first["epsilon"].to_numpy(float), first["total_loss"].to_numpy(float), 1)
    top = axis.secondary_xaxis("top", functions=(lambda e: slope * e + intercept, lambda t: (t - intercept) / slope))
    top.set_xlabel("tight loss l·n per document (first line, linear fit)")
    from matplotlib.ticker import MaxNLocator

    top.xaxis.set_major_locator(MaxNLocator(6))
    axis.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _effect_of_s_figure(summary: pd.DataFrame, path: Path) -> bool:
    """beta_U, beta_A and the gain against s, one panel per group of settings that differ only in s (and in
    the epsilon calibrated to a common target loss)."""
    plt = _plt()
    data = summary.copy()
    data["s"] = _grid_parameter(data, "bigram_weight")
    data = data.dropna(subset=["s"])
    data["others"] = data["params"].map(lambda p: json.dumps({k: v for k, v in json.loads(p).items()
                                                              if k not in ("bigram_weight", "epsilon")}, sort_keys=True))
    groups = [(others, part.sort_values("s")) for others, part in data.groupby("others", sort=False) if part["s"].nunique() >= 2]
    if not groups:
        return False
    fig, axes = plt.subplots(1, len(groups), figsize=(5.2 * len(groups), 4.0), squeeze=False, sharey=True)
    for axis, (others, part) in zip(axes[0], groups):
        for column, label in (("min_gain", "gain (min over scenarios)"), ("mean_beta_u", "beta_U"), ("mean_beta_a", "beta_A")):
            axis.plot(part["s"], part[column], marker="o", label=label)
        for row in part.itertuples():
            axis.annotate(f"l·n={row.total_loss:.0f}", (row.s, row.min_gain), fontsize=7, textcoords="offset points", xytext=(0, 6))
        axis.set_xlabel("bigram weight s")
        axis.set_title(", ".join(f"{k}={v}" for k, v in json.loads(others).items()) or "SynTF", fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _markdown_table(frame: pd.DataFrame) -> str:
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
    return out.rename(columns={"loss_per_word": "l per word", "total_loss": "l·n", "min_gain": "min gain",
                               "mean_beta_u": "beta_U", "mean_beta_a": "beta_A"})[
        ["method", "params", "epsilon", "l per word", "l·n", "beta_U", "beta_A", "min gain"]]


def build_report(results: str | os.PathLike, output_dir: str | os.PathLike, options: ReportOptions = ReportOptions(),
                 command: str | None = None) -> dict[str, Path]:
    """Write ``report.md``, ``report.html`` (figures embedded) and ``figures/*.png`` to ``output_dir``."""
    frame = read_results(results)
    output = Path(output_dir)
    (output / "figures").mkdir(parents=True, exist_ok=True)
    run_dir = Path(results) if Path(results).is_dir() else Path(results).parent
    experiment = json.loads((run_dir / EXPERIMENT_JSON).read_text(encoding="utf-8")) if (run_dir / EXPERIMENT_JSON).exists() else {}
    run_command = " ".join(experiment.get("command", [])) or "(unknown: no experiment.json beside the results)"
    report_command = command or f"authorguard report {results} -o {output_dir}"
    made_by = f"`{run_command}` then `{report_command}`"

    selected = select_attack(gains(frame), options.attacker, options.threat_model, options.classifier)
    summary = setting_summary(selected)
    chosen = best_settings(selected)
    figures = [Figure("f1_by_scenario", "Utility and attack F1 per method and scenario",
                      f"Mean ± sd over runs, {options.classifier}; each method at its best setting. Made by {made_by}.")]
    _f1_figure(frame, chosen, options, output / "figures" / "f1_by_scenario.png")
    if _gain_epsilon_figure(summary, output / "figures" / "gain_vs_epsilon.png"):
        figures.append(Figure("gain_vs_epsilon", "Gain against epsilon, l·n on the top axis",
                              f"Attack: {options.attacker}, {options.threat_model}, {options.classifier}. Made by {made_by}."))
    if _effect_of_s_figure(summary, output / "figures" / "effect_of_s.png"):
        figures.append(Figure("effect_of_s", "Effect of the bigram weight s",
                              f"Attack: {options.attacker}, {options.threat_model}, {options.classifier}. Made by {made_by}."))

    sections: list[tuple[str, str, pd.DataFrame | Figure]] = []
    for scenario in sorted(selected["scenario"].unique()):
        sections.append(("table", f"Table 3, {scenario}", table3(frame, scenario, options.attacker, options.threat_model, options.classifier, chosen)))
        sections.append(("table", f"Every attack, {scenario} (F1; for original both threat models are one attack)",
                         attack_matrix(frame, scenario, chosen)))
    sections.append(("table", "Every setting (min over scenarios of the mean gain; the best per method is p̂)", _grid_table(summary)))
    title = f"authorguard report: {experiment.get('config', {}).get('name', Path(results).name)}"
    intro = (f"Attack used for the selection and tables: **{options.attacker}**, threat model **{options.threat_model}**, "
             f"classifier **{options.classifier}**. Runs: {frame['run'].nunique()}. Results: `{results}`. "
             f"Made by {made_by}.")
    markdown = [f"# {title}", "", intro, ""]
    for _, heading, table in sections:
        markdown += [f"## {heading}", "", _markdown_table(table), ""]
    for figure in figures:
        markdown += [f"## {figure.title}", "", f"![{figure.title}](figures/{figure.name}.png)", "", figure.caption, ""]
    paths = {"markdown": output / "report.md", "html": output / "report.html"}
    with atomic_write(paths["markdown"]) as handle:
        handle.write("\n".join(markdown))
    with atomic_write(paths["html"]) as handle:
        handle.write(_html(title, intro, sections, figures, output / "figures"))
    return paths


_STYLE = ("body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
          "table{border-collapse:collapse;margin:1em 0;font-size:14px}td,th{border:1px solid #bbb;padding:3px 8px}"
          "th{background:#eee}img{max-width:100%;border:1px solid #ddd}figcaption{font-size:13px;color:#555}")
# After load, the page records how many of its figures decoded: headless checks read it from the DOM.
_CHECK_SCRIPT = ("window.addEventListener('load',function(){var i=document.querySelectorAll('img.figure');var n=0;"
                 "i.forEach(function(x){if(x.complete&&x.naturalWidth>0){n++;}});"
                 "document.body.setAttribute('data-figures-loaded',n+'/'+i.length);});")


def _inline(text: str) -> str:
    """Markdown's **bold** and `code` in an escaped line, for the intro paragraph."""
    escaped = html.escape(text)
    escaped = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", escaped)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", escaped)


def _html(title: str, intro: str, sections, figures: list[Figure], figure_dir: Path) -> str:
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1><p>{_inline(intro)}</p>"]
    for _, heading, table in sections:
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        parts.append(table.to_html(index=False, escape=True, border=0))
    for figure in figures:
        data = base64.b64encode((figure_dir / f"{figure.name}.png").read_bytes()).decode("ascii")
        parts.append(f"<figure><h2>{html.escape(figure.title)}</h2><img class='figure' alt='{html.escape(figure.title)}' "
                     f"src='data:image/png;base64,{data}'><figcaption>{_inline(figure.caption)}</figcaption></figure>")
    parts.append(f"<script>{_CHECK_SCRIPT}</script></body></html>")
    return "".join(parts)


def find_chromium() -> str | None:
    """The headless browser: ``chromium`` (Debian), ``chromium-browser`` or ``google-chrome`` on PATH."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def check_html_in_chromium(path: str | os.PathLike, screenshot: str | os.PathLike | None = None, timeout: float = 120) -> tuple[int, int]:
    """Render ``path`` in headless Chromium; (figures decoded, figures on the page). Optionally saves a PNG."""
    browser = find_chromium()
    if browser is None:
        raise FileNotFoundError("no headless Chromium on PATH (Debian: apt-get install chromium)")
    url = Path(path).resolve().as_uri()
    with tempfile.TemporaryDirectory() as profile:
        flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--virtual-time-budget=10000"]
        dom = subprocess.run(flags + ["--dump-dom", url], capture_output=True, text=True, timeout=timeout, check=True).stdout
        if screenshot is not None:
            subprocess.run(flags + [f"--screenshot={Path(screenshot).resolve()}", "--window-size=1280,2400", url],
                           capture_output=True, timeout=timeout, check=True)
    match = re.search(r'data-figures-loaded="(\d+)/(\d+)"', dom)
    if not match:
        raise RuntimeError(f"{path}: the page did not finish loading in Chromium")
    return int(match.group(1)), int(match.group(2))
