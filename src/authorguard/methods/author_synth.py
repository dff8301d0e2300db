"""A synthetic labelled corpus with (ε, δ)-DP per author: bags of words sampled from noisy class-conditional term
statistics (:mod:`authorguard.privacy.author_level`), in noisy class proportions, with lengths from a noisy length
histogram. No record of the release is any author's document: the task works, the texts are gone.

Fitting streams the corpus once, author by author: each author's documents are chosen (at most ``max_documents``,
by the smallest keyed hashes of their ids — a choice that does not depend on the order or sharding of the input),
cut to ``max_words`` words, counted on a **public** vocabulary (GloVe's most frequent words, never read from the
corpus), each document's term vector scaled to unit L2 norm, summed per author and clipped to ``clip``; the sums
over authors are the only thing the noise is added to. Everything after the noise is post-processing: noisy term
sums under ``threshold`` noise deviations dropped (each of the thousands of empty cells would otherwise add its
noise), negatives clipped, rows normalised to distributions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from authorguard.data.io import texts_at
from authorguard.exceptions import InputError
from authorguard.privacy.author_level import (
    AuthorBound,
    AuthorLevelReport,
    add_noise,
    calibrate,
    chosen_documents,
    report,
)
from authorguard.utils.random import RandomState, as_generator
from authorguard.utils.validation import check_number

#: clusters of the public vocabulary (k-means over its GloVe vectors): the coarse release's columns
N_CLUSTERS = 500
#: authors counted together (their documents' counting is one batch): memory is flat in corpus size
AUTHORS_PER_BATCH = 2_000


def length_edges(max_words: int) -> np.ndarray:
    """The length histogram's bin edges, in counted terms: 0, 1, 2, 4, ... up to past ``max_words``; bin i holds
    lengths in [edges[i], edges[i + 1])."""
    edges = [0, 1]
    while edges[-1] <= max_words:
        edges.append(edges[-1] * 2)
    return np.asarray(edges, dtype=np.int64)


def _cut(text: str, max_words: int) -> str:
    words = text.split()
    return text if len(words) <= max_words else " ".join(words[:max_words])


@dataclass
class Aggregates:
    """The summed, bounded contributions: ``terms`` (labels x vocabulary) of clipped unit-norm term vectors,
    ``clusters`` (labels x word clusters) the same over the counts summed by cluster, ``classes`` (documents per label),
    ``lengths`` (documents per length bin); ``authors`` and ``documents``
    counted (the number of authors is not released, only used to report what was bounded)."""

    terms: np.ndarray
    clusters: np.ndarray
    classes: np.ndarray
    lengths: np.ndarray
    authors: int = 0
    documents: int = 0
    dropped_documents: int = 0

    def __add__(self, other: Aggregates) -> Aggregates:
        return Aggregates(
            self.terms + other.terms,
            self.clusters + other.clusters,
            self.classes + other.classes,
            self.lengths + other.lengths,
            self.authors + other.authors,
            self.documents + other.documents,
            self.dropped_documents + other.dropped_documents,
        )

    def released(self) -> dict[str, np.ndarray]:
        return {"terms": self.terms, "clusters": self.clusters, "classes": self.classes, "lengths": self.lengths}


def author_sums(counts: sp.csr_matrix, owner: np.ndarray, label: np.ndarray, n_labels: int, clip: float):
    """Per author (``owner``: 0..n_authors-1 per row) the sum of their documents' unit-norm rows of counts, each
    placed in its label's block of columns, clipped to L2 norm ``clip``: (n_authors, n_labels * columns) csr."""
    counts = sp.csr_matrix(counts, dtype=np.float64)
    norms = np.sqrt(np.asarray(counts.multiply(counts).sum(axis=1)).ravel())
    unit = sp.diags(np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)) @ counts
    unit = unit.tocsr()
    width = counts.shape[1]
    shifted = sp.csr_matrix(
        (unit.data, unit.indices + np.repeat(label * width, np.diff(unit.indptr)), unit.indptr),
        shape=(counts.shape[0], n_labels * width),
    )
    n_authors = int(owner.max()) + 1 if owner.size else 0
    by_author = sp.csr_matrix((np.ones(len(owner)), (owner, np.arange(len(owner)))), shape=(n_authors, len(owner)))
    summed = (by_author @ shifted).tocsr()
    lengths = np.sqrt(np.asarray(summed.multiply(summed).sum(axis=1)).ravel())
    scale = np.minimum(1.0, np.divide(clip, lengths, out=np.ones_like(lengths), where=lengths > 0))
    return (sp.diags(scale) @ summed).tocsr()


