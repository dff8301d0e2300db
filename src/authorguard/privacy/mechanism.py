"""SynTF's exponential mechanism over a vocabulary: sampling and the exact privacy loss.

References
----------
.. [WK18] Weggenmann & Kerschbaum, "SynTF: Synthetic and Differentially Private Term Frequency Vectors
   for Privacy-Preserving Text Mining", SIGIR 2018.
.. [MT07] McSherry & Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from authorguard.embeddings.base import WordVectors
from authorguard.text.bigrams import BigramIndex
from authorguard.utils.validation import check_number

# Memory for one streamed block of the L x L mechanism (two float32 buffers of block_rows x L).
_BLOCK_BUDGET_BYTES = 512 * 2**20


def _n_threads() -> int:
    import numba

    return numba.get_num_threads()


def _exp_shifted(block: np.ndarray, row_max: np.ndarray, out: np.ndarray, pool: ThreadPoolExecutor, threads: int) -> None:
    """out = exp(block - row_max[:, None]) in float32, rows split over threads.

    numpy's SIMD float32 exp is ~4x faster than a scalar exp inside a numba kernel, and ufuncs release the GIL.
    """

    def run(lo: int, hi: int) -> None:
        np.subtract(block[lo:hi], row_max[lo:hi, None], out=out[lo:hi])
        np.exp(out[lo:hi], out=out[lo:hi])

    bounds = np.linspace(0, len(block), threads + 1).astype(int)
    list(pool.map(lambda b: run(*b), zip(bounds[:-1], bounds[1:])))


class ExponentialMechanism:
    """Pr[w | v] = pi[v, w] ∝ exp(epsilon * rho(v, w) / 2), over a vocabulary of L words, sensitivity 1.

    rho(v, w) = ((cos(v, w) + 1)/2 - s * Dice(v, w) + s) / (1 + s) ∈ [0, 1], with ``cos`` the cosine of the
    words' embedding vectors and ``Dice`` the Dice coefficient of their letter-bigram sets.

    The L x L matrix pi is never stored: rows are computed in blocks when needed.

    Parameters
    ----------
    unit_vectors : ndarray of shape (L, dim), float32
        L2-normalised embedding vectors of the vocabulary.
    bigrams : BigramIndex
        Letter-bigram sets of the same L words.
    epsilon : float
        Privacy parameter per sampled word. Must be in (0, inf).
    bigram_weight : float
        ``s``, the weight of the bigram penalty. Must be in [0, 1].
    """

    def __init__(self, unit_vectors: np.ndarray, bigrams: BigramIndex, epsilon: float, bigram_weight: float) -> None:
        self.epsilon = check_number(epsilon, "epsilon", "ExponentialMechanism", low=0.0)
        self.bigram_weight = check_number(bigram_weight, "bigram_weight", "ExponentialMechanism", low=0.0, high=1.0, closed="both")
        self.unit_vectors = np.ascontiguousarray(unit_vectors, dtype=np.float32)
        self.bigrams = bigrams
        if self.unit_vectors.shape[0] != bigrams.set_sizes.shape[0]:
            raise ValueError("unit_vectors and bigrams describe different numbers of words")
        self._transposed = np.ascontiguousarray(self.unit_vectors.T)
        inc, post = bigrams.incidence, bigrams.postings
        self._index_arrays = (
            inc.indptr.astype(np.int64), inc.indices.astype(np.int32),
            post.indptr.astype(np.int64), post.indices.astype(np.int32),
            bigrams.set_sizes.astype(np.float32),
        )

    @classmethod
    def from_words(cls, words: Sequence[str], word_vectors: WordVectors, epsilon: float, bigram_weight: float) -> ExponentialMechanism:
        """Build the mechanism over ``words`` (each must have a vector)."""
        vectors = word_vectors.vector_matrix(list(words)).astype(np.float64)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        return cls(unit.astype(np.float32), BigramIndex.from_words(list(words)), epsilon, bigram_weight)

    def with_epsilon(self, epsilon: float) -> ExponentialMechanism:
        """The same vocabulary and rating at another epsilon (shares the precomputed arrays)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.epsilon = check_number(epsilon, "epsilon", "ExponentialMechanism", low=0.0)
        return clone

    @property
    def vocabulary_size(self) -> int:
        return int(self.unit_vectors.shape[0])

    def _constants(self) -> tuple[np.float32, ...]:
        s = self.bigram_weight
        scale = self.epsilon / (2.0 * (1.0 + s))
        # a = scale * ((cos + 1)/2 + s - s * 2|A∩B|/(|A|+|B|))
        return tuple(np.float32(x) for x in (0.5 * scale, scale * (0.5 + s), 2.0 * scale * s, scale * s))

    def _block_rows(self) -> int:
        return int(np.clip(_BLOCK_BUDGET_BYTES // (8 * max(self.vocabulary_size, 1)), 16, 2048))

    def _scaled_ratings_block(self, rows: np.ndarray, threads: int, buffer: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(a, row_max): a float32 (len(rows), L) block of scaled ratings and an upper bound of each row's max.

        ``buffer`` (at least len(rows) x L, float32) is reused when given: a fresh 100+ MB array per block costs
        page faults that take as long as the matrix product itself.
        """
        from authorguard.privacy import _kernels

        rows = np.asarray(rows, dtype=np.int64)
        if buffer is None:
            block = self.unit_vectors[rows] @ self._transposed
        else:
            block = np.matmul(self.unit_vectors[rows], self._transposed, out=buffer[: len(rows)])
        row_max = np.empty(len(rows), dtype=np.float32)
        _kernels.scaled_ratings_block(block, rows, *self._index_arrays, *self._constants(), row_max, threads)
        return block, row_max

    def scaled_ratings(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """epsilon * rho(v, w) / 2 for v in ``rows`` and every w: float32 array of shape (len(rows), L)."""
        return self._scaled_ratings_block(np.asarray(rows), _n_threads())[0]

    def log_probabilities(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """ln pi[v, :] for v in ``rows``: float64 array of shape (len(rows), L)."""
        a = self.scaled_ratings(rows).astype(np.float64)
        top = a.max(axis=1, keepdims=True)
        return a - (top + np.log(np.exp(a - top).sum(axis=1, keepdims=True)))

    def sample(self, sources: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
        """Replace each source word by a draw from its row of pi, by inverse CDF.

        Each distinct source word's row is computed once (O(L) memory per thread) and all of its draws are made
        from it (cumulative sums in float64, one 64-word chunk scanned per draw). A row's values do not depend
        on the other rows or on the number of threads, so a record's release does not depend on its batch.

        Parameters
        ----------
        sources : int array of shape (m,)
            Source word indices in [0, L).
        uniforms : float64 array of shape (m,)
            One uniform variate in [0, 1) per source word (from a seeded or a secure source).

        Returns
        -------
        int64 array of shape (m,)
            The replacement word of each source word.
        """
        from authorguard.privacy import _kernels

        sources = np.asarray(sources, dtype=np.int64)
        uniforms = np.asarray(uniforms, dtype=np.float64)
        out = np.empty(len(sources), dtype=np.int64)
        if len(sources) == 0:
            return out
        order = np.argsort(sources, kind="stable")
        sorted_sources = sources[order]
        rows, starts = np.unique(sorted_sources, return_index=True)
        uniform_ptr = np.append(starts, len(sources)).astype(np.int64)
        sorted_uniforms = uniforms[order]
        sorted_out = np.empty(len(sources), dtype=np.int64)
        _kernels.sample_rows(
            rows, self.unit_vectors, self._transposed, *self._index_arrays, *self._constants(),
            uniform_ptr, sorted_uniforms, sorted_out, _n_threads(),
        )
        out[order] = sorted_out
        return out

    def loss_per_word(self) -> float:
        """The tight privacy loss per sampled word, computed exactly over the whole mechanism:

        l = max_w ln( max_v pi[v, w] / min_v pi[v, w] ) = max_{v, v', w} ln( pi[v, w] / pi[v', w] ).

        Streams pi in row blocks (never L x L at once): per block, a BLAS product for the cosines, a fused
        kernel for the ratings, ln Z_v by a stabilised log-sum-exp, then running column maxima and minima of
        ln pi[v, w] = a[v, w] - ln Z_v. Memory is O(block_rows * L).
        """
        from authorguard.privacy import _kernels

        n_words = self.vocabulary_size
        if n_words <= 1:
            return 0.0
        threads = _n_threads()
        column_max = np.full(n_words, -np.inf, dtype=np.float32)
        column_min = np.full(n_words, np.inf, dtype=np.float32)
        step = self._block_rows()
        buffer = np.empty((min(step, n_words), n_words), dtype=np.float32)
        scratch = np.empty_like(buffer)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            for start in range(0, n_words, step):
                rows = np.arange(start, min(start + step, n_words), dtype=np.int64)
                block, row_max = self._scaled_ratings_block(rows, threads, buffer)
                weights = scratch[: len(rows)]
                _exp_shifted(block, row_max, weights, pool, threads)
                log_partition = (row_max + np.log(weights.sum(axis=1, dtype=np.float64))).astype(np.float32)
                _kernels.column_extrema_update(block, log_partition, column_max, column_min, threads)
        return float(np.max(column_max.astype(np.float64) - column_min.astype(np.float64)))
