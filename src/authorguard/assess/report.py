"""The assessment as a data owner reads it: report.md, a self-contained report.html with the privacy-utility front,
and the exact command that applies the recommendation."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pandas as pd

from authorguard.data.io import atomic_write
from authorguard.experiments.figures import pyplot, series_styles
from authorguard.experiments.pages import Figure, html_page, markdown_table


def _pct(value) -> str:
    return "–" if value is None or value != value else f"{value:.0%}"


def _num(value, digits: int = 2) -> str:
    return "–" if value is None or value != value else f"{value:.{digits}f}"


def apply_command(assessment: dict, output: Path) -> str | None:
    """The command that applies the recommended setting to the whole input (writes ``recommended.toml`` beside the
    report when the setting has parameters a flag does not carry)."""
    recommendation = assessment["recommendation"]
    if recommendation["choice"] is None:
        return None
    options, name = assessment["options"], recommendation["method_name"]
    params = dict(recommendation["params"] or {})
    fields = f" --text-field {shlex.quote(options['text_field'])}"
    if options.get("id_field"):
        fields += f" --id-field {shlex.quote(options['id_field'])}"
    source = shlex.quote(assessment["input"])
    if name == "synth":
        labelled = f" --author-field {shlex.quote(options['author_field'])} --label-field "
        labelled += shlex.quote(options["label_field"])
        text = f" --text-field {shlex.quote(options['text_field'])}"
        return f"authorguard synth {source}{labelled} --epsilon {params['epsilon']:g}{text} -o release.jsonl"
    if name == "syntf":
        config = output / "recommended.toml"
        with atomic_write(config) as handle:
            handle.write("".join(f"{k} = {json.dumps(v)}\n" for k, v in sorted(params.items())))
        return f"authorguard anonymize --method syntf --config {shlex.quote(str(config))}{fields} {source} released/"
    flags = ""
    if "epsilon" in params:
        flags += f" --epsilon {params.pop('epsilon'):g}"
    if params:
        config = output / "recommended.toml"
        with atomic_write(config) as handle:
            handle.write("".join(f"{k} = {json.dumps(v)}\n" for k, v in sorted(params.items())))
        flags += f" --config {shlex.quote(str(config))}"
    return f"authorguard obfuscate {source} -o rewritten.jsonl --method {name}{flags}{fields}"


def _tables(assessment: dict) -> dict[str, pd.DataFrame]:
    """The report's tables: the corpus, the plan, the audit, the methods and the floors."""
    return {
        "profile": _profile_table(assessment["profile"]),
        "plan": _plan_table(assessment),
        "audit": _audit_table(assessment),
        "methods": pd.DataFrame([_method_row(r, assessment) for r in assessment["results"]]),
        "floors": _floors_table(assessment),
    }


def _profile_table(profile: dict) -> pd.DataFrame:
    """The corpus as read: documents, authors, lengths, labels."""
    return pd.DataFrame(
        [
            {
                "": "documents",
                "value": f"{profile['documents']:,} ({profile['without_author']} without author, "
                f"{profile['empty_texts']} empty)",
            },
            {
                "": "authors",
                "value": f"{profile['authors']:,} ({profile['usable_authors']} with ≥ 3 documents: "
                f"{profile['usable_documents']:,} documents)",
            },
            {
                "": "words per document",
                "value": f"min {profile['words_min']}, median {profile['words_median']:.0f}, mean "
                f"{profile['words_mean']:.0f}, max {profile['words_max']}",
            },
            {
                "": "documents per author",
                "value": f"min {profile['documents_per_author_min']}, median "
                f"{profile['documents_per_author_median']:.0f}, max {profile['documents_per_author_max']}",
            },
            {"": "labels", "value": "none" if profile["labels"] is None else f"{profile['labels']} classes"},
        ]
    )


