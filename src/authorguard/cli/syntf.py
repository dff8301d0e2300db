"""``authorguard syntf``: synthetic term-frequency vectors for a file or a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from authorguard.cli.common import Stages, console, handle_errors, print_json, set_data_dir, stdout
from authorguard.exceptions import InputError
from authorguard.methods import syntf_defaults as defaults


def load_input(source: str, text_field: str, id_field: str | None):
    """(ids, texts) from a JSONL/CSV/Parquet file or a registered dataset name; a named ``id_field`` must exist
    (None: ``"id"``, or positions when the file has none)."""
    from authorguard import registry
    from authorguard.data.io import read_records

    if Path(source).exists() or Path(source).suffix:
        records = read_records(
            source, text_field=text_field, id_field=id_field or "id", require_id=id_field is not None
        )
        return records.ids, records.texts
    if source in registry.datasets:
        corpus = registry.datasets.get(source)()
        return list(corpus.ids), list(corpus.texts)
    raise InputError(f"{source!r} is neither a file nor a dataset ({', '.join(registry.datasets.names())})")


def report_path(output: Path) -> Path:
    return output.with_name(output.stem + ".privacy.json")


def write_output(output: Path, ids: list, matrix, vocabulary: np.ndarray) -> None:
    from authorguard.methods.output import save_counts_npz

    if output.suffix == ".npz":
        save_counts_npz(output, matrix, vocabulary, ids)
        return
    import json

    from authorguard.data.io import atomic_write

    matrix = matrix.tocsr()
    matrix.sort_indices()
    # the same text as json.dumps({"id": ..., "counts": {word: count}}) per line (counts descending, ties in
    # vocabulary order), each word's JSON key and each count's digits built once and every row's items ordered by
    # one lexsort: per-document sorting and formatting took a quarter of the whole command
    keys = np.array([json.dumps(str(word), ensure_ascii=False) + ": " for word in vocabulary], dtype=object)
    data = np.asarray(matrix.data, dtype=np.int64)
    row_of = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    order = np.lexsort((np.arange(matrix.nnz), -data, row_of))
    numbers = np.array([str(c) for c in range(int(data.max(initial=0)) + 1)], dtype=object)
    words, ordered_counts = matrix.indices[order], data[order]
    # nearly every count is 1 (150 draws over 30,000 words): those items are picked from "key: 1" strings built
    # once per word, and only the others concatenated (3 million string additions took 0.9 s)
    items = (keys + "1")[words] if len(keys) else np.empty(0, dtype=object)
    repeated = np.flatnonzero(ordered_counts != 1)
    items[repeated] = keys[words[repeated]] + numbers[ordered_counts[repeated]]
    lines = items.tolist()
    ends = matrix.indptr.tolist()
    with atomic_write(output) as out:
        for i, identifier in enumerate(ids):
            counts = ", ".join(lines[ends[i] : ends[i + 1]])
            out.write(f'{{"id": {json.dumps(identifier, ensure_ascii=False)}, "counts": {{{counts}}}}}\n')


InputSource = Annotated[str, typer.Argument(help="JSONL, CSV or Parquet file, or a dataset name (e.g. 20news).")]
OutputPath = Annotated[
    Path, typer.Option("--output", "-o", help="Output: .jsonl (one line per input record) or .npz (sparse matrix).")
]
TargetLoss = Annotated[
    float | None,
    typer.Option(
        help="Instead of --epsilon: calibrate epsilon so that the exact loss per word on the vocabulary is this."
    ),
]
NWords = Annotated[int, typer.Option(help="Words sampled per document (each output sums to this).")]
BigramWeight = Annotated[
    float, typer.Option(help="Weight s of the letter-bigram penalty, in [0, 1] (the paper's s / 2).")
]
Embeddings = Annotated[str, typer.Option(help="Embeddings name (glove-6b-50d, minilm-static) or GloVe text file.")]
Vocabulary = Annotated[
    str | None,
    typer.Option(
        help="Public vocabulary: 'embeddings' (the embeddings' most frequent words, 30,000 by default) or a "
        "word-list file (one per line). Default: fitted on INPUT (a leak epsilon does not cover)."
    ),
]
MaxFeatures = Annotated[
    int | None,
    typer.Option(
        help="Keep at most this many vocabulary words (the most frequent; default 30,000 with --vocabulary "
        "embeddings, all otherwise)."
    ),
]
IdField = Annotated[
    str | None,
    typer.Option(
        help="Field holding the record id (default 'id'; without one, records are "
        "numbered by position; a field named here must exist)."
    ),
]
NJobs = Annotated[
    int, typer.Option(help="Processes for tokenising large inputs (-1: every core; the output does not depend on it).")
]


def syntf(
    input: InputSource,
    output: OutputPath,
    epsilon: Annotated[float, typer.Option(help="Privacy parameter per sampled word, > 0.")] = defaults.EPSILON,
    target_loss: TargetLoss = None,
    n_words: NWords = defaults.N_WORDS,
    bigram_weight: BigramWeight = defaults.BIGRAM_WEIGHT,
    morphology: Annotated[str, typer.Option(help="lemma, lower or orth.")] = defaults.MORPHOLOGY,
    synsets: Annotated[bool, typer.Option("--synsets", help="Extend the vocabulary with WordNet synonyms.")] = False,
    embeddings: Embeddings = "glove-6b-50d",
    vocabulary: Vocabulary = None,
    max_features: MaxFeatures = None,
    seed: Annotated[int | None, typer.Option(help="Seed for reproducible output (ignored with --secure).")] = None,
    secure: Annotated[bool, typer.Option("--secure", help="Draw randomness from the OS CSPRNG.")] = False,
    text_field: Annotated[str, typer.Option(help="Field holding the text.")] = "text",
    id_field: IdField = None,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory (default: $AUTHORGUARD_DATA).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the privacy report as JSON.")] = False,
    n_jobs: NJobs = -1,
) -> None:
    """Release SynTF vectors of every INPUT document, in input order, plus a privacy report beside OUTPUT."""
    from authorguard.methods.syntf_params import check_syntf_parameters

    set_data_dir(data_dir)
    if output.suffix not in (".jsonl", ".npz"):
        raise InputError(f"{output}: output must end in .jsonl or .npz")
    if max_features is None and vocabulary == "embeddings":
        max_features = defaults.PUBLIC_VOCABULARY_SIZE
    params: dict[str, Any] = {
        "epsilon": epsilon,
        "n_words": n_words,
        "bigram_weight": bigram_weight,
        "morphology": morphology,
        "synsets": synsets,
        "embeddings": embeddings,
        "vocabulary": vocabulary,
        "min_df": 1,
        "max_features": max_features,
        "random_state": seed,
        "secure": secure,
        "n_jobs": n_jobs,
    }
    check_syntf_parameters(params)  # fail on bad options before reading the input
    ids, model, report, empty = release(input, output, params, text_field, id_field, target_loss)
    if json_output:
        print_json(report.to_dict())
    else:
        from authorguard.cli.privacy import print_report

        print_report(report)
        stdout.print(f"wrote {len(ids)} records to {output} and the report to {report_path(output)}")
    print_notes(empty, model.vocabulary_source_)


def release(
    input: str, output: Path, params: dict[str, Any], text_field: str, id_field: str | None, target_loss: float | None
):
    """Read INPUT, fit SynTF with PARAMS, write its vectors to OUTPUT and its report beside; returns (ids, the fitted
    model, the privacy report, the number of documents without a vocabulary word)."""
    from authorguard.text.analysis import TermAnalyzer
    from authorguard.text.counting import start_counting

    with Stages("syntf") as stages:
        stages.stage("reading input")
        ids, texts = load_input(input, text_field, id_field)
        # the counting starts in forked workers before scikit-learn and numba are imported here: the two overlap
        counted = start_counting(texts, TermAnalyzer(params["morphology"]), n_jobs=params["n_jobs"])
        from authorguard.methods.syntf import SynTF

        model = SynTF(**params)
        stages.stage(f"fitting the vocabulary and the mechanism on {len(texts):,} documents (tokenising once)")
        counts = model.fit_term_counts(texts, counted=counted)
        if target_loss is not None:
            stages.stage(f"calibrating epsilon for a loss of {target_loss} per word")
            model.calibrate(target_loss)
        # one pass over the mechanism's rows the input needs; a pass over all of them also gives the exact loss
        advance = stages.stage(
            f"synthesising {len(ids):,} documents (vocabulary of {model.mechanism_.vocabulary_size:,} words)",
            total=model.mechanism_.vocabulary_size,
        )
        synthetic = model.synthesize(counts, on_progress=advance)
        advance = stages.stage(
            "computing the exact loss per word (one pass over the mechanism)", total=model.mechanism_.vocabulary_size
        )
        model.loss_per_word(on_progress=advance)
        empty = int(np.sum(np.diff(counts.indptr) == 0))
        report = model.privacy_report(documents_without_vocabulary=empty)
        stages.stage("writing output")
        write_output(output, ids, synthetic, model.get_feature_names_out())
        from authorguard.data.io import write_json

        write_json(report_path(output), report.to_dict())
    if synthetic.shape[0] != len(ids):  # the contract, checked: one output record per input record
        raise InputError(f"internal error: {synthetic.shape[0]} outputs for {len(ids)} inputs")
    return ids, model, report, empty


def print_notes(empty: int, vocabulary_source: str) -> None:
    """Notes on stderr (with --json, stdout is the JSON alone): uniform vectors, a vocabulary fitted on the input."""
    if empty:
        console.print(
            f"note: {empty} documents had no vocabulary word; their vectors were drawn from the uniform distribution"
        )
    if vocabulary_source == "fitted":
        console.print(
            "note: the vocabulary was fitted on INPUT: it reveals which words occur there, and rare words of the "
            "input (names included) can appear in the release - a leak epsilon does not cover; "
            "--vocabulary embeddings uses a public vocabulary instead"
        )


command = handle_errors(syntf)
