"""``authorguard experiment run`` and ``authorguard report``: measure methods against attackers, then report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from authorguard.cli.common import console, handle_errors, set_data_dir, stdout

app = typer.Typer(
    help="Run experiments: methods x settings x runs, scored by the analyst and the attackers.", no_args_is_help=True
)


@app.command("run")
@handle_errors
def run(
    config: Annotated[Path, typer.Argument(help="Experiment config (.toml, .yaml); see docs/experiments.md.")],
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Run folder: results, cells, caches.")] = None,
    n_jobs: Annotated[
        int | None, typer.Option("--n-jobs", help="Processes (overrides the config; -1 = all cores).")
    ] = None,
    runs: Annotated[int | None, typer.Option("--runs", help="Runs per setting (overrides the config).")] = None,
    restart: Annotated[
        bool, typer.Option("--restart", help="Delete finished cells and caches in OUTPUT first.")
    ] = False,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data directory (default: AUTHORGUARD_DATA).")
    ] = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="local (N_JOBS processes here) or ray (a Ray task per preparation and cell; the same results).",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            help="With --engine ray: join the cluster at ADDR (e.g. 10.0.0.5:6379; OUTPUT must be on storage "
            "every node sees). Without it Ray starts locally with N_JOBS CPUs.",
        ),
    ] = None,
) -> None:
    """Run CONFIG (resuming an interrupted run in OUTPUT), write results.parquet/.csv and experiment.json."""
    import dataclasses

    from authorguard.experiments.config import load_config
    from authorguard.experiments.runner import RESULTS_PARQUET, run_experiment

    set_data_dir(data_dir)
    resolved = load_config(config)
    overrides: dict[str, Any] = {k: v for k, v in (("n_jobs", n_jobs), ("runs", runs)) if v is not None}
    if overrides:
        resolved = dataclasses.replace(resolved, **overrides)
    output = output or Path("runs") / resolved.name
    from authorguard.utils.extras import require_experiment

    require_experiment(resolved)  # a missing extra or weights: said before any work, with the fix
    if engine == "ray":
        from authorguard.utils.extras import require_extra

        require_extra("ray")
    frame = run_experiment(
        resolved,
        output,
        resume=not restart,
        show_progress="bar" if console.is_terminal else "lines",
        command=["authorguard", *sys.argv[1:]],
        engine=engine,
        address=address,
    )
    stdout.print(
        f"{len(frame)} result rows -> {output / RESULTS_PARQUET}; report: authorguard report {output} -o "
        f"{output / 'report'}",
        highlight=False,
    )


@handle_errors
def report(
    results: Annotated[Path, typer.Argument(help="A run folder, results.parquet or results.csv.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Report folder.")],
    attacker: Annotated[str, typer.Option(help="Attacker for the selection of p-hat and the tables.")] = "writeprints",
    threat_model: Annotated[
        str,
        typer.Option(help="static, augmented or adversarial (the attacker trains on originals, both, or releases)."),
    ] = "adversarial",
    classifier: Annotated[str, typer.Option(help="nb or svm.")] = "svm",
    check_render: Annotated[
        bool, typer.Option("--check-render", help="Render the HTML in headless Chromium and check its figures.")
    ] = False,
) -> None:
    """Write report.md, report.html (self-contained) and figures/ from experiment results."""
    from authorguard.experiments.pages import check_html_in_chromium
    from authorguard.experiments.report import ReportOptions, build_report

    options = ReportOptions(attacker=attacker, threat_model=threat_model, classifier=classifier)
    paths = build_report(results, output, options, command="authorguard " + " ".join(sys.argv[1:]))
    stdout.print(f"report: {paths['markdown']}, {paths['html']}", highlight=False)
    if check_render:
        loaded, total = check_html_in_chromium(paths["html"], output / "report-screenshot.png")
        if loaded != total:
            raise typer.Exit(code=1)
        stdout.print(
            f"Chromium rendered {loaded}/{total} figures; screenshot: {output / 'report-screenshot.png'}",
            highlight=False,
        )