def _plan_table(assessment: dict) -> pd.DataFrame:
    """What was measured, what was left out and why, the time it took."""
    plan = assessment["plan"]
    cap = plan["per_author_cap"]
    return pd.DataFrame(
        [
            {
                "": "measured on",
                "value": f"{plan['documents']:,} documents of {plan['authors']} authors"
                + (f" (at most {cap} per author, chosen at random)" if cap else " (all usable documents)")
                + f"; split within each author: {assessment['split']['train']} train / {assessment['split']['test']} "
                "test",
            },
            {
                "": "attackers",
                "value": ", ".join(plan["attackers"])
                + " — each under the static, augmented and adversarial threat models",
            },
            {"": "methods", "value": ", ".join(assessment["measured"]) or "none"},
            *({"": f"left out: {k}", "value": v} for k, v in assessment["left_out"].items()),
            *({"": f"not recommended: {k}", "value": v} for k, v in assessment["not_recommended"].items()),
            *(
                [
                    {
                        "": "the task on the original",
                        "value": f"{_pct(assessment['task_accuracy'])} accuracy (majority class "
                        f"{_pct(assessment.get('task_majority'))}) on {assessment['split']['test']} test documents, "
                        "SVM",
                    }
                ]
                if assessment.get("task_accuracy") is not None
                else []
            ),
            {
                "": "time",
                "value": f"estimated {plan['estimated_seconds'] / 60:.1f} min; measured "
                f"{assessment['cells_seconds'] / 60:.1f} min in cells, "
                f"{assessment['seconds'] / 60:.1f} min this run (finished cells are reused)",
            },
        ]
    )


def _audit_table(assessment: dict) -> pd.DataFrame:
    """Each attacker's accuracy on the original, strongest first, beside chance."""
    n_test = assessment["split"]["test"]
    return pd.DataFrame(
        [
            {
                "attacker": attacker,
                "accuracy": _pct(v["accuracy"]),
                "95 % CI": f"{_pct(v['interval'][0])}–{_pct(v['interval'][1])}",
                "test documents": n_test,
            }
            for attacker, v in sorted(assessment["audit"].items(), key=lambda kv: -kv[1]["accuracy"])
        ]
        + [
            {
                "attacker": "chance (always the most frequent author)",
                "accuracy": _pct(assessment["chance"]),
                "95 % CI": "",
                "test documents": n_test,
            }
        ]
    )


def _method_row(r: dict, assessment: dict) -> dict:
    """One measured setting as the methods table shows it: privacy by threat model, utility, fidelity, cost."""
    plan = assessment["plan"]
    return {
        "method": r["method"],
        "worst-case accuracy "
        "↓": f"{_pct(r['worst_accuracy'])} ({_pct(r['worst_interval'][0])}–{_pct(r['worst_interval'][1])})",
        "strongest attack": r["worst_attack"],
        **{f"{t} ↓": _pct(r["worst_by_threat"].get(t)) for t in ("static", "augmented", "adversarial")},
        "utility ↑": "not measured" if r["utility"] is None else _num(r["utility"]),
        "task accuracy": _pct(r["task_accuracy"]) if r["task_accuracy"] is not None else "–",
        "faithful (meter)": _pct(r.get("faithful")) if r.get("faithful") is not None else "–",
        "generalised (meter)": _pct(r.get("generalised")) if r.get("generalised") is not None else "–",
        "words kept": _pct(r.get("words_kept")) if r.get("words_kept") is not None else "–",
        "unsure (meter)": _pct(r.get("unsure")) if r.get("unsure") is not None else "–",
        "METEOR": _num(r["meteor"]),
        "MiniLM cos": _num(r["embedding_cosine"]),
        "detector F1": _num(r["detector_f1"]),
        "flagged records": "–" if r["flagged_records"] is None else r["flagged_records"],
        "seconds (estimated)": f"{r['seconds']:.0f} ({_num(plan.get('cell_estimates', {}).get(r['method']), 0)})",
        "on the front": "yes"
        if r["method"] in assessment["front"]
        else "no: not measured"
        if r["utility"] is None
        else "no: " + ("fidelity" if "fidelity" in assessment["not_recommended"][r["method"]] else "gate")
        if r["method"] in assessment["not_recommended"]
        else "",
    }