@dataclass
class CountingJob:
    """One batch of authors to count, self-contained so that another process or a Ray worker can run it:
    ``texts`` (a list, or :class:`~authorguard.data.io.JsonlTexts` that the worker reads itself), each text's
    author code within the batch (``owners``, 0..n-1) and label index; the public vocabulary, its clusters, the
    morphology and the bound."""

    texts: Sequence[str]
    owners: np.ndarray
    labels: np.ndarray
    n_labels: int
    vocabulary: dict[str, int]
    clusters: np.ndarray
    morphology: str
    bound: AuthorBound


def count_job(job: CountingJob) -> Aggregates:
    """The bounded sums of one batch of authors (each author wholly inside it)."""
    from authorguard.text.analysis import TermAnalyzer
    from authorguard.text.counting import count_terms

    width, n_clusters = len(job.vocabulary), int(job.clusters.max()) + 1
    by_cluster = sp.csr_matrix((np.ones(width), (np.arange(width), job.clusters)), shape=(width, n_clusters))
    edges = length_edges(job.bound.max_words)
    texts = [_cut(job.texts[i], job.bound.max_words) for i in range(len(job.texts))]
    counts, _ = count_terms(texts, TermAnalyzer(job.morphology), job.vocabulary)
    summed = author_sums(counts, job.owners, job.labels, job.n_labels, job.bound.clip)
    coarse = author_sums(counts @ by_cluster, job.owners, job.labels, job.n_labels, job.bound.clip)
    terms_counted = np.asarray(counts.sum(axis=1)).ravel()
    # a word can give several terms ("state-of-the-art"): a length past the last edge goes in the last bin
    bins = np.minimum(np.searchsorted(edges, terms_counted, side="right") - 1, len(edges) - 2)
    return Aggregates(
        np.asarray(summed.sum(axis=0)).reshape(job.n_labels, width),
        np.asarray(coarse.sum(axis=0)).reshape(job.n_labels, n_clusters),
        np.bincount(job.labels, minlength=job.n_labels).astype(np.float64),
        np.bincount(bins, minlength=len(edges) - 1).astype(np.float64),
        authors=int(job.owners.max()) + 1 if job.owners.size else 0,
        documents=len(texts),
    )


def counting_jobs(
    texts: Sequence[str],
    authors: Sequence[object],
    labels: np.ndarray,
    chosen: np.ndarray,
    n_labels: int,
    vocabulary: dict[str, int],
    clusters: np.ndarray,
    morphology: str,
    bound: AuthorBound,
):
    """The ``chosen`` documents as :class:`CountingJob` s of ``AUTHORS_PER_BATCH`` whole authors each (lazily:
    a job's texts are taken only when it is made)."""
    author_of = np.asarray([str(authors[i]) for i in chosen], dtype=object)
    names, codes = np.unique(author_of, return_inverse=True)
    for first in range(0, len(names), AUTHORS_PER_BATCH):
        batch = np.flatnonzero((codes >= first) & (codes < first + AUTHORS_PER_BATCH))
        positions = chosen[batch]
        yield CountingJob(
            texts_at(texts, positions.tolist()),
            codes[batch] - first,
            labels[positions],
            n_labels,
            vocabulary,
            clusters,
            morphology,
            bound,
        )


def aggregate(jobs, mapper=map) -> Aggregates:
    """The sums over every job: ``mapper(count_job, jobs)`` runs them (the builtin ``map`` in this process, or an
    engine's, e.g. :func:`authorguard.batch.engines.ray_map`) and the results are added as they come."""
    total: Aggregates | None = None
    for found in mapper(count_job, jobs):
        total = found if total is None else total + found
    if total is None:
        raise InputError("synthesis: no document was counted")
    return total


