"""``authorguard demo``: SynTF on a slice of 20 Newsgroups, offline, with the defaults a user should run.

It shows what a user needs to judge a release: what one release costs (the exact loss), what one message
becomes (noisy: that is the protection), what survives across the messages of one topic (that is the utility),
and how well a topic classifier trained and tested on released vectors does against one on the originals. The
vocabulary is the public one (the embeddings' 30,000 most frequent words), as for a real release: a vocabulary
fitted on the messages would reveal which words, names included, occur in them.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from rich.table import Table

from authorguard.cli.common import Stages, handle_errors, set_data_dir, stdout
from authorguard.cli.privacy import print_report


def _top_terms(names: np.ndarray, matrix, rows, top: int) -> str:
    totals = np.asarray(matrix[rows].sum(axis=0)).ravel()
    order = np.argsort(-totals, kind="stable")[:top]
    return ", ".join(f"{names[i]}×{int(totals[i])}" for i in order if totals[i] > 0)


def _topic_accuracy(train, test, train_labels, test_labels) -> float:
    """tf-idf + multinomial naive Bayes (alpha 0.01), the SynTF paper's analyst, on count vectors."""
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    model = make_pipeline(TfidfTransformer(), MultinomialNB(alpha=0.01)).fit(train, train_labels)
    return float(np.mean(model.predict(test) == np.asarray(test_labels)))


@handle_errors
def demo(
    documents: Annotated[int, typer.Option(help="How many 20 Newsgroups training messages to use.")] = 2000,
    epsilon: Annotated[
        float | None, typer.Option(help="Privacy parameter per sampled word (default: SynTF's).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the document choice and of SynTF.")] = 0,
    data_dir: Annotated[
        Path | None,
        typer.Option(help="Data directory holding 20news/20news-bydate.tar.gz (default: $AUTHORGUARD_DATA)."),
    ] = None,
) -> None:
    """Run SynTF on real messages (20 Newsgroups): the privacy report, what the output looks like, what it costs."""
    set_data_dir(data_dir)
    corpus, model, counts, synthetic, report = _release(documents, epsilon, seed)
    stdout.print(
        f"SynTF released {synthetic.shape[0]} vectors over a vocabulary of {synthetic.shape[1]:,} words "
        f"({model.embeddings_name_}, morphology {model.morphology}, s = {model.bigram_weight}, "
        f"n = {model.n_words}, ε = {model.epsilon})."
    )
    print_report(report)
    stdout.print(
        f"Each released message costs ℓ·n = {report.tight_epsilon:,.0f} (ℓ = {report.loss_per_word:.2f} per word): "
        "a weak formal guarantee, as at the paper's settings; the attack measurements in "
        "docs/results/syntf-20news.md say what it buys in practice."
    )
    _print_messages(corpus, model, counts, synthetic)
    _print_topics(np.asarray(corpus.labels), model.get_feature_names_out(), counts, synthetic)
    _print_cost(np.asarray(corpus.labels), counts, synthetic, seed)
    stdout.print(
        "The vocabulary is public (the embeddings' 30,000 most frequent words), as for a real release: "
        "authorguard syntf FILE -o OUT --vocabulary embeddings."
    )


