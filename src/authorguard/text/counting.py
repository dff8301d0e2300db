"""Document-term counts by scikit-learn's ``CountVectorizer``, split over processes for large batches.

Counting is pure Python per token (the analyzer, then one dictionary lookup per term): 2.5 s for 2.4 million
tokens on one core of the machine of docs/benchmarks.md, while the other cores idle. Consecutive parts of the
batch are counted in forked processes and merged into exactly what one ``CountVectorizer`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from authorguard.utils.parallel import map_forked, resolve_n_jobs

# below this many characters a second process costs more than it saves (forking, pickling the parts)
_PARALLEL_MIN_CHARACTERS = 1_000_000

_EMPTY_VOCABULARY = "empty vocabulary; perhaps the documents only contain stop words"


def _count_part(
    texts: Sequence[str], analyzer: Callable[[str], list[str]], vocabulary: Mapping[str, int] | None
) -> tuple[sp.csr_matrix, list[str]]:
    from sklearn.feature_extraction.text import CountVectorizer

    if vocabulary is not None:
        counts = CountVectorizer(analyzer=analyzer, vocabulary=vocabulary).transform(texts)
        return counts.astype(np.int64).tocsr(), []
    vectorizer = CountVectorizer(analyzer=analyzer)
    try:
        counts = vectorizer.fit_transform(texts)
    except ValueError:  # no term in this part: the other parts may have some
        return sp.csr_matrix((len(texts), 0), dtype=np.int64), []
    return counts.astype(np.int64).tocsr(), vectorizer.get_feature_names_out().tolist()


def _merge_fitted(parts: list[tuple[sp.csr_matrix, list[str]]]) -> tuple[sp.csr_matrix, list[str]]:
    """Stack parts counted with their own sorted terms over the union of the terms (sorted, as CountVectorizer's)."""
    terms = sorted(set().union(*(part_terms for _, part_terms in parts)))
    if not terms:
        raise ValueError(_EMPTY_VOCABULARY)
    ordered = np.array(terms)
    blocks = []
    for counts, part_terms in parts:
        # both term lists are sorted, so the column map is increasing and every row stays sorted
        columns = np.searchsorted(ordered, np.array(part_terms, dtype=ordered.dtype)).astype(counts.indices.dtype)
        blocks.append(
            sp.csr_matrix((counts.data, columns[counts.indices], counts.indptr), shape=(counts.shape[0], len(terms)))
        )
    return sp.vstack(blocks, format="csr", dtype=np.int64), terms


def count_terms(
    texts: Sequence[str],
    analyzer: Callable[[str], list[str]],
    vocabulary: Mapping[str, int] | None = None,
    n_jobs: int | None = None,
) -> tuple[sp.csr_matrix, list[str]]:
    """Term counts of every document, as ``CountVectorizer(analyzer=analyzer, vocabulary=vocabulary)`` counts them.

    Parameters
    ----------
    texts : sequence of str
    analyzer : picklable callable, str -> list of terms
    vocabulary : mapping term -> column, optional
        Fixed columns (terms outside it are dropped); None fits the terms on ``texts``.
    n_jobs : int or None
        Processes (None: 1; -1: every usable core). Parts are counted in forked processes on Linux, and only for
        batches of a million characters or more; elsewhere in this process.

    Returns
    -------
    (counts of shape (n_documents, n_terms): csr_matrix, int64, sorted indices; terms: the sorted fitted terms,
    or [] with a given vocabulary)

    Raises
    ------
    ValueError
        When no document has a term (fitting only), as ``CountVectorizer`` does.
    """
    jobs = max(1, min(resolve_n_jobs(n_jobs), len(texts)))
    if sum(map(len, texts)) < _PARALLEL_MIN_CHARACTERS:
        jobs = 1
    bounds = np.linspace(0, len(texts), jobs + 1).astype(int)
    parts = map_forked(
        _count_part, [(list(texts[bounds[i] : bounds[i + 1]]), analyzer, vocabulary) for i in range(jobs)], jobs
    )
    if vocabulary is not None:
        counts, terms = sp.vstack([part for part, _ in parts], format="csr", dtype=np.int64), []
    elif len(parts) == 1 and parts[0][1]:
        counts, terms = parts[0]
    else:
        counts, terms = _merge_fitted(parts)
    counts.sort_indices()
    return counts, terms
