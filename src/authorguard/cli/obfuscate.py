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


@handle_errors
def obfuscate(
    input: Annotated[
        Path,
        typer.Argument(
            help="JSONL, CSV or Parquet file of records with an id and a text; or a .txt file, or a folder of them "
            "(one record a file, its name the id)."
        ),
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="Output file (.jsonl, .csv or .parquet): the same records, rewritten, each with its release_status "
            "and release_reason.",
        ),
    ],
    method: Annotated[
        str, typer.Option(help="A registered text method: one of those listed above (authorguard methods).")
    ],
    config: Annotated[
        Path | None, typer.Option(help="Method parameters: TOML, JSON or YAML table (defaults otherwise).")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of a random method (default: fresh randomness).")] = None,
    epsilon: Annotated[
        float | None,
        typer.Option(help="Document-level ε of a DP method (dp-prompt: default 10,000; syntf-text: per word)."),
    ] = None,
    fallback: Annotated[str | None, typer.Option(help=FALLBACK_HELP)] = None,
    id_field: Annotated[
        str | None,
        typer.Option(
            help="Field holding the record id (default 'id'; without one, records are "
            "numbered by position; a field named here must exist)."
        ),
    ] = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    drop_fields: Annotated[
        bool,
        typer.Option(
            "--drop-fields",
            help="Write only the id, the text, the status and the "
            "fidelity (default: every field of the input is kept, "
            "the text replaced).",
        ),
    ] = False,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model", help="Trained model folder of a neural method (a4nt; tarot: default the packaged policy)."
        ),
    ] = None,
    attribute_field: Annotated[
        str | None,
        typer.Option(
            help="Field holding each record's attribute class (A4NT's source "
            "style; default: the model's classifier decides)."
        ),
    ] = None,
    fidelity: Annotated[
        bool,
        typer.Option(
            "--fidelity/--no-fidelity",
            help="Score each released record with the "
            "fidelity meter: fields 'fidelity' (faithful / generalised / partial / unsure / changed) and "
            "'fidelity_reason', and a summary line.",
        ),
    ] = True,
    meter: Annotated[str, typer.Option(help=METER_HELP)] = "rules",
) -> None:
    """Rewrite each record's text with METHOD (the command's help: :func:`help_text`)."""
    from authorguard import registry
    from authorguard.api import build_method
    from authorguard.batch.config import load_method_params
    from authorguard.batch.obfuscation import obfuscate_texts, release_rows
    from authorguard.data.io import file_format, read_records, write_records_file

    file_format(output)  # an unknown output format fails before any work
    params = load_method_params(config)
    if epsilon is not None and "epsilon" in params:
        raise InputError("--epsilon and the config's 'epsilon' both set it: give one")
    text_method = build_method(method, params=params, seed=seed, epsilon=epsilon, fallback=fallback, model=model)
    if fidelity:  # a missing parser (or an asked-for judge) fails now, not after the rewriting
        from authorguard.metrics.fidelity import require_meter

        require_meter(meter)
    with Stages("obfuscate") as stages:
        stages.stage("reading input")
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
                    f"{input}: the input already has a {field!r} field, which the output uses: rename it or "
                    "--drop-fields"
                )
        attributes = records.fields.get(attribute_field) if attribute_field else None
        if attributes is not None and any(value is None for value in attributes):
            raise InputError(f"{input}: record {attributes.index(None)} has an empty {attribute_field!r} field")
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
    texts, statuses, scores = result.texts, result.statuses, result.scores
    stdout.print(f"wrote {len(texts)} records to {output}: {status_counts(statuses)}")
    if scores is not None:
        stdout.print(fidelity_summary(scores, statuses))
    if registry.methods.info(method).get("protects"):
        stdout.print(
            f"{method} protects against: {registry.methods.info(method)['protects']} (authorguard methods; README)"
        )
    report = text_method.release_report()
    if report.get("document_epsilon") is not None:
        stdout.print(
            f"privacy: each record's release costs ε = {report['document_epsilon']:,.4g} (pure ε-DP per document"
            f"{'; tokens from the OS CSPRNG' if report.get('secure_random') else '; seeded: keep the seed secret'})"
        )
    if "records_flagged" in report:
        stdout.print(validity_summary(report))
    if "level" in report and "chunks" in report:  # the bottleneck: its gate reads the view, not the input
        if report["level"] == "roles":
            stdout.print(
                "note: at level roles each output says the view's words in order with only articles and "
                "punctuation added (137 of 150 faithful by blind labels); it hides style, not what is said "
                "- the content still identifies (docs/results/faithful.md)"
            )
        else:
            stdout.print(
                "note: the bottleneck writes from the view only; its gate checks that each output says the "
                "view's words and adds few of its own, not that it keeps the meaning - read a sample before "
                "release (docs/results/bottleneck.md)"
            )
    elif "chunks" in report:  # an LM rewriter behind the gate: what passes is well-formed, not known to be faithful
        stdout.print(
            "note: the gate refuses comments, copies, loops, truncations and lost names; it cannot check "
            "meaning (by hand, most rewrites tarot keeps on BAC-10 change what the text says: "
            "docs/results/tarot.md) - read a sample before release"
        )