def _release(documents: int, epsilon: float | None, seed: int):
    """(corpus, fitted SynTF, counts, released counts, privacy report) of DOCUMENTS messages drawn at SEED."""
    from authorguard.data.newsgroups import load_20newsgroups
    from authorguard.methods import syntf_defaults
    from authorguard.methods.syntf import SynTF

    with Stages("demo") as stages:
        stages.stage("loading 20 Newsgroups")
        corpus = load_20newsgroups(subset="train")
        rng = np.random.default_rng(seed)
        chosen = np.sort(rng.choice(len(corpus), size=min(documents, len(corpus)), replace=False))
        corpus = corpus.subset(chosen)
        stages.stage(f"fitting SynTF's public vocabulary and mechanism, tokenising {len(corpus)} messages")
        model = SynTF(
            epsilon=syntf_defaults.EPSILON if epsilon is None else epsilon,
            vocabulary="embeddings",
            max_features=syntf_defaults.PUBLIC_VOCABULARY_SIZE,
            random_state=seed,
        )
        counts = model.fit_term_counts(corpus.texts)
        advance = stages.stage(
            f"releasing {len(corpus)} messages (one pass over the mechanism)", total=model.mechanism_.vocabulary_size
        )
        synthetic = model.synthesize(counts, on_progress=advance)
        advance = stages.stage("computing the exact privacy loss", total=model.mechanism_.vocabulary_size)
        model.loss_per_word(on_progress=advance)
        report = model.privacy_report(documents_without_vocabulary=int(np.sum(np.diff(counts.indptr) == 0)))
    return corpus, model, counts, synthetic, report


def _print_messages(corpus, model, counts, synthetic) -> None:
    """Two messages of typical length beside their releases (a very short one shows the resampling more than the
    message), and how to read them."""
    table = Table(title="One message: what the analyst receives", show_lines=True)
    table.add_column("message")
    table.add_column("original terms (top 8)")
    table.add_column("released synthetic terms (top 8)")
    in_vocabulary = np.asarray(counts.sum(axis=1)).ravel()
    typical = np.argsort(np.abs(in_vocabulary - np.median(in_vocabulary)), kind="stable")
    for row in sorted(typical[:2].tolist()):
        snippet = textwrap.shorten(" ".join(corpus.texts[row].split()), 160)
        original = ", ".join(f"{w}×{c}" for w, c in model.inverse_words(counts, row, 8))
        released = ", ".join(f"{w}×{c}" for w, c in model.inverse_words(synthetic, row, 8))
        table.add_row(
            f"{corpus.ids[row]} ({corpus.labels[row]}; {int(in_vocabulary[row])} vocabulary words)\n{snippet}",
            original,
            released,
        )
    stdout.print(table)
    stdout.print(
        f"How to read it: each released message is {model.n_words} words drawn anew - pick one of the "
        f"message's own vocabulary words at random, then replace it by a word near it in meaning (often "
        f"itself) - so a message with fewer than {model.n_words} vocabulary words has each drawn several "
        f"times: a word can appear more often in the release than in the message. Names outside the public "
        f"vocabulary never appear."
    )


def _print_topics(labels: np.ndarray, names: np.ndarray, counts, synthetic) -> None:
    """The two largest newsgroups' top terms, original and released: what survives across a topic."""
    topic_table = Table(title="One topic: what survives across its messages", show_lines=True)
    topic_table.add_column("newsgroup")
    topic_table.add_column("original terms (top 10)")
    topic_table.add_column("released synthetic terms (top 10)")
    for label, _ in Counter(labels.tolist()).most_common(2):
        rows = np.flatnonzero(labels == label)
        topic_table.add_row(
            f"{label}\n({len(rows)} messages)",
            _top_terms(names, counts, rows, 10),
            _top_terms(names, synthetic, rows, 10),
        )
    stdout.print(topic_table)


def _print_cost(labels: np.ndarray, counts, synthetic, seed: int) -> None:
    """A topic classifier's accuracy on released vectors against the originals (a 75 / 25 split at SEED)."""
    split = np.random.default_rng(seed).random(len(labels)) < 0.75
    if not (split.sum() and (~split).sum()):
        return
    original_accuracy = _topic_accuracy(counts[split], counts[~split], labels[split], labels[~split])
    released_accuracy = _topic_accuracy(synthetic[split], synthetic[~split], labels[split], labels[~split])
    stdout.print(
        f"What it costs: a topic classifier (tf-idf + naive Bayes, {int(split.sum())} messages to train, "
        f"{int((~split).sum())} to test, {len(set(labels))} newsgroups) reaches accuracy "
        f"{released_accuracy:.2f} on released vectors and {original_accuracy:.2f} on the originals "
        f"(chance {1 / len(set(labels)):.2f})."
    )