def public_vocabulary(size: int, analyzer, embeddings: str = "glove-6b-50d") -> tuple[dict[str, int], np.ndarray]:
    """The ``size`` most frequent words of the public embeddings (GloVe is ordered by frequency), normalised by
    ``analyzer`` (stop words and numbers removed): (term -> column, in sorted order; each column's frequency rank in
    the public source, 0 the most frequent)."""
    from authorguard.embeddings import load_word_vectors

    terms: dict[str, int] = {}
    for word in load_word_vectors(embeddings).words:
        term = analyzer.normalize_word(word)
        if term and term not in terms:
            terms[term] = len(terms)
            if len(terms) >= size:
                break
    ordered = sorted(terms)
    return {term: j for j, term in enumerate(ordered)}, np.asarray([terms[t] for t in ordered], dtype=np.int64)


def word_clusters(
    vocabulary: dict[str, int], n_clusters: int, embeddings: str = "glove-6b-50d", seed: int = 0
) -> np.ndarray:
    """Each column's cluster: k-means (``n_clusters``, seeded) over the words' unit GloVe vectors — public data
    only, the same clustering for every corpus; a word without a vector is a cluster of its own... of the last one."""
    from sklearn.cluster import MiniBatchKMeans

    from authorguard.embeddings import load_word_vectors

    words = sorted(vocabulary, key=lambda term: vocabulary[term])
    vectors = load_word_vectors(embeddings, vocabulary=words)
    matrix = np.zeros((len(words), vectors.dim), dtype=np.float64)
    present = [i for i, w in enumerate(words) if w in vectors]
    if present:
        matrix[present] = vectors.vector_matrix([words[i] for i in present])
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    k = max(1, min(n_clusters, len(words)))
    return MiniBatchKMeans(k, random_state=seed, n_init=3, batch_size=1024).fit_predict(matrix).astype(np.int64)


