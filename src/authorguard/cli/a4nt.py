"""``authorguard a4nt``: train an A⁴NT model folder stage by stage, and measure it as the paper does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import TaskID

from authorguard.cli.common import console, handle_errors, print_json, progress, set_data_dir, stdout

app = typer.Typer(
    help="A4NT: adversarially trained style transfer that hides an author attribute.", no_args_is_help=True
)


@app.command("train")
@handle_errors
def train(
    output: Annotated[Path, typer.Option("--output", "-o", help="Model folder (created; an existing one is resumed).")],
    setting: Annotated[
        str, typer.Option(help="Attribute setting: blog-age, blog-gender, speech, speech-millercenter.")
    ] = "blog-age",
    config: Annotated[
        Path | None, typer.Option("--config", help="TOML / JSON / YAML table of A4NTConfig keys.")
    ] = None,
    stage: Annotated[
        list[str] | None,
        typer.Option(
            "--stage",
            help="Stages to run (repeat; default all): data, classifiers, language-models, autoencoder, adversarial.",
        ),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data directory (default: AUTHORGUARD_DATA).")
    ] = None,
    device: Annotated[
        str, typer.Option("--device", help="Where to train: cpu, cuda, cuda:N or auto (a GPU if torch sees one).")
    ] = "cpu",
) -> None:
    """Train (or resume) the stages of an A4NT model folder; each stage checkpoints and skips what is done.
    The adversarial variant is the config's ``semantic`` + ``language_loss`` (cycml-lang by default)."""
    from authorguard.batch.config import load_method_params
    from authorguard.neural.a4nt.config import A4NTConfig
    from authorguard.neural.a4nt.trainer import STAGES, train_a4nt
    from authorguard.utils.validation import dataclass_from_params

    set_data_dir(data_dir)
    params = load_method_params(config)
    params.setdefault("setting", setting)
    resolved = dataclass_from_params(A4NTConfig, params, str(config or "A4NT options"))
    with progress() as bars:
        tasks: dict[str, TaskID] = {}

        def report(name: str, step: int, total: int, record: dict) -> None:
            if name not in tasks:
                tasks[name] = bars.add_task(name, total=total)
            loss = next((record[k] for k in ("total", "loss") if k in record), None)
            bars.update(
                tasks[name], completed=step, description=name + (f" (loss {loss:.3f})" if loss is not None else "")
            )
            if not console.is_terminal and (step % 100 == 0 or step == total):
                console.print(
                    f"{name} {step}/{total} "
                    + json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in record.items()}),
                    highlight=False,
                )

        produced = train_a4nt(resolved, output, tuple(stage) if stage else STAGES, report, device)
    stdout.print(
        f"A4NT model folder {output}: " + "; ".join(f"{k}: {len(v)} file(s)" for k, v in produced.items()),
        highlight=False,
    )


@app.command("evaluate")
@handle_errors
def evaluate(
    model: Annotated[Path, typer.Argument(help="A trained A4NT model folder.")],
    split: Annotated[str, typer.Option(help="Documents to rewrite and score: validation or test.")] = "test",
    variant: Annotated[
        list[str] | None,
        typer.Option("--variant", help="Variants (repeat; default: autoencoder and every trained one)."),
    ] = None,
    samples: Annotated[int, typer.Option(help="Rewrites per sentence (1 = greedy).")] = 1,
    select: Annotated[str, typer.Option(help="With samples > 1: random, max-meteor or min-meteor.")] = "random",
    seed: Annotated[int, typer.Option(help="Seed of sampling and of the METEOR sentence sample.")] = 0,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the figures as JSON here.")] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Data directory (default: AUTHORGUARD_DATA).")
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    """The paper's Tables II–IV on a split: sentence / document F1 of the attribute classifier and the holdouts
    before and after rewriting, and METEOR between input and output sentences."""
    from authorguard.data.io import write_json
    from authorguard.exceptions import InputError
    from authorguard.neural.a4nt.evaluation import evaluate_folder

    if split not in ("validation", "test"):
        raise InputError(f"split must be validation or test, got {split!r}")
    set_data_dir(data_dir)
    with progress() as bars:
        task = bars.add_task("evaluating", total=None)
        result = evaluate_folder(
            model,
            split,
            tuple(variant) if variant else None,
            samples,
            select,
            seed,
            report=lambda message: bars.update(task, description=message),
        )
    if output:
        write_json(output, result)
    if json_output:
        print_json(result)
        return
    stdout.print(
        f"{result['setting']} {split}: {result['documents']} documents, {result['sentences']} sentences; "
        f"chance macro F1 {result['chance']['document']:.2f} (document)",
        highlight=False,
    )
    for name, row in result["rows"].items():
        holdout = (
            f"  holdouts doc F1 mean {row['holdout_document_f1_mean']:.2f} max {row['holdout_document_f1_max']:.2f}"
            if "holdout_document_f1_mean" in row
            else ""
        )
        meteor = "" if row.get("meteor") is None else f"  METEOR {row['meteor']:.2f}"
        stdout.print(
            f"  {name:14s} sentence F1 {row['A']['sentence']['f1_macro']:.2f}  document F1 "
            f"{row['A']['document']['f1_macro']:.2f}{meteor}{holdout}",
            highlight=False,
        )


@app.command("package")
@handle_errors
def package(
    model: Annotated[Path, typer.Argument(help="A trained A4NT model folder.")],
    variant: Annotated[
        list[str], typer.Option("--variant", help="Variants to keep (repeat), e.g. neutral-cycml-lang.")
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The packaged folder (replaced if it is one already).")
    ],
    note: Annotated[str, typer.Option(help="Why this model, for provenance.json.")] = "",
) -> None:
    """Copy what rewriting needs (config, vocabulary, splitter, the variants' generators in float16) into a small
    folder with provenance; models/src/authorguard_models/a4nt is the one shipped (then run
    scripts/models/checksums.py)."""
    from authorguard.neural.a4nt.packaging import package_model

    folder = package_model(model, list(variant), output, note)
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    stdout.print(f"packaged {', '.join(variant)} from {model} into {folder} ({size / 2**20:.1f} MiB)", highlight=False)
