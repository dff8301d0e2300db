"""``authorguard train``: train the neural components from the corpora in the data directory."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import console, handle_errors, print_json, progress, set_data_dir, stdout

app = typer.Typer(
    help="Train neural components (the author encoder, the fidelity judge) from the local corpora.",
    no_args_is_help=True,
)


@app.command("author-encoder")
@handle_errors
def author_encoder(
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML / JSON / YAML table of AuthorEncoderConfig keys.")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Training folder (default: <AUTHORGUARD_CACHE>/models/author-encoder)."),
    ] = None,
    steps: Annotated[int | None, typer.Option("--steps", help="Optimiser steps (overrides the config).")] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data directory (default: AUTHORGUARD_DATA).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the provenance as JSON on stdout.")] = False,
) -> None:
    """Train the author encoder contrastively on authors no evaluation scenario uses; resumes from a checkpoint
    in the training folder; prints where the model is and how it retrieves unseen authors."""
    from authorguard.batch.config import load_method_params
    from authorguard.neural.author_encoder.config import AuthorEncoderConfig
    from authorguard.neural.author_encoder.trainer import train_author_encoder
    from authorguard.utils.validation import dataclass_from_params

    set_data_dir(data_dir)
    params = load_method_params(config)
    if steps is not None:
        params["steps"] = steps
    resolved = dataclass_from_params(AuthorEncoderConfig, params, str(config or "author encoder options"))
    command = shlex.join(["authorguard", *sys.argv[1:]])
    with progress() as bar:
        task = bar.add_task("training the author encoder", total=resolved.steps)

        def report(step: int, total: int, loss: float) -> None:
            bar.update(task, completed=step, description=f"training the author encoder (loss {loss:.3f})")
            if not console.is_terminal and (step % 25 == 0 or step == total):
                console.print(f"step {step}/{total}  loss {loss:.4f}", highlight=False)

        result = train_author_encoder(resolved, output, command=command, progress=report)
    if json_output:
        import json

        print_json(json.loads((result.folder / "provenance.json").read_text(encoding="utf-8")))
        return
    stdout.print(
        f"author encoder saved to {result.folder} ({len(result.losses)} steps, {result.seconds:.0f} s this call; "
        f"loss {result.losses[0]:.3f} -> {sum(result.losses[-10:]) / len(result.losses[-10:]):.3f})",
        highlight=False,
    )
    for name, sizes in result.retrieval.items():
        line = "; ".join(
            f"episodes of {size}: MRR {s['mrr']:.3f}, R@8 {s['recall@8']:.3f}" for size, s in sizes.items()
        )
        stdout.print(f"  {name:22s} {line}  ({next(iter(sizes.values()))['authors']} unseen authors)", highlight=False)


@app.command("judge")
@handle_errors
def judge(
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML / JSON / YAML table of JudgeConfig keys.")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Training folder (default: <AUTHORGUARD_CACHE>/models/judge)."),
    ] = None,
    epochs: Annotated[
        int | None, typer.Option("--epochs", help="Passes over the pairs (overrides the config).")
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data directory (default: AUTHORGUARD_DATA).")
    ] = None,
) -> None:
    """Train the fidelity meter's consistency judge on rule-made pairs of blog and 20 Newsgroups sentences (no
    evaluation author); resumes from a checkpoint in the training folder. Calibrate it afterwards on development
    labels: scripts/judge/calibrate.py."""
    from authorguard.batch.config import load_method_params
    from authorguard.metrics.fidelity.judge.config import JudgeConfig
    from authorguard.neural.judge.trainer import train_judge
    from authorguard.utils.validation import dataclass_from_params

    set_data_dir(data_dir)
    params = load_method_params(config)
    if epochs is not None:
        params["epochs"] = epochs
    resolved = dataclass_from_params(JudgeConfig, params, str(config or "judge options"))
    command = shlex.join(["authorguard", *sys.argv[1:]])
    with progress() as bar:
        task = bar.add_task("training the judge", total=None)

        def report(step: int, total: int, loss: float) -> None:
            bar.update(task, completed=step, total=total, description=f"training the judge (loss {loss:.3f})")
            if not console.is_terminal and (step % 50 == 0 or step == total):
                console.print(f"step {step}/{total}  loss {loss:.4f}", highlight=False)

        result = train_judge(resolved, output, command=command, progress=report, say=console.print)
    stdout.print(
        f"judge saved to {result.folder} ({len(result.losses)} steps, {result.seconds:.0f} s this call; held-out rule "
        f"pairs: accuracy {result.validation.get('accuracy', float('nan')):.3f})",
        highlight=False,
    )
