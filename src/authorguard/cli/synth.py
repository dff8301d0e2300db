"""``authorguard synth``: a synthetic labelled corpus with (ε, δ)-DP per author, from a data owner's whole corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from authorguard.cli.common import Stages, console, handle_errors, stdout
from authorguard.exceptions import InputError


def privacy_path(output: Path) -> Path:
    return output.with_name(output.stem + ".privacy.json")


@handle_errors
def synth(
    input: Annotated[Path, typer.Argument(help="JSONL, CSV or Parquet file: one record per document.")],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", help="JSONL file of synthetic records {id, label, counts}; OUT.privacy.json beside it."
        ),
    ],
    author_field: Annotated[str, typer.Option(help="Field naming each document's author: the privacy unit.")],
    label_field: Annotated[str, typer.Option(help="Field with the label of the task the release is for.")],
    epsilon: Annotated[float, typer.Option(help="ε per author (the whole release, every statistic composed).")],
    delta: Annotated[float, typer.Option(help="δ per author.")] = 1e-5,
    max_documents: Annotated[int, typer.Option(help="Documents counted per author at most.")] = 10,
    max_words: Annotated[int, typer.Option(help="Words counted per document at most.")] = 500,
    clip: Annotated[float, typer.Option(help="L2 bound of one author's term contribution.")] = 1.0,
    vocabulary_size: Annotated[
        int, typer.Option(help="Words of the public vocabulary (GloVe's most frequent).")
    ] = 10_000,
    morphology: Annotated[str, typer.Option(help="Terms: lower (lower-cased words) or lemma.")] = "lower",
    documents: Annotated[
        int | None, typer.Option(help="Synthetic documents to write (default: the noisy number counted).")
    ] = None,
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    seed: Annotated[int | None, typer.Option(help="Seed of the document choice, the noise and the sampling.")] = None,
    secure: Annotated[
        bool, typer.Option("--secure", help="Noise from OpenDP's CSPRNG sampler (for real releases; no seed).")
    ] = False,
    engine: Annotated[
        str, typer.Option(help="local (this process) or ray (batches of authors counted as Ray tasks).")
    ] = "local",
    workers: Annotated[int, typer.Option(help="Ray: CPUs of the local cluster it starts.")] = 2,
    ray_address: Annotated[
        str | None, typer.Option(help="Ray: join this cluster (the input on storage every node sees).")
    ] = None,
) -> None:
    """Release a synthetic labelled corpus of bags of words with (ε, δ)-DP per author: each author's contribution
    bounded, noisy class-conditional term statistics, class sizes and lengths (OpenDP's accounting), documents
    sampled from them. It releases no one's documents: the task works, the texts are gone."""
    from authorguard.data.io import write_json
    from authorguard.methods.author_synth import AuthorLevelSynthesiser

    if output.suffix.lower() != ".jsonl":
        raise InputError(f"{output}: the release is written as JSONL (.jsonl)")
    if secure and seed is not None:
        raise InputError("--secure draws from a CSPRNG: give it no --seed")
    if author_field == label_field:
        raise InputError("--author-field and --label-field name the same field")
    mapper = counting_engine(engine, workers, ray_address)
    model = AuthorLevelSynthesiser(
        epsilon,
        delta,
        max_documents=max_documents,
        max_words=max_words,
        clip=clip,
        vocabulary_size=vocabulary_size,
        morphology=morphology,
        random_state=seed,
        secure=secure,
    )
    with Stages("synth") as stages:
        stages.stage("reading input")
        ids, fields, texts = read_input(input, text_field, (author_field, label_field))
        ids, fields, texts = _with_author_and_label(ids, fields, texts, author_field, label_field)
        stages.stage(f"counting {len(texts):,} documents, bounding each author, adding the noise")
        model.fit(texts, fields[author_field], fields[label_field], ids, mapper=mapper)
        stages.stage("sampling the synthetic documents")
        labels, counts = model.sample(documents)
    write_release(output, labels, counts, model)
    found = model.privacy_report().to_dict()
    details = {**found, **model.bounded_, "analyzer": f"TermAnalyzer(morphology={morphology!r})"}
    write_json(privacy_path(output), details)
    stdout.print(
        f"wrote {len(labels):,} synthetic documents to {output}: (ε = {found['epsilon']:.3g}, δ = {found['delta']:.0e})"
        f"-DP per author, {model.bounded_['authors']:,} authors, at most {max_documents} documents each "
        f"({model.bounded_['documents_dropped']:,} of {len(texts):,} not counted); the report: "
        f"{privacy_path(output)}",
        highlight=False,
    )
    _print_notes(model.noise_share_, epsilon, secure)


def _with_author_and_label(ids: list, fields: dict, texts, author_field: str, label_field: str):
    """The records that have an author and a label (one without cannot be bounded or labelled), said on stderr."""
    from authorguard.data.io import texts_at

    kept = [i for i in range(len(ids)) if fields[author_field][i] and fields[label_field][i]]
    if len(kept) == len(ids):
        return ids, fields, texts
    console.print(f"synth: {len(ids) - len(kept):,} records without an author or a label left out")
    fields = {name: [values[i] for i in kept] for name, values in fields.items()}
    return [ids[i] for i in kept], fields, texts_at(texts, kept)


def _print_notes(noise_share: float, epsilon: float, secure: bool) -> None:
    """Notes on stderr: a release mostly noise, seeded noise."""
    if noise_share > 0.5:
        console.print(
            f"note: about {noise_share:.0%} of the released terms are noise: too few authors for ε = {epsilon:g} "
            "(more authors, a larger ε or a smaller --vocabulary-size make the release say more)"
        )
    if not secure:
        console.print("note: seeded noise (reproducible research runs); --secure draws it from a CSPRNG for a release")


def read_input(path: Path, text_field: str, fields: tuple[str, ...]):
    """(ids, the fields' values, the texts) of every record: a JSONL file in one pass that keeps no text (each is
    read again only if its document is counted), any other format in memory."""
    from authorguard.data.io import read_jsonl_fields, read_records

    if path.suffix.lower() in (".jsonl", ".ndjson") and path.is_file():
        return read_jsonl_fields(path, text_field, "id", fields)
    records = read_records(path, text_field=text_field, extra_fields=fields)
    return records.ids, records.fields, records.texts


def counting_engine(engine: str, workers: int, ray_address: str | None):
    """The ``map`` that counts the batches of authors: the builtin one here, or Ray's (checked before any work:
    an unknown engine, no workers, Ray not installed)."""
    from authorguard.utils.extras import require_extra

    if engine not in ("local", "ray"):
        raise InputError(f"unknown --engine {engine!r} (known: local, ray)")
    if engine == "local":
        return map
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    require_extra("ray")
    from authorguard.batch.engines import ray_map

    return ray_map(workers, ray_address)


def write_release(output: Path, labels: list[str], counts, model) -> None:
    """One JSON line per synthetic document: {"id", "label", "counts": {term: count}}, counts descending."""
    from authorguard.data.io import atomic_write

    terms = sorted(model.vocabulary_, key=lambda term: model.vocabulary_[term])
    counts = counts.tocsr()
    with atomic_write(output) as out:
        for i, label in enumerate(labels):
            row = counts.getrow(i)
            order = sorted(zip(row.indices, row.data), key=lambda item: (-item[1], item[0]))
            bag = {terms[j]: int(c) for j, c in order}
            out.write(json.dumps({"id": f"synthetic-{i + 1:06d}", "label": label, "counts": bag}) + "\n")
