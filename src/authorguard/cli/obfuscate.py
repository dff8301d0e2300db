"""``authorguard obfuscate``: rewrite every record of a file with a registered text method."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from authorguard.batch.obfuscation import FIDELITY_FIELD, FIDELITY_REASON_FIELD, REASON_FIELD, STATUS_FIELD
from authorguard.cli.common import FALLBACK_HELP, Stages, handle_errors, stdout
from authorguard.exceptions import InputError


def help_text() -> str:
    """The command's help: what it does, then the text methods by name, from the registry (nothing imported)."""
    from authorguard import registry

    names = [n for n in registry.methods.names() if registry.methods.info(n).get("output") == "text"]
    return (
        "Rewrite each record's text with METHOD: records in = records out, same order, same ids, other fields kept; "
        "each record says whether it was rewritten, kept as written or withheld, and why.\n\n"
        f"Text methods: {', '.join(names)} ('authorguard methods' says what each does, protects against and needs)."
    )


METER_HELP = (
    "Fidelity meter: rules; judge (the rules joined with the packaged feature judge, needs the minilm extra); or "
    "cross-encoder (a judge trained by 'authorguard train judge'). Their agreement with blind readers: "
    "docs/concepts/fidelity.md."
)
InputPath = Annotated[
    Path,
    typer.Argument(
        help="JSONL, CSV or Parquet file of records with an id and a text; or a .txt file, or a folder of them "
        "(one record a file, its name the id)."
    ),
]
OutputPath = Annotated[
    Path,
    typer.Option(
        "--output",
        "-o",
        help="Output file (.jsonl, .csv or .parquet): the same records, rewritten, each with its release_status "
        "and release_reason.",
    ),
]
MethodName = Annotated[
    str, typer.Option(help="A registered text method: one of those listed above (authorguard methods).")
]
ConfigFile = Annotated[
    Path | None, typer.Option(help="Method parameters: TOML, JSON or YAML table (defaults otherwise).")
]
Epsilon = Annotated[
    float | None,
    typer.Option(help="Document-level ε of a DP method (dp-prompt: default 10,000; syntf-text: per word)."),
]
IdField = Annotated[
    str | None,
    typer.Option(
        help="Field holding the record id (default 'id'; without one, records are "
        "numbered by position; a field named here must exist)."
    ),
]
DropFields = Annotated[
    bool,
    typer.Option(
        "--drop-fields",
        help="Write only the id, the text, the status and the "
        "fidelity (default: every field of the input is kept, "
        "the text replaced).",
    ),
]
ModelFolder = Annotated[
    Path | None,
    typer.Option("--model", help="Trained model folder of a neural method (a4nt; tarot: default the packaged policy)."),
]
AttributeField = Annotated[
    str | None,
    typer.Option(
        help="Field holding each record's attribute class (A4NT's source "
        "style; default: the model's classifier decides)."
    ),
]
Fidelity = Annotated[
    bool,
    typer.Option(
        "--fidelity/--no-fidelity",
        help="Score each released record with the "
        "fidelity meter: fields 'fidelity' (faithful / generalised / partial / unsure / changed) and "
        "'fidelity_reason', and a summary line.",
    ),
]


@handle_errors
def obfuscate(
    input: InputPath,
    output: OutputPath,
    method: MethodName,
    config: ConfigFile = None,
    seed: Annotated[int | None, typer.Option(help="Seed of a random method (default: fresh randomness).")] = None,
    epsilon: Epsilon = None,
    fallback: Annotated[str | None, typer.Option(help=FALLBACK_HELP)] = None,
    id_field: IdField = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    drop_fields: DropFields = False,
    model: ModelFolder = None,
    attribute_field: AttributeField = None,
    fidelity: Fidelity = True,
    meter: Annotated[str, typer.Option(help=METER_HELP)] = "rules",
) -> None:
    """Rewrite each record's text with METHOD (the command's help: :func:`help_text`)."""
    from authorguard.batch.config import load_method_params
    from authorguard.batch.obfuscation import obfuscate_texts, release_rows
    from authorguard.batch.summary import run_summary
    from authorguard.data.io import file_format, write_records_file
    from authorguard.methods.build import build_text_method

    file_format(output)  # an unknown output format fails before any work
    params = load_method_params(config)
    if epsilon is not None and "epsilon" in params:
        raise InputError("--epsilon and the config's 'epsilon' both set it: give one")
    text_method = build_text_method(
        method, params, seed, None if model is None else str(model), epsilon=epsilon, fallback=fallback
    )
    if fidelity:  # a missing parser (or an asked-for judge) fails now, not after the rewriting
        from authorguard.metrics.fidelity import require_meter

        require_meter(meter)
    with Stages("obfuscate") as stages:
        stages.stage("reading input")
        records = read_input(input, text_field, id_field, attribute_field, drop_fields, fidelity)
        attributes = records.fields.get(attribute_field) if attribute_field else None
        result = obfuscate_texts(
            text_method,
            records.texts,
            attributes=attributes,
            seed=seed,
            meter=meter if fidelity else None,
            advance=stages.stage(f"rewriting {len(records.texts):,} records with {method}", total=len(records.texts)),
            scoring=lambda n: stages.stage(f"scoring fidelity of {n:,} records"),
        )
    write_records_file(output, release_rows(result, list(records.ids), id_field or "id", text_field, records.rows))
    lines = run_summary(method, result, text_method.release_report())
    stdout.print(f"wrote {len(result.texts)} records to {output}: {lines[0]}")
    for line in lines[1:]:
        stdout.print(line)


def read_input(
    input: Path,
    text_field: str,
    id_field: str | None,
    attribute_field: str | None,
    drop_fields: bool,
    fidelity: bool,
):
    """The input's records, refused in one line when a field the output writes is already there or an asked-for
    attribute is empty."""
    from authorguard.data.io import read_records

    records = read_records(
        input,
        text_field=text_field,
        id_field=id_field or "id",
        extra_fields=(attribute_field,) if attribute_field else (),
        require_id=id_field is not None,
        keep_rows=not drop_fields,
    )
    for field in (STATUS_FIELD, REASON_FIELD) + ((FIDELITY_FIELD, FIDELITY_REASON_FIELD) if fidelity else ()):
        if records.rows and field in records.rows[0]:
            raise InputError(
                f"{input}: the input already has a {field!r} field, which the output uses: rename it or --drop-fields"
            )
    attributes = records.fields.get(attribute_field) if attribute_field else None
    if attributes is not None and any(value is None for value in attributes):
        raise InputError(f"{input}: record {attributes.index(None)} has an empty {attribute_field!r} field")
    return records