def _floors_table(assessment: dict) -> pd.DataFrame:
    """What an attacker identifies from each view of the text any rewrite keeps."""
    return pd.DataFrame(
        [
            {
                "what the attacker sees": f"{f['floor']}: {f['view']}" if f["floor"] != "meaning floor" else f["view"],
                "worst-case accuracy": f"{_pct(f['worst_accuracy'])} "
                f"({_pct(f['worst_interval'][0])}–{_pct(f['worst_interval'][1])})",
                "strongest attack": f["worst_attack"],
                "share of the identification kept": "–" if f["share_kept"] is None else _pct(f["share_kept"]),
            }
            for f in assessment.get("floors", [])
        ]
    )


def floors_text(assessment: dict) -> str:
    """What the floors say, in words: how much of the identifiability any meaning-preserving rewrite must leave."""
    floors = {f["floor"]: f for f in assessment.get("floors", [])}
    content = next((f for name, f in floors.items() if f["view"] == "content"), None)
    if content is None or content["share_kept"] is None:
        return ""
    text = (
        "An attacker retrained on the content words alone (the content floor) still names "
        f"{_pct(content['worst_accuracy'])} "
        f"of the authors: {_pct(content['share_kept'])} of what it gets from the original above chance. A rewrite that "
        "keeps the content words cannot hide the authors better than that; only one that also changes which words "
        "carry the meaning can go lower"
    )
    meaning = floors.get("meaning floor")
    if meaning is not None:
        text += f", towards the meaning floor ({_pct(meaning['worst_accuracy'])}: what the meaning alone tells)"
    return text + "."


def _plotted(assessment: dict) -> list[dict]:
    """The settings the front figure shows as points: those with a measured worst case and utility (the floors are
    drawn as lines)."""
    floors = {f["floor"] for f in assessment.get("floors", [])}
    return [
        r
        for r in assessment["results"]
        if r["utility"] is not None and r["worst_accuracy"] == r["worst_accuracy"] and r["method"] not in floors
    ]


def label_groups(points: list[tuple[float, str]], min_gap: float = 0.03) -> list[tuple[float, list[str]]]:
    """Labels at x positions (axis units) gathered so that none is printed over another: points closer than
    ``min_gap`` to their neighbour share one label at the group's first position, their names joined in order."""
    groups: list[tuple[float, list[str]]] = []
    last = None
    for position, name in sorted(points):
        if last is not None and position - last < min_gap:
            groups[-1][1].append(name)
        else:
            groups.append((position, [name]))
        last = position
    return groups


