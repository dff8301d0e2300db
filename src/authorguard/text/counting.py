"""Document-term counts of a batch, in forked processes for large ones, and started early when the caller has
other work to do meanwhile (``authorguard syntf`` imports scikit-learn and numba while its input is counted).

The counts equal scikit-learn's ``CountVectorizer(analyzer=analyzer, vocabulary=vocabulary)`` (fitted terms in
sorted order; tested against it). Why not CountVectorizer itself: a worker that imports scikit-learn spends two
seconds on it (it loads scipy.stats and pandas), longer than the counting; and counting is one dictionary lookup
per term, which numpy (no scikit-learn) turns into canonical sparse rows as fast. Measured on 20,000 documents of
120 words (2-core machine of docs/benchmarks.md, one run each): 2.9 s in one process (CountVectorizer: 3.2 s),
1.7 s in two.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from authorguard.utils.parallel import can_fork, resolve_n_jobs

# below this many characters a second process costs more than it saves (forking, pickling the parts)
_PARALLEL_MIN_CHARACTERS = 1_000_000

EMPTY_VOCABULARY = "empty vocabulary; perhaps the documents only contain stop words"

# (number of documents, row of each entry, column of each entry, count of each entry, the terms of the columns)
_Part = tuple[int, np.ndarray, np.ndarray, np.ndarray, list[str]]


def _count_part(
    texts: Sequence[str], analyzer: Callable[[str], list[str]], vocabulary: Mapping[str, int] | None
) -> _Part:
    """Counts of ``texts`` as (row, column, count) entries sorted by row then column (numpy only: a forked worker
    needs no scipy or scikit-learn). Columns are the sorted terms seen here, or ``vocabulary``'s."""
    columns: dict[str, int] = {}  # fitting: each new term's column, in order of first appearance
    lengths = []
    found: list[int] = []
    for text in texts:
        terms = analyzer(text)
        if vocabulary is None:
            ids = [columns.setdefault(term, len(columns)) for term in terms]
        else:
            ids = [j for j in map(vocabulary.get, terms) if j is not None]
        found.extend(ids)
        lengths.append(len(ids))
    entries = np.asarray(found, dtype=np.int64)
    if vocabulary is None:
        terms_seen = sorted(columns, key=columns.__getitem__)  # by first appearance = column id
        rank = np.empty(len(terms_seen), dtype=np.int64)
        ordered = sorted(range(len(terms_seen)), key=terms_seen.__getitem__)
        rank[ordered] = np.arange(len(ordered))
        entries = rank[entries] if len(entries) else entries
        names = [terms_seen[i] for i in ordered]
        width = len(names)
    else:
        names = []
        width = max(vocabulary.values(), default=-1) + 1
    rows = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    keys, counts = np.unique(rows * max(width, 1) + entries, return_counts=True)  # sorted by row, then column
    return len(texts), keys // max(width, 1), keys % max(width, 1), counts.astype(np.int64), names


def _assemble(parts: list[_Part], vocabulary: Mapping[str, int] | None):
    """One csr_matrix (n_documents, n_terms) of int64 with sorted indices from the parts, and the sorted terms
    (their union, each part's columns mapped onto it; [] with a vocabulary)."""
    import scipy.sparse as sp

    if vocabulary is None:
        terms = sorted(set().union(*(part[4] for part in parts)))
        if not terms:
            raise ValueError(EMPTY_VOCABULARY)
        ordered = np.array(terms)
        width = len(terms)
    else:
        terms, width = [], max(vocabulary.values(), default=-1) + 1
    rows, columns, counts = [], [], []
    offset = 0
    for n_documents, part_rows, part_columns, part_counts, part_terms in parts:
        if vocabulary is None and len(part_columns):
            # both term lists are sorted: the map is increasing, so every row's columns stay sorted
            part_columns = np.searchsorted(ordered, np.array(part_terms, dtype=ordered.dtype))[part_columns]
        rows.append(part_rows + offset)
        columns.append(part_columns)
        counts.append(part_counts)
        offset += n_documents
    row = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=offset))]).astype(np.int64)
    data = np.concatenate(counts) if counts else np.empty(0, dtype=np.int64)
    indices = (np.concatenate(columns) if columns else np.empty(0, dtype=np.int64)).astype(np.int32)
    matrix = sp.csr_matrix((data, indices, indptr), shape=(offset, width))
    matrix.has_sorted_indices = True  # each part's entries come sorted by row, then column
    return matrix, terms