def spread_over_words(cluster_sums: np.ndarray, clusters: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """Cluster masses (labels x clusters) spread over their words (labels x vocabulary) by the words' public
    frequency (Zipf: a share proportional to 1 / (rank + 10) within the cluster)."""
    share = 1.0 / (ranks + 10.0)
    totals = np.bincount(clusters, weights=share, minlength=cluster_sums.shape[1])
    return cluster_sums[:, clusters] * (share / totals[clusters])


class AuthorLevelSynthesiser:
    """Synthetic labelled bags of words with (``epsilon``, ``delta``)-DP per author.

    ``max_documents``, ``max_words``, ``clip``: the contribution bound (:class:`AuthorBound`); ``vocabulary_size``:
    the public vocabulary's words; ``morphology``: the terms (``lower``: lower-cased words; ``lemma``; ``orth``);
    ``threshold``: noisy term sums under this many noise deviations are dropped; ``random_state``: the document
    choice and, unless ``secure``, the noise and the sampling; ``secure``: the noise from OpenDP's CSPRNG sampler and
    the sampling from the operating system's (for real releases; not reproducible).

    ``fit(texts, authors, labels)`` then ``sample()`` -> (labels, csr counts over ``vocabulary_``);
    ``privacy_report()``."""

    def __init__(
        self,
        epsilon: float = 4.0,
        delta: float = 1e-5,
        *,
        max_documents: int = 10,
        max_words: int = 500,
        clip: float = 1.0,
        vocabulary_size: int = 10_000,
        morphology: str = "lower",
        threshold: float = 3.0,
        mixture: float = 0.5,
        n_clusters: int = N_CLUSTERS,
        random_state: RandomState = None,
        secure: bool = False,
    ) -> None:
        self.epsilon, self.delta = epsilon, delta
        self.bound = AuthorBound(max_documents, max_words, clip)
        self.vocabulary_size, self.morphology, self.threshold = vocabulary_size, morphology, threshold
        self.random_state, self.secure = random_state, secure
        check_number(mixture, "mixture", "synthesis", low=0.0, high=1.0, closed="both")
        check_number(n_clusters, "n_clusters", "synthesis", kind=int, low=1, closed="left")
        self.mixture, self.n_clusters = mixture, n_clusters
        check_number(vocabulary_size, "vocabulary_size", "synthesis", kind=int, low=1, closed="left")
        check_number(threshold, "threshold", "synthesis", low=0.0, closed="left")
        from authorguard.text.analysis import MORPHOLOGIES

        if morphology not in MORPHOLOGIES:
            raise InputError(f"synthesis: unknown morphology {morphology!r} (known: {', '.join(MORPHOLOGIES)})")
        if morphology == "orth":
            raise InputError(
                "synthesis: morphology 'orth' keeps case and the public vocabulary (GloVe) has none: use lower or lemma"
            )
        # the accounting fails now, before any counting, for an epsilon or delta it cannot spend
        check_number(epsilon, "epsilon", "synthesis", low=0.0, closed="neither")
        check_number(delta, "delta", "synthesis", low=0.0, high=1.0, closed="neither")

    def fit(
        self,
        texts: Sequence[str],
        authors: Sequence[object],
        labels: Sequence[object],
        ids: Sequence[object] = (),
        mapper=map,
    ) -> AuthorLevelSynthesiser:
        """Count, bound, add the noise and keep the noisy statistics (post-processed) for :meth:`sample`.
        ``ids``: each document's id (default: its position), the key of the document choice; ``mapper``: how the
        batches of authors are counted (``map``: here; :func:`authorguard.batch.engines.ray_map`: on Ray) — the
        sums, hence the release, are the same either way."""
        from authorguard.text.analysis import TermAnalyzer

        # one author one string: surrounding spaces dropped, a missing value (None, NaN) is no author
        authors = [_normalised(author) for author in authors]
        labels = list(labels)  # texts may be read from disk on demand (JsonlTexts)
        check_corpus(texts, authors, labels)
        ids = list(ids) or list(range(len(texts)))
        if len(ids) != len(texts):
            raise InputError(f"synthesis: {len(ids)} ids for {len(texts)} texts")
        rng = None if self.secure else as_generator(self.random_state)
        seed = int(rng.integers(2**62)) if rng is not None else int.from_bytes(_secure_bytes()[:8], "little")
        self.classes_ = sorted({str(label) for label in labels})
        label_index = {label: k for k, label in enumerate(self.classes_)}
        label_of = np.asarray([label_index[str(label)] for label in labels], dtype=np.int64)
        analyzer = TermAnalyzer(self.morphology)
        self.vocabulary_, self.ranks_ = public_vocabulary(self.vocabulary_size, analyzer)
        self.clusters_ = word_clusters(self.vocabulary_, self.n_clusters)
        chosen = chosen_documents(authors, ids, self.bound.max_documents, seed)
        jobs = counting_jobs(
            texts,
            authors,
            label_of,
            chosen,
            len(self.classes_),
            self.vocabulary_,
            self.clusters_,
            self.morphology,
            self.bound,
        )
        found = aggregate(jobs, mapper)
        found.dropped_documents = len(texts) - len(chosen)
        sizes = {name: int(np.asarray(values).size) for name, values in found.released().items()}
        self.scales_, _ = calibrate(self.epsilon, self.delta, self.bound, sizes)
        noisy = add_noise(found.released(), self.scales_, self.bound, rng)
        self._post_process(noisy)
        self.report_ = report(self.scales_, self.bound, sizes, self.delta, self.secure)
        self.bounded_ = {
            "authors": found.authors,
            "documents_counted": found.documents,
            "documents_dropped": found.dropped_documents,
        }
        self._rng = rng
        return self

    def _post_process(self, noisy: dict[str, np.ndarray]) -> None:
        """Distributions from the noisy sums (post-processing: no privacy cost): per label, ``mixture`` of the
        word-level estimate and (1 - ``mixture``) of the cluster-level one spread over each cluster's words."""
        from scipy.stats import norm

        fine = _thresholded(noisy["terms"], self.threshold * self.scales_["terms"])
        coarse = _thresholded(noisy["clusters"], self.threshold * self.scales_["clusters"])
        # cells that noise alone lifts over the threshold, expected, against those kept: the share of the released
        # word-level terms that is noise (most of it with a few authors, whatever the method)
        expected_noise = fine.size * float(norm.sf(self.threshold))
        self.noise_share_ = min(1.0, expected_noise / max(1, int(np.count_nonzero(fine))))
        spread = spread_over_words(coarse, self.clusters_, self.ranks_)
        # per label, each estimate weighs only where it has mass (an empty one would mix in uniform words)
        weight_fine = np.where(fine.sum(axis=1, keepdims=True) > 0, self.mixture, 0.0)
        weight_coarse = np.where(spread.sum(axis=1, keepdims=True) > 0, 1.0 - self.mixture, 0.0)
        mixed = weight_fine * _rows_normalised(fine) + weight_coarse * _rows_normalised(spread)
        self.term_distributions_ = _rows_normalised(mixed, fallback=mixed.sum(axis=0))
        self.class_sizes_ = np.clip(noisy["classes"], 0.0, None)
        self.class_distribution_ = _rows_normalised(self.class_sizes_[None, :])[0]
        lengths = np.clip(noisy["lengths"], 0.0, None)
        lengths[0] = 0.0  # an empty synthetic document says nothing: lengths start at 1
        self.length_distribution_ = _rows_normalised(lengths[None, :], fallback=np.r_[0.0, np.ones(len(lengths) - 1)])[
            0
        ]

    def sample(self, n_documents: int | None = None) -> tuple[list[str], sp.csr_matrix]:
        """``n_documents`` synthetic documents (default: the noisy number of documents counted): their labels and
        their term counts, (n_documents, len(vocabulary_)) csr int64."""
        if not hasattr(self, "term_distributions_"):
            raise InputError("synthesis: fit before sample")
        n = int(round(self.class_sizes_.sum())) if n_documents is None else n_documents
        if n_documents is None and n < 1:
            raise InputError("synthesis: the noisy number of documents is 0: ask for a number of documents")
        check_number(n, "n_documents", "synthesis", kind=int, low=1, closed="left")
        n = int(n)
        rng = self._rng if self._rng is not None else np.random.default_rng(int.from_bytes(_secure_bytes(), "little"))
        labels = rng.choice(len(self.classes_), size=n, p=self.class_distribution_)
        edges = length_edges(self.bound.max_words)
        bins = rng.choice(len(edges) - 1, size=n, p=self.length_distribution_)
        lengths = rng.integers(edges[bins], np.minimum(edges[bins + 1], self.bound.max_words + 1))
        rows, columns, values = [], [], []
        for i, (label, length) in enumerate(zip(labels, lengths)):
            drawn = rng.multinomial(int(length), self.term_distributions_[label])
            present = np.flatnonzero(drawn)
            rows.append(np.full(len(present), i))
            columns.append(present)
            values.append(drawn[present])
        counts = sp.csr_matrix(
            (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
            shape=(n, len(self.vocabulary_)),
            dtype=np.int64,
        )
        return [self.classes_[k] for k in labels], counts

    def privacy_report(self) -> AuthorLevelReport:
        if not hasattr(self, "report_"):
            raise InputError("synthesis: fit before privacy_report")
        return self.report_


def _normalised(author: object) -> str | None:
    if author is None or (isinstance(author, float) and author != author):
        return None
    return str(author).strip() or None


def _thresholded(values: np.ndarray, threshold: float) -> np.ndarray:
    """``values`` where they exceed ``threshold``, else 0."""
    return np.where(values > threshold, values, 0.0)


def _rows_normalised(values: np.ndarray, fallback: np.ndarray | None = None) -> np.ndarray:
    """Each row scaled to sum 1; a row without mass is ``fallback`` normalised (default: uniform)."""
    totals = values.sum(axis=1, keepdims=True)
    spare = np.ones(values.shape[1]) if fallback is None or fallback.sum() <= 0 else np.asarray(fallback, float)
    return np.where(totals > 0, values / np.where(totals > 0, totals, 1.0), spare / spare.sum())


def _secure_bytes() -> bytes:
    import os

    return os.urandom(16)


def check_corpus(texts: Sequence[str], authors: list, labels: list) -> None:
    """One line naming what makes a corpus unusable for an author-level release, before any work."""
    if len(texts) == 0:
        raise InputError("synthesis: the corpus is empty")
    if not (len(texts) == len(authors) == len(labels)):
        raise InputError(f"synthesis: {len(texts)} texts, {len(authors)} authors and {len(labels)} labels")
    missing = next((i for i, a in enumerate(authors) if a is None or str(a).strip() == ""), None)
    if missing is not None:
        raise InputError(f"synthesis: record {missing} has no author")
    missing = next((i for i, label in enumerate(labels) if label is None or str(label).strip() == ""), None)
    if missing is not None:
        raise InputError(f"synthesis: record {missing} has no label")
    if len({str(a) for a in authors}) < 2:
        raise InputError("synthesis: the corpus has one author; an author-level release needs several")
    if len({str(label) for label in labels}) < 2:
        raise InputError("synthesis: every record has the same label; a labelled release needs two or more")