METER_HELP = (
    "Fidelity meter: rules; judge (the rules joined with the packaged feature judge, needs the minilm extra); or "
    "cross-encoder (a judge trained by 'authorguard train judge'). Their agreement with blind readers: "
    "docs/concepts/fidelity.md."
)


def score_fidelity(inputs: list, outputs: list, meter: str = "rules") -> list:
    """The fidelity meter's score of each (input, output) pair (:class:`~authorguard.metrics.fidelity.FidelityMeter`;
    ``meter``: one of :data:`~authorguard.metrics.fidelity.METERS`); each score's ``meter`` names the meter that
    gave it."""
    from authorguard.metrics.fidelity import FidelityMeter

    return FidelityMeter(meter=meter).score(inputs, outputs)


def fidelity_summary(scores: list, statuses: list | None = None) -> str:
    """One line: the count of each verdict, by the fidelity meter (which agrees with blind hand labels on about 3 of
    4 pairs: docs/results/faithful.md); with ``statuses``, how many of the faithful were kept as written (nothing to
    judge: they are the input)."""
    from authorguard.metrics.fidelity import verdict_counts

    counts = verdict_counts(scores)
    kept = sum(
        1 for score, status in zip(scores, statuses or ()) if status["status"] == "kept" and score.verdict == "faithful"
    )
    faithful = f"{counts['faithful']} faithful" + (f" ({kept} of them kept as written)" if kept else "")
    judged = bool(scores) and scores[0].meter != "rules"
    source = (
        f"automatic meter with the {scores[0].meter}; docs/results/judge.md"
        if judged
        else "automatic meter; docs/results/faithful.md"
    )
    return (
        f"fidelity ({source}): {faithful}, "
        + (f"{counts['generalised']} generalised (true, less specific), " if counts["generalised"] else "")
        + f"{counts['partial']} partial, "
        f"{counts['unsure']} unsure (the meter cannot settle them: read them), {counts['changed']} changed, "
        f"{counts['not scored']} not scored (withheld or too long)"
    )


def status_counts(statuses: list[dict]) -> str:
    """ "N rewritten, N partly normalised, N released as their view, N kept as written, N withheld" (every status
    named, zeros included)."""
    from collections import Counter

    counts = Counter(status["status"] for status in statuses)
    return (
        f"{counts['rewritten']} rewritten, {counts['normalised']} partly normalised, {counts['view']} released as "
        f"their view, {counts['kept']} kept as written, "
        f"{counts['withheld']} withheld"
    )


def validity_summary(report: dict) -> str:
    """One line on what the validity gate did, from a rewriter's ``release_report``."""
    flagged = report["records_flagged"]
    if "records_rewritten" in report:  # a selecting rewriter: refused candidates were replaced or fell back
        fallback = {
            "keep": "kept as written",
            "withhold": "withheld",
            "view": "released as their view",
            "normalise": "released as normalise's text",
        }.get(report.get("fallback", ""), "fallback")
        chunks = (
            f"{report.get('chunks_fallback', 0)} of {report['chunks']} chunks without a valid rewrite, "
            if "chunks" in report
            else ""
        )  # a rewriter that falls back whole documents has no chunks
        return (
            f"validity gate: {report['records_rewritten']} records rewritten, {flagged} flagged "
            f"({chunks}{fallback}); refused candidates: {report.get('refused', {})}"
        )
    return (
        f"validity gate: {flagged} records have a paraphrase the gate refuses (counted only, not replaced): "
        f"{report.get('validity', {})}"
    )
