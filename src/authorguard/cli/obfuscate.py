"""``authorguard obfuscate``: rewrite every record of a file with a registered text method."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import console, handle_errors, progress
from authorguard.exceptions import InputError


def build_text_method(name: str, params: dict, seed: int | None, model: str | None = None):
    """A registered *text* method with ``params`` (unknown keys fail naming the key), seeded when it is random;
    ``model`` (a trained model folder) goes to methods that take one."""
    from authorguard import registry
    from authorguard.base import TextObfuscator

    cls = registry.methods.get(name)
    if not issubclass(cls, TextObfuscator):
        raise InputError(f"method {name!r} does not rewrite text (it releases vectors): use authorguard syntf or anonymize, or the text method syntf-text")
    known = set(cls().get_params())
    for key in params:
        if key not in known:
            raise InputError(f"unknown parameter {key!r} for method {name!r} (known: {', '.join(sorted(known)) or 'none'})")
    if model is not None:
        if "model" not in known:
            raise InputError(f"method {name!r} takes no trained model (--model is for a4nt, a4nt-autoencoder, tarot, tarot-sft)")
        params = {**params, "model": model}
    if seed is not None and "random_state" in known:
        params = {**params, "random_state": seed}
    return cls(**params).fit()


def write_records(path: Path, id_field: str, text_field: str, ids: list, texts: list[str]) -> None:
    """The records as ``{id_field: id, text_field: text}`` in the format of ``path``'s extension, atomically."""
    from authorguard.data.io import atomic_write, file_format

    kind = file_format(path)
    if kind == "jsonl":
        with atomic_write(path) as out:
            for identifier, text in zip(ids, texts):
                out.write(json.dumps({id_field: identifier, text_field: text}, ensure_ascii=False) + "\n")
    elif kind == "csv":
        import csv

        with atomic_write(path) as out:
            writer = csv.writer(out)
            writer.writerow([id_field, text_field])
            writer.writerows(zip(ids, texts))
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        with atomic_write(path, mode="wb", encoding=None) as out:
            pq.write_table(pa.table({id_field: ids, text_field: texts}), out)


@handle_errors
def obfuscate(
    input: Annotated[Path, typer.Argument(help="JSONL, CSV or Parquet file of records with an id and a text.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Output file (.jsonl, .csv or .parquet): the same records, rewritten.")],
    method: Annotated[str, typer.Option(help="A registered text method (original, scrubadub, presidio, synonyms, dropout, …).")],
    config: Annotated[Path | None, typer.Option(help="Method parameters: TOML, JSON or YAML table (defaults otherwise).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of a random method (default: fresh randomness).")] = None,
    id_field: Annotated[str, typer.Option(help="Field holding the record id (positions are used when absent).")] = "id",
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    model: Annotated[Path | None, typer.Option("--model", help="Trained model folder of a neural method (a4nt; tarot: default the packaged policy).")] = None,
    attribute_field: Annotated[str | None, typer.Option(help="Field holding each record's attribute class (A4NT's source "
                                                              "style; default: the model's classifier decides).")] = None,
) -> None:
    """Rewrite each record's text with METHOD: records in = records out, same order, same ids."""
    from authorguard.batch.config import load_method_params
    from authorguard.data.io import file_format, read_records

    file_format(output)  # an unknown output format fails before any work
    text_method = build_text_method(method, load_method_params(config), seed, None if model is None else str(model))
    with progress() as bars:
        bars.add_task("reading input", total=None)
        records = read_records(input, text_field=text_field, id_field=id_field,
                               extra_fields=(attribute_field,) if attribute_field else ())
        bars.add_task(f"rewriting {len(records.texts)} records with {method}", total=None)
        attributes = records.fields.get(attribute_field) if attribute_field else None
        if attributes is not None and any(value is None for value in attributes):
            raise InputError(f"{input}: record {attributes.index(None)} has an empty {attribute_field!r} field")
        rewritten = text_method.obfuscate_labelled(records.texts, attributes)
    if len(rewritten) != len(records.texts):  # the contract, checked: one output per input, never a silent drop
        raise InputError(f"method {method!r} returned {len(rewritten)} texts for {len(records.texts)} records")
    write_records(output, id_field, text_field, list(records.ids), rewritten)
    changed = sum(a != b for a, b in zip(records.texts, rewritten))
    console.print(f"wrote {len(rewritten)} records to {output} ({changed} changed, {len(rewritten) - changed} unchanged)")
    report = text_method.release_report()
    if "records_flagged" in report:
        console.print(validity_summary(report))


def validity_summary(report: dict) -> str:
    """One line on what the validity gate did, from a rewriter's ``release_report``."""
    flagged = report["records_flagged"]
    if "records_rewritten" in report:  # a selecting rewriter: refused candidates were replaced or fell back
        fallback = {"keep": "kept as written", "withhold": "left out"}.get(report.get("fallback"), "fallback")
        return (f"validity gate: {report['records_rewritten']} records rewritten, {flagged} flagged "
                f"({report.get('chunks_fallback', 0)} of {report.get('chunks', 0)} chunks without a valid rewrite, "
                f"{fallback}); refused candidates: {report.get('refused', {})}")
    return (f"validity gate: {flagged} records have a paraphrase the gate refuses (counted only, not replaced): "
            f"{report.get('validity', {})}")
