"""``authorguard demo``: SynTF on a slice of 20 Newsgroups, offline, with built-in defaults."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from authorguard.cli.common import console, handle_errors, progress, set_data_dir
from authorguard.cli.privacy import print_report


@handle_errors
def demo(
    documents: Annotated[int, typer.Option(help="How many 20 Newsgroups training messages to use.")] = 2000,
    epsilon: Annotated[float, typer.Option(help="Privacy parameter per sampled word.")] = 47.5,
    seed: Annotated[int, typer.Option(help="Seed of the document choice and of SynTF.")] = 0,
    data_dir: Annotated[Path | None, typer.Option(help="Data directory holding 20news/20news-bydate.tar.gz (default: $AUTHORGUARD_DATA).")] = None,
) -> None:
    """Run SynTF on real messages (20 Newsgroups) and show the privacy report and what the output looks like."""
    from authorguard.data.newsgroups import load_20newsgroups
    from authorguard.methods.syntf import SynTF

    set_data_dir(data_dir)
    with progress() as bars:
        bars.add_task("loading 20 Newsgroups", total=None)
        corpus = load_20newsgroups(subset="train")
        rng = np.random.default_rng(seed)
        chosen = np.sort(rng.choice(len(corpus), size=min(documents, len(corpus)), replace=False))
        corpus = corpus.subset(chosen)
        bars.add_task(f"fitting SynTF on {len(corpus)} messages", total=None)
        model = SynTF(epsilon=epsilon, random_state=seed).fit(corpus.texts)
        counts = model.term_counts(corpus.texts)
        synthetic = model.synthesize(counts)
        bars.add_task("computing the exact privacy loss", total=None)
        report = model.privacy_report(documents_without_vocabulary=int(np.sum(np.diff(counts.indptr) == 0)))
    console.print(f"SynTF released {synthetic.shape[0]} vectors over a vocabulary of {synthetic.shape[1]:,} words "
                  f"({model.embeddings_name_}, morphology {model.morphology}, s = {model.bigram_weight}, n = {model.n_words}).")
    print_report(report)
    table = Table(title="What the analyst receives (two messages)", show_lines=True)
    table.add_column("message")
    table.add_column("original terms (top 8)")
    table.add_column("released synthetic terms (top 8)")
    for row in (0, len(corpus) // 2):
        snippet = textwrap.shorten(" ".join(corpus.texts[row].split()), 160)
        original = ", ".join(f"{w}×{c}" for w, c in model.inverse_words(counts, row, 8))
        released = ", ".join(f"{w}×{c}" for w, c in model.inverse_words(synthetic, row, 8))
        table.add_row(f"{corpus.ids[row]} ({corpus.labels[row]})\n{snippet}", original, released)
    console.print(table)
    console.print("The vocabulary was fitted on these messages (a leak epsilon does not cover); "
                  "pass a public vocabulary for real releases: authorguard syntf --vocabulary embeddings.")