class PendingCounts:
    """Term counts being computed in forked workers (or, without them, computed when asked): :meth:`result`.

    Attributes
    ----------
    analyzer : the callable the documents were analysed with (a consumer checks it is its own)
    """

    def __init__(
        self,
        texts: Sequence[str],
        analyzer: Callable[[str], list[str]],
        vocabulary: Mapping[str, int] | None,
        n_jobs: int | None,
        here: bool,
    ) -> None:
        self.analyzer = analyzer
        self.vocabulary = vocabulary
        self._texts = texts
        self._pool: Any = None
        self._futures: list[Any] = []
        self._result: Any = None
        jobs = max(1, min(resolve_n_jobs(n_jobs), len(texts)))
        if jobs > 1 and can_fork() and sum(map(len, texts)) >= _PARALLEL_MIN_CHARACTERS:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # ``here``: the caller counts the first part itself when it asks; otherwise the workers take every part
            # while the caller does other work (imports), one worker per core it leaves free
            workers = jobs - 1 if here else max(1, jobs - 1)
            n_parts = workers + 1 if here else workers
            bounds = np.linspace(0, len(texts), n_parts + 1).astype(int)
            chunks = [list(texts[bounds[i] : bounds[i + 1]]) for i in range(n_parts)]
            self._texts = chunks[0] if here else []
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"))
            self._futures = [
                self._pool.submit(_count_part, chunk, analyzer, vocabulary) for chunk in chunks[1 if here else 0 :]
            ]

    def result(self):
        """(counts: csr_matrix of shape (n_documents, n_terms), int64, sorted indices; terms: the sorted fitted
        terms, or [] with a vocabulary). Raises ValueError when fitting finds no term, as CountVectorizer does."""
        if self._result is None:
            self._result = self._collect()
        return self._result

    def _collect(self):
        parts = [_count_part(self._texts, self.analyzer, self.vocabulary)] if self._texts or not self._futures else []
        try:
            parts += [future.result() for future in self._futures]
        finally:
            if self._pool is not None:
                self._pool.shutdown()
        return _assemble(parts, self.vocabulary)


def start_counting(
    texts: Sequence[str],
    analyzer: Callable[[str], list[str]],
    vocabulary: Mapping[str, int] | None = None,
    n_jobs: int | None = -1,
) -> PendingCounts:
    """Start counting ``texts`` in forked workers now and return at once; ``.result()`` collects the counts.

    For a caller with other work meanwhile: forking happens here, before that work starts threads (fork only
    copies the calling thread) — so call it early. Without fork, or for small batches, counting happens in
    ``result()``.
    """
    return PendingCounts(texts, analyzer, vocabulary, n_jobs, here=False)


def count_terms(
    texts: Sequence[str],
    analyzer: Callable[[str], list[str]],
    vocabulary: Mapping[str, int] | None = None,
    n_jobs: int | None = None,
):
    """Term counts of every document, as ``CountVectorizer(analyzer=analyzer, vocabulary=vocabulary)`` counts them.

    Parameters
    ----------
    texts : sequence of str
    analyzer : picklable callable, str -> list of terms
    vocabulary : mapping term -> column, optional
        Fixed columns (terms outside it are dropped); None fits the terms on ``texts``.
    n_jobs : int or None
        Processes (None: 1; -1: every usable core). Parts go to forked processes on Linux, for batches of a
        million characters or more; this process counts the first.

    Returns
    -------
    (counts of shape (n_documents, n_terms): csr_matrix, int64, sorted indices; terms: the sorted fitted terms,
    or [] with a given vocabulary)

    Raises
    ------
    ValueError
        When no document has a term (fitting only), as ``CountVectorizer`` does.
    """
    return PendingCounts(texts, analyzer, vocabulary, n_jobs, here=True).result()
