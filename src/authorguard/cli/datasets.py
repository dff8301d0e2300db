"""``authorguard datasets``: list the registered corpora and describe one (counts, splits, label columns)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from authorguard.cli.common import handle_errors, print_json, set_data_dir, stdout
from authorguard.exceptions import InputError

app = typer.Typer(help="The registered corpora.", no_args_is_help=True)


@app.command("list")
@handle_errors
def list_datasets() -> None:
    """Every registered dataset with a one-line description."""
    from authorguard import registry

    table = Table(title="Datasets")
    table.add_column("name")
    table.add_column("what it is")
    for name in registry.datasets.names():
        table.add_row(name, registry.datasets.describe(name))
    stdout.print(table)


@app.command("describe")
@handle_errors
def describe(
    name: Annotated[str, typer.Argument(help="A registered dataset (authorguard datasets list).")],
    path: Annotated[Path | None, typer.Option(help="The file, for datasets read from one (records).")] = None,
    top: Annotated[int, typer.Option(help="Most frequent values shown per label column.")] = 10,
    text_field: Annotated[str, typer.Option(help="With --path: the field holding the text.")] = "text",
    id_field: Annotated[str, typer.Option(help="With --path: the field holding the record id.")] = "id",
    author_field: Annotated[str, typer.Option(help="With --path: the field holding the author.")] = "author",
    label_field: Annotated[
        str, typer.Option(help="With --path: the field holding the label ('none': the file has no labels).")
    ] = "label",
    split_field: Annotated[
        str, typer.Option(help="With --path: the field holding train/test ('none': every record is train).")
    ] = "split",
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default: $AUTHORGUARD_DATA).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Load NAME and print its counts: documents, authors, words per document, splits and label columns."""
    from authorguard import registry
    from authorguard.data.corpus import describe as describe_corpus

    set_data_dir(data_dir)
    loader = registry.datasets.get(name)
    needs_path = "path" in inspect.signature(loader).parameters
    if needs_path and path is None:
        raise InputError(f"dataset {name!r} is read from a file: give --path FILE")
    if path is not None and not needs_path:
        raise InputError(f"dataset {name!r} takes no --path")
    if needs_path:
        fields = {
            "text_field": text_field,
            "id_field": id_field,
            "author_field": author_field,
            "label_field": None if label_field.lower() == "none" else label_field,
            "split_field": None if split_field.lower() == "none" else split_field,
        }
        accepted = inspect.signature(loader).parameters
        try:
            corpus = loader(path, **{key: value for key, value in fields.items() if key in accepted})
        except InputError as error:
            if " field" not in str(error):
                raise
            raise InputError(
                f"{error} (name the fields with --text-field, --id-field, --author-field, --label-field, "
                f"--split-field; 'none' for labels or splits the file lacks)"
            ) from None
    else:
        corpus = loader()
    summary = describe_corpus(corpus, top=top)
    if json_output:
        print_json(summary)
        return
    stdout.print(
        f"[bold]{escape(str(summary['name']))}[/bold]: {summary['documents']:,} documents by {summary['authors']:,} "
        "authors, "
        f"{summary['words_mean']:.1f} words on average (median {summary['words_median']:.0f}); "
        f"splits {escape(str(summary['splits']))}",
        markup=True,
    )
    table = Table(title="Label columns")
    table.add_column("column")
    table.add_column("distinct", justify="right")
    table.add_column("missing", justify="right")
    table.add_column(f"most frequent (up to {top})")
    for column, info in summary["columns"].items():
        table.add_row(
            column,
            f"{info['distinct']:,}",
            f"{info['missing']:,}",
            ", ".join(f"{k}: {v:,}" for k, v in info["top"].items()),
        )
    stdout.print(table)
    for key, value in summary["metadata"].items():
        stdout.print(f"{key}: {value}")


@app.command("scenarios")
@handle_errors
def scenarios(
    names: Annotated[
        list[str] | None, typer.Argument(help="Scenarios (default: all): BAC-10, AMT-10, blog-age, speech, …")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the train / validation / test split.")] = 0,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default: $AUTHORGUARD_DATA).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Build the text-benchmark scenarios and print their counts (beside TAROT's Table 1 where it has them)."""
    from authorguard import registry
    from authorguard.data.splits import SCENARIOS, split_counts

    set_data_dir(data_dir)
    names = names or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise InputError(f"unknown scenario {unknown[0]!r} (known: {', '.join(SCENARIOS)})")
    corpora: dict = {}
    rows = []
    for name in names:
        scenario = SCENARIOS[name].with_seed(seed)
        if scenario.dataset not in corpora:
            corpora[scenario.dataset] = registry.datasets.get(scenario.dataset)()
        rows.append({"dataset": scenario.dataset, **split_counts(scenario.selection.select(corpora[scenario.dataset]))})
    if json_output:
        print_json(rows)
        return
    table = Table(title=f"Scenarios (seed {seed})")
    for column in (
        "scenario",
        "dataset",
        "authors",
        "documents",
        "words/doc",
        "train / validation / test docs",
        "classes",
        "TAROT docs",
        "TAROT words/doc",
    ):
        table.add_column(column)
    for row in rows:
        splits = " / ".join(f"{row['splits'][s]['documents']:,}" for s in ("train", "validation", "test"))
        table.add_row(
            row["scenario"],
            row["dataset"],
            str(row["authors"]),
            f"{row['documents']:,}",
            f"{row['words_mean']:.0f}",
            splits,
            str(len(row["classes"])),
            "–" if row["tarot_documents"] is None else f"{row['tarot_documents']:,}",
            "–" if row["tarot_words_mean"] is None else str(row["tarot_words_mean"]),
        )
    stdout.print(table)


@app.command("export")
@handle_errors
def export(
    name: Annotated[str, typer.Argument(help="A registered dataset (authorguard datasets list).")],
    output: Annotated[
        Path,
        typer.Option(
            "--output",
            "-o",
            help="A .jsonl, .csv or .parquet file (records: id, text, author, split and every label column), or a "
            "folder: one plain-text file per document, AUTHOR-N.txt.",
        ),
    ],
    authors: Annotated[
        int, typer.Option(min=1, help="How many authors: the most prolific with --per-author documents.")
    ] = 10,
    per_author: Annotated[
        int, typer.Option(min=1, help="Documents per author (each author's first, in corpus order).")
    ] = 20,
    split: Annotated[str | None, typer.Option(help="Only this split (train, test, ...).")] = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default: $AUTHORGUARD_DATA).")] = None,
) -> None:
    """Write a sample of NAME's documents to try the other commands on real text: the AUTHORS most prolific authors
    with PER_AUTHOR documents each (deterministic: the same command writes the same sample)."""
    from authorguard.data import load_dataset
    from authorguard.data.corpus import export_sample

    set_data_dir(data_dir)
    corpus = load_dataset(name)
    if split is not None:
        corpus = corpus.split(split)
    written = export_sample(corpus, output, authors=authors, per_author=per_author)
    documents, authors = written["documents"], written["authors"]
    stdout.print(
        f"wrote {documents} {'document' if documents == 1 else 'documents'} of {authors} "
        f"{'author' if authors == 1 else 'authors'} of {name} to {output}"
    )
