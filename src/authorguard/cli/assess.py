"""``authorguard assess``: how identifiable are the authors of a corpus, and which method should protect it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import console, handle_errors, print_json, stdout

InputPath = Annotated[Path, typer.Argument(help="JSONL, CSV or Parquet file: one record per document.")]
OutputDir = Annotated[
    Path,
    typer.Option(
        "--output", "-o", help="Folder for report.html, report.md, assessment.json (and work/, the reusable cells)."
    ),
]
LabelField = Annotated[
    str | None,
    typer.Option(
        help="Field with the label of the task the data is shared for "
        "(its accuracy is the utility; otherwise meaning kept is)."
    ),
]
BudgetMinutes = Annotated[
    float,
    typer.Option(
        help="Time the measurements may take on this machine: picks how many documents and which methods fit."
    ),
]
MinUtility = Annotated[
    float,
    typer.Option(
        help="Utility floor of the recommendation: share of the original's task "
        "accuracy kept (with --label-field) or the meaning kept (without: MiniLM cosine, or METEOR without the "
        "minilm extra)."
    ),
]


@handle_errors
def assess(
    input: InputPath,
    output: OutputDir,
    author_field: Annotated[str, typer.Option(help="Field naming each document's author.")],
    label_field: LabelField = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    id_field: Annotated[
        str | None, typer.Option(help="Field holding the record id (default 'id', or positions).")
    ] = None,
    budget_minutes: BudgetMinutes = 20.0,
    min_utility: MinUtility = 0.8,
    max_authors: Annotated[int, typer.Option(help="Authors measured at most (the most prolific).")] = 50,
    seed: Annotated[int, typer.Option(help="Seed of the subsample, the split and the methods.")] = 0,
    check_render: Annotated[
        bool,
        typer.Option("--check-render", help="Render report.html in headless Chromium and check its figure decodes."),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print assessment.json's recommendation as JSON.")
    ] = False,
) -> None:
    """Audit the re-identification risk of INPUT's authors, evaluate protection methods under every threat model
    and recommend one, with the command that applies it. A second run with the same options reuses finished cells."""
    import sys

    from authorguard.assess.run import assess as run

    assessment = run(
        input,
        author_field=author_field,
        output_dir=output,
        label_field=label_field,
        text_field=text_field,
        id_field=id_field,
        budget_minutes=budget_minutes,
        min_utility=min_utility,
        max_authors=max_authors,
        seed=seed,
        show_progress="bar" if console.is_terminal else "lines",
        log=lambda line: console.print(line, highlight=False),
        command=sys.argv,
    )
    recommendation = assessment["recommendation"]
    if not json_output:  # the risk first, then the verdict
        verdict = f"recommended: {recommendation['choice']}" if recommendation["choice"] else "no recommendation"
        stdout.print(assessment["headline"], highlight=False)
        stdout.print(f"{verdict}. {recommendation['reason']}", highlight=False)
    if check_render:
        from authorguard.experiments.pages import check_html_in_chromium

        loaded, total = check_html_in_chromium(output / "report.html")
        (console if json_output else stdout).print(
            f"report.html rendered in Chromium: {loaded}/{total} figures decoded"
        )
    if json_output:
        print_json(recommendation)
        return
    stdout.print(f"report: {output / 'report.html'} ({output / 'report.md'}, {output / 'assessment.json'})")
