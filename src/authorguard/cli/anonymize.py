"""``authorguard anonymize``: stream an archive through a method, resumable and exactly once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import FALLBACK_HELP, handle_errors, print_json, progress, stdout

InputPath = Annotated[Path, typer.Argument(help="JSONL, CSV or Parquet file, or a directory of such shards.")]
OutputDir = Annotated[
    Path, typer.Argument(help="Directory for Parquet shards, manifest.json, errors.jsonl, privacy.json.")
]
ConfigFile = Annotated[
    Path | None, typer.Option(help="Method parameters: TOML, JSON or YAML table (defaults otherwise).")
]
Engine = Annotated[str, typer.Option(help="local (this process) or ray (Ray Data, local or existing cluster).")]
RayAddress = Annotated[
    str | None, typer.Option(help="Address of an existing Ray cluster (default: start a local one).")
]
BatchSize = Annotated[
    int, typer.Option(help="Records anonymised at a time (bounds memory; larger batches share more mechanism rows).")
]
ShardSize = Annotated[int, typer.Option(help="Records per shard: the unit of atomic output and resumption.")]
Seed = Annotated[
    int | None, typer.Option(help="Per-record randomness from (seed, record id); default: OS CSPRNG. Keep it secret.")
]
IdField = Annotated[
    str | None,
    typer.Option(
        help="Field holding the record id (default 'id'; records without one get "
        "FILE#POSITION; a field named here must exist)."
    ),
]
Resume = Annotated[bool, typer.Option("--resume", help="Complete an interrupted run: only unfinished shards run.")]
Force = Annotated[bool, typer.Option("--force", help="Release every record again (the report composes the losses).")]


@handle_errors
def anonymize(
    input: InputPath,
    output: OutputDir,
    method: Annotated[str, typer.Option(help="Registered method name (e.g. syntf).")],
    config: ConfigFile = None,
    engine: Engine = "local",
    ray_address: RayAddress = None,
    batch_size: BatchSize = 4096,
    shard_size: ShardSize = 10_000,
    workers: Annotated[int, typer.Option(help="Ray workers, each loading the method once.")] = 1,
    gpus_per_worker: Annotated[float, typer.Option(help="GPUs per Ray worker (neural methods).")] = 0.0,
    seed: Seed = None,
    id_field: IdField = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    fallback: Annotated[str | None, typer.Option(help=FALLBACK_HELP)] = None,
    resume: Resume = False,
    force: Force = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the run summary as JSON.")] = False,
) -> None:
    """Anonymise every record of INPUT into OUTPUT: each record once, in atomically written shards."""
    from authorguard.batch.config import AnonymizeConfig
    from authorguard.batch.runner import run_anonymize
    from authorguard.exceptions import InputError

    check_id_field(input, id_field)
    method_params = checked_method_params(method, config, fallback)
    settings = AnonymizeConfig(
        method=method,
        input=str(input),
        output=str(output),
        method_params=method_params,
        engine=engine,
        ray_address=ray_address,
        batch_size=batch_size,
        shard_size=shard_size,
        workers=workers,
        gpus_per_worker=gpus_per_worker,
        seed=seed,
        id_field=id_field or "id",
        text_field=text_field,
        resume=resume,
        force=force,
    )
    with progress() as bars:
        task = bars.add_task("anonymising shards", total=None)
        manifest = run_anonymize(settings, on_shard=lambda entry: bars.update(task, advance=1))
    summary = anonymize_summary(manifest, output)
    if json_output:
        print_json(summary)
    else:
        stdout.print(summary_line(summary, output), highlight=False)
    released = summary["records_out"] - summary["records_withheld"]
    if released == 0:  # nothing usable came out: a mistyped field, a bad file, an empty input or every record withheld
        raise InputError(nothing_released(output, summary))


def check_id_field(input: Path, id_field: str | None) -> None:
    """A field the user named must be in some input file (first record / header): never fall back to positions
    silently."""
    from authorguard.batch.sources import field_in_first_record, input_files
    from authorguard.exceptions import InputError

    if id_field is None:
        return
    files = input_files(input)
    if files and not any(field_in_first_record(f, id_field) for f in files):
        raise InputError(
            f"{input}: no input file has the id field {id_field!r} (first record / header checked); "
            f"name the field that holds the ids, or leave --id-field out"
        )


def checked_method_params(method: str, config: Path | None, fallback: str | None) -> dict:
    """The method's parameters from CONFIG with the fallback applied; a bad option, a missing extra or missing
    weights raise one line naming the problem before any work."""
    from authorguard import registry
    from authorguard.batch.config import load_method_params
    from authorguard.methods.build import FALLBACK_CHOICES, with_fallback
    from authorguard.utils.extras import require_method
    from authorguard.utils.validation import check_option

    if fallback is not None:
        check_option(fallback, "fallback", "anonymize", FALLBACK_CHOICES)
    params = load_method_params(config)
    if method in registry.methods:
        require_method(method, params)
    return with_fallback(method, params, fallback)


def anonymize_summary(manifest: dict, output: Path) -> dict:
    """Counts, shards and the method's composed bound (SynTF's tight epsilon, DP-Prompt's document epsilon; none
    for the other text methods) of a finished run."""
    import json

    privacy = json.loads((output / "privacy.json").read_text(encoding="utf-8"))
    summary = {
        key: manifest.get(key, 0)
        for key in ("status", "records_in", "records_out", "records_error", "records_withheld")
    }
    bound = next(
        (k for k in ("composed_tight_epsilon", "composed_document_epsilon") if privacy.get(k) is not None),
        "composed_tight_epsilon",
    )
    summary.update(
        shards=len(manifest["shards"]),
        releases_per_record=privacy["releases_per_record"],
        **{bound: privacy.get(bound)},
        output=str(output),
    )
    return summary


def summary_line(summary: dict, output: Path) -> str:
    """The run summary as one line: records in = out + errors, shards, the privacy bound."""
    bound = "composed_tight_epsilon" if "composed_tight_epsilon" in summary else "composed_document_epsilon"
    loss = summary[bound]
    what = "tight epsilon" if bound == "composed_tight_epsilon" else "document epsilon"
    guarantee = "no formal privacy guarantee" if loss is None else f"{what} per record {loss:.1f}"
    withheld = (
        f" ({summary['records_withheld']} of them withheld: no text, see release_status)"
        if summary["records_withheld"]
        else ""
    )
    return (
        f"{summary['records_in']} records in = {summary['records_out']} out{withheld} + {summary['records_error']} "
        "in errors.jsonl; "
        f"{summary['shards']} shards; {guarantee} ({summary['releases_per_record']} release(s)); wrote {output}"
    )


def nothing_released(output: Path, summary: dict) -> str:
    """The one line saying why a run released no text: an empty input, every record in errors.jsonl (with the
    first error), or every record withheld."""
    import json

    if summary["records_in"] == 0:
        return f"nothing was released: the input holds no records (wrote an empty run to {output})"
    if summary["records_out"] == 0:
        first = ""
        errors = output / "errors.jsonl"
        if errors.is_file():
            line = errors.read_text(encoding="utf-8").split("\n", 1)[0]
            if line.strip():
                first = f"; the first: {json.loads(line).get('reason', line)}"
        return f"nothing was released: all {summary['records_in']} records failed (see {errors}){first}"
    return (
        f"nothing was released: the method withheld all {summary['records_withheld']} records (no rewrite passed "
        f"its validity gate; --fallback keep would release them as written)"
    )
