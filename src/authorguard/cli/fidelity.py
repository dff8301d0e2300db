"""``authorguard fidelity``: score (input, output) pairs of any rewriting tool with the fidelity meter."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import Stages, handle_errors, stdout
from authorguard.cli.obfuscate import METER_HELP
from authorguard.exceptions import InputError


@handle_errors
def fidelity(
    pairs: Annotated[Path, typer.Argument(help="JSONL, CSV or Parquet file: one record per (input, output) pair.")],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Output file (.jsonl, .csv or .parquet): every record "
            "with 'fidelity' (faithful / generalised / partial / unsure / changed; empty output: not scored) "
            "and 'fidelity_reason'.",
        ),
    ],
    input_field: Annotated[str, typer.Option(help="Field holding the text that was rewritten.")] = "input",
    output_field: Annotated[
        str, typer.Option(help="Field holding the rewrite (null or empty: not scored).")
    ] = "output",
    id_field: Annotated[str | None, typer.Option(help="Field holding the record id (default: by position).")] = None,
    meter: Annotated[str, typer.Option(help=METER_HELP)] = "rules",
) -> None:
    """Score each record's OUTPUT_FIELD against its INPUT_FIELD: does the rewrite say what the input says? Each
    record gains the verdict and its reason (what was invented, lost, negated or swapped); a summary line counts the
    verdicts. The meters and their agreement with blind labels: docs/concepts/fidelity.md."""
    from authorguard.batch.obfuscation import FIDELITY_FIELD, FIDELITY_REASON_FIELD, fidelity_fields
    from authorguard.batch.summary import fidelity_summary
    from authorguard.data.io import file_format, read_records, write_records_file
    from authorguard.metrics.fidelity import FidelityMeter, require_meter

    file_format(output)  # an unknown output format fails before any work
    require_meter(meter)  # an unknown meter, or a judge that cannot load, before any reading
    with Stages("fidelity") as stages:
        stages.stage("reading pairs")
        records = read_records(
            pairs,
            text_field=input_field,
            id_field=id_field or "id",
            extra_fields=(output_field,),
            require_id=id_field is not None,
            keep_rows=True,
        )
        for field in (FIDELITY_FIELD, FIDELITY_REASON_FIELD):
            if records.rows and field in records.rows[0]:
                raise InputError(f"{pairs}: the input already has a {field!r} field, which the output uses: rename it")
        stages.stage(f"scoring {len(records.texts):,} pairs")
        scores = FidelityMeter(meter=meter).score(records.texts, records.fields[output_field])
    rows = records.rows or [{} for _ in records.texts]
    key = id_field or "id"
    write_records_file(
        output,
        [
            {**row, key: identifier, input_field: text, **fidelity_fields(score)}
            for row, identifier, text, score in zip(rows, records.ids, records.texts, scores)
        ],
    )
    stdout.print(f"wrote {len(scores)} records to {output}")
    stdout.print(fidelity_summary(scores))