def _front_figure(assessment: dict, path: Path) -> None:
    plt = pyplot()
    results = _plotted(assessment)
    fig, axis = plt.subplots(figsize=(8.5, 4.8))
    for r, (colour, marker) in zip(results, series_styles(len(results))):
        lo, hi = r["worst_interval"]
        axis.errorbar(
            [r["worst_accuracy"]],
            [r["utility"]],
            xerr=[[r["worst_accuracy"] - lo], [hi - r["worst_accuracy"]]],
            fmt=marker,
            color=colour,
            label=r["method"],
            capsize=3,
            markersize=8,
        )
    on_front = sorted((r for r in results if r["method"] in assessment["front"]), key=lambda r: r["worst_accuracy"])
    axis.plot(
        [r["worst_accuracy"] for r in on_front], [r["utility"] for r in on_front], color="grey", linewidth=1, zorder=0
    )
    axis.axvline(assessment["chance"], color="grey", linestyle=":", linewidth=1)
    floors = assessment.get("floors", [])
    for floor in floors:  # no meaning-preserving rewrite goes left of its floor
        axis.axvline(floor["worst_accuracy"], color="darkgreen", linestyle="--", linewidth=1)
    for position, names in label_groups([(f["worst_accuracy"], f["floor"]) for f in floors]):
        axis.annotate(
            ", ".join(names),
            (position, 0.97),
            fontsize=7,
            color="darkgreen",
            rotation=90,
            xycoords=("data", "axes fraction"),
            xytext=(-9, 0),
            textcoords="offset points",
            va="top",
        )
    axis.annotate("chance", (assessment["chance"], 0.02), fontsize=8, color="grey", xycoords=("data", "axes fraction"))
    axis.axhline(assessment["options"]["min_utility"], color="firebrick", linestyle="--", linewidth=1)
    axis.annotate(
        "utility floor",
        (0.01, assessment["options"]["min_utility"]),
        fontsize=8,
        color="firebrick",
        xycoords=("axes fraction", "data"),
        xytext=(0, 3),
        textcoords="offset points",
    )
    axis.set_xlabel("worst-case attribution accuracy over attackers and threat models (lower is better), 95 % CI")
    axis.set_ylabel(results[0]["utility_name"].split(" (")[0] + " (higher is better)", fontsize=9)
    axis.set_xlim(0, 1.02)
    axis.set_ylim(0, max(1.05, max((r["utility"] for r in results), default=1.0) + 0.05))
    handles, labels = axis.get_legend_handles_labels()
    axis.legend(
        handles, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0, frameon=False
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def write_report(assessment: dict, output: Path) -> dict[str, Path]:
    """``report.md``, ``report.html`` (figure embedded) and ``figures/front.png`` in ``output``."""
    (output / "figures").mkdir(parents=True, exist_ok=True)
    tables = _tables(assessment)
    command = apply_command(assessment, output)
    _front_figure(assessment, output / "figures" / "front.png")
    options = assessment["options"]
    made_by = (
        "`authorguard assess "
        + " ".join(
            shlex.quote(x)
            for x in [assessment["input"], "--author-field", options["author_field"]]
            + (["--label-field", options["label_field"]] if options["label_field"] else [])
            + [
                "--budget-minutes",
                f"{options['budget_minutes']:g}",
                "--min-utility",
                f"{options['min_utility']:g}",
                "--seed",
                str(options["seed"]),
            ]
        )
        + "`"
    )
    recommendation = assessment["recommendation"]
    verdict = (
        f"**Recommended: {recommendation['choice']}.** " if recommendation["choice"] else "**No recommendation.** "
    ) + recommendation["reason"]
    apply = f"Apply it to the whole input: `{command}`" if command else ""
    utility_name = assessment["results"][0]["utility_name"]
    intro = (
        f"{verdict} {apply + ' ' if apply else ''}Utility is the {utility_name}; the floor is "
        f"{options['min_utility']:g} (--min-utility). "
        f"Every accuracy is the share of {assessment['split']['test']} test documents whose author was named, with a "
        f"95 % Wilson interval; the worst case is the largest over every attacker and threat model, so it is biased "
        f"upwards a little. Made by {made_by}."
    )
    title = f"authorguard assess: {Path(assessment['input']).name}"
    sections = [
        ("profile", "The data", tables["profile"]),
        ("plan", "What was measured", tables["plan"]),
        ("audit", "Risk: attribution of the original text", tables["audit"]),
        (
            "methods",
            "Methods: worst case over attackers and threat models, utility, content, detectability",
            tables["methods"],
        ),
    ]
    if not tables["floors"].empty:
        sections.append(("floors", "How much of the identifiability is content (the floors)", tables["floors"]))
    unplotted = [r["method"] for r in assessment["results"] if r not in _plotted(assessment)]
    figure = Figure(
        "front",
        "Privacy–utility front",
        "Each method setting at its worst-case attribution accuracy (95 % CI) and the utility it keeps; the grey "
        "line joins the settings on the front (no other beats them on both; a setting whose records the "
        "validity gate mostly flagged is never on it); dashed green lines: the floors (each view released as it "
        "is, and the meaning attacker on the original)."
        + (f" Not shown (utility not measured): {', '.join(unplotted)}." if unplotted else "")
        + f" Made by {made_by}.",
    )
    floors = floors_text(assessment)
    if floors:
        intro += " " + floors
    markdown = [f"# {title}", "", assessment["headline"], "", intro, ""]
    for _, heading, table in sections:
        markdown += [f"## {heading}", "", markdown_table(table), ""]
    markdown += [f"## {figure.title}", "", "![front](figures/front.png)", "", figure.caption, ""]
    paths = {"markdown": output / "report.md", "html": output / "report.html"}
    with atomic_write(paths["markdown"]) as handle:
        handle.write("\n".join(markdown))
    with atomic_write(paths["html"]) as handle:
        handle.write(html_page(title, f"**{assessment['headline']}** {intro}", sections, [figure], output / "figures"))
    return paths
