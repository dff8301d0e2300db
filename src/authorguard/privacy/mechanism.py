"""SynTF's exponential mechanism over a vocabulary: sampling and the exact privacy loss.

References
----------
.. [WK18] Weggenmann & Kerschbaum, "SynTF: Synthetic and Differentially Private Term Frequency Vectors
   for Privacy-Preserving Text Mining", SIGIR 2018.
.. [MT07] McSherry & Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from authorguard.embeddings.base import WordVectors
from authorguard.text.bigrams import BigramIndex
from authorguard.utils.validation import check_number

# Memory for the streamed block of the L x L mechanism (one float32 buffer of block_rows x L, reused).
_BLOCK_BUDGET_BYTES = 256 * 2**20

# float32 holds every integer up to 2^24 exactly: vectors quantised to norm < 2^12 have exact dot products.
_EXACT_FLOAT32_INTEGER = 2**24

# A bigram held by at least L / 128 words is counted by adding its dense membership row (L bytes, vectorised)
# rather than by its posting list (df scattered increments): 100-300 of them at L = 30k (a few MB), the point
# where the two cost about the same on the machine of docs/benchmarks.md.
_DENSE_BIGRAM_FRACTION = 128


def _n_threads() -> int:
    import numba

    return numba.get_num_threads()


def quantize_unit_vectors(unit_vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer-valued float32 vectors whose dot products every BLAS computes *exactly*, and their inverse norms.

    q = round(S * u) with S = 4096 - sqrt(dim)/2 - 1, so |q| <= S + sqrt(dim)/2 < 2^12 and every partial sum of
    <q_v, q_w> is an integer below 2^24 in magnitude (Cauchy-Schwarz): float32 represents it exactly, whatever
    the summation order, blocking, FMA use or thread count. This is what makes a release reproducible while the
    cosines come from a fast BLAS product. The mechanism's cosine is <q_v, q_w> / (|q_v| |q_w|): at most ~6e-4 from
    the raw vectors' cosine, 7e-5 on average (measured on GloVe 50d and random 300-d unit vectors; each
    coordinate is rounded by at most 1/(2S) of the unit norm).

    Returns (q of shape (L, dim), float32; 1/|q| of shape (L,), float32, 0 for a zero vector).
    """
    unit = np.asarray(unit_vectors, dtype=np.float64)
    dim = unit.shape[1] if unit.ndim == 2 else 0
    scale = np.floor(np.sqrt(_EXACT_FLOAT32_INTEGER) - 0.5 * np.sqrt(max(dim, 1))) - 1.0
    quantized = np.rint(unit * scale)
    squared_norms = np.einsum("ij,ij->i", quantized, quantized)  # exact: integers far below 2^53
    if squared_norms.size and squared_norms.max() >= _EXACT_FLOAT32_INTEGER:
        raise ValueError("unit_vectors must have norm <= 1")
    inverse = np.divide(1.0, np.sqrt(squared_norms), out=np.zeros_like(squared_norms), where=squared_norms > 0)
    return quantized.astype(np.float32), inverse.astype(np.float32)


class ExponentialMechanism:
    """Pr[w | v] = pi[v, w] ∝ exp(epsilon * rho(v, w) / 2), over a vocabulary of L words, sensitivity 1.

    rho(v, w) = ((cos(v, w) + 1)/2 - s * Dice(v, w) + s) / (1 + s) ∈ [0, 1], with ``cos`` the cosine of the
    words' embedding vectors and ``Dice`` the Dice coefficient of their letter-bigram sets.

    In the notation of the SynTF paper (Section 4.1.2), rho_paper = cos - s_paper * B, and
    exp(epsilon_paper * rho_paper / 2) orders and weighs outputs as this rho does with **s = s_paper / 2** and
    epsilon = 2 (1 + s) epsilon_paper: the paper's optimum s_paper = 0.3 is s = 0.15 here. The normalised form
    keeps rho in [0, 1], so the sensitivity 1 that the standard and improved bounds assume holds; compare
    settings by their exact loss per word, which does not depend on the parametrisation.

    The cosines are those of the vectors quantised by :func:`quantize_unit_vectors` (exact integer dot products,
    so every release is reproducible bit for bit whichever rows are computed together). The L x L matrix pi is
    never stored: rows are computed in blocks when needed.

    Parameters
    ----------
    unit_vectors : ndarray of shape (L, dim)
        L2-normalised embedding vectors of the vocabulary (zero rows allowed: cosine 0 with every word).
    bigrams : BigramIndex
        Letter-bigram sets of the same L words.
    epsilon : float
        Privacy parameter per sampled word. Must be in (0, inf).
    bigram_weight : float
        ``s``, the weight of the bigram penalty. Must be in [0, 1].

    Attributes
    ----------
    unit_vectors : ndarray of shape (L, dim), float32
        The effective unit vectors q / |q| whose cosines the mechanism uses.
    """

    def __init__(self, unit_vectors: np.ndarray, bigrams: BigramIndex, epsilon: float, bigram_weight: float) -> None:
        self.epsilon = check_number(epsilon, "epsilon", "ExponentialMechanism", low=0.0)
        self.bigram_weight = check_number(
            bigram_weight, "bigram_weight", "ExponentialMechanism", low=0.0, high=1.0, closed="both"
        )
        unit_vectors = np.atleast_2d(np.asarray(unit_vectors, dtype=np.float32))
        if unit_vectors.shape[0] != bigrams.set_sizes.shape[0]:
            raise ValueError("unit_vectors and bigrams describe different numbers of words")
        self._quantized, self._inverse_norms = quantize_unit_vectors(unit_vectors)
        self._quantized_t = np.ascontiguousarray(self._quantized.T)
        self.unit_vectors = self._quantized * self._inverse_norms[:, None]
        self.bigrams = bigrams
        inc, post = bigrams.incidence, bigrams.postings
        self._index_arrays = (
            self._inverse_norms,
            inc.indptr.astype(np.int64),
            inc.indices.astype(np.int32),
            post.indptr.astype(np.int64),
            post.indices.astype(np.int32),
            bigrams.set_sizes.astype(np.float32),
            *bigrams.dense_members(max(1, len(bigrams.set_sizes) // _DENSE_BIGRAM_FRACTION)),
        )

    @classmethod
    def from_words(
        cls, words: Sequence[str], word_vectors: WordVectors, epsilon: float, bigram_weight: float
    ) -> ExponentialMechanism:
        """Build the mechanism over ``words`` (each must have a vector)."""
        vectors = word_vectors.vector_matrix(list(words)).astype(np.float64)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
        return cls(unit, BigramIndex.from_words(list(words)), epsilon, bigram_weight)

    def with_epsilon(self, epsilon: float) -> ExponentialMechanism:
        """The same vocabulary and rating at another epsilon (shares the precomputed arrays)."""
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.epsilon = check_number(epsilon, "epsilon", "ExponentialMechanism", low=0.0)
        return clone

    @property
    def vocabulary_size(self) -> int:
        return int(self._quantized.shape[0])

    def _constants(self) -> tuple[np.float32, ...]:
        s = self.bigram_weight
        scale = self.epsilon / (2.0 * (1.0 + s))
        # a = scale * ((cos + 1)/2 + s - s * 2|A∩B|/(|A|+|B|))
        return tuple(np.float32(x) for x in (0.5 * scale, scale * (0.5 + s), 2.0 * scale * s, scale * s))

    def _block_rows(self) -> int:
        return int(np.clip(_BLOCK_BUDGET_BYTES // (4 * max(self.vocabulary_size, 1)), 16, 2048))

    def _dot_products(self, rows: np.ndarray, buffer: np.ndarray | None = None) -> np.ndarray:
        """Exact <q_v, q_w> for v in ``rows`` and every w: float32 (len(rows), L), in ``buffer`` when given
        (a fresh 100+ MB array per block costs page faults that take as long as the product itself)."""
        if buffer is None:
            return self._quantized[rows] @ self._quantized_t
        return np.matmul(self._quantized[rows], self._quantized_t, out=buffer[: len(rows)])

    def scaled_ratings(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """epsilon * rho(v, w) / 2 for v in ``rows`` and every w: float32 array of shape (len(rows), L)."""
        from authorguard.privacy import _kernels

        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        block = self._dot_products(rows)
        _kernels.scaled_ratings_block(block, rows, *self._index_arrays, *self._constants(), _n_threads())
        _kernels.restore_openmp_nesting()
        return block

    def log_probabilities(self, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """ln pi[v, :] for v in ``rows``: float64 array of shape (len(rows), L)."""
        a = self.scaled_ratings(rows).astype(np.float64)
        top = a.max(axis=1, keepdims=True)
        return a - (top + np.log(np.exp(a - top).sum(axis=1, keepdims=True)))

    def sample(
        self,
        sources: np.ndarray,
        uniforms: np.ndarray,
        *,
        with_loss: bool = False,
        on_block: Callable[[int], None] | None = None,
    ) -> np.ndarray | tuple[np.ndarray, float]:
        """Replace each source word by a draw from its row of pi, by inverse CDF.

        Each distinct source word's row is computed once, and all of its draws are made from it (cumulative sums
        in float64, one 64-word chunk scanned per draw). A row's values do not depend on the other rows or on the
        number of threads, so a record's release does not depend on its batch.

        With ``with_loss`` the pass runs over *every* row of pi (rows without draws only update the column
        extrema) and also returns the exact loss per word (:meth:`loss_per_word`): releasing a corpus and
        accounting for it cost one pass over the mechanism.

        Parameters
        ----------
        sources : int array of shape (m,)
            Source word indices in [0, L).
        uniforms : float64 array of shape (m,)
            One uniform variate in [0, 1) per source word (from a seeded or a secure source).
        with_loss : bool
            Also compute the exact loss per word in the same pass.
        on_block : callable, optional
            Called with the number of rows done after each streamed block (progress bars).

        Returns
        -------
        int64 array of shape (m,)
            The replacement word of each source word; with ``with_loss``, the tuple (replacements, loss).
        """
        from authorguard.privacy import _kernels

        sources = np.asarray(sources, dtype=np.int64).reshape(-1)
        uniforms = np.asarray(uniforms, dtype=np.float64).reshape(-1)
        if len(sources) != len(uniforms):
            raise ValueError(f"{len(sources)} sources but {len(uniforms)} uniforms")
        n_words = self.vocabulary_size
        if len(sources) and (sources.min() < 0 or sources.max() >= n_words):
            raise ValueError(f"source word indices must be in [0, {n_words})")
        order, rows, uniform_ptr = _draws_by_row(sources, n_words, with_loss)
        sorted_uniforms = uniforms[order]
        threads = _n_threads()
        sorted_out = np.empty(len(sources), dtype=np.int64)
        # per-thread extrema over every row with the loss; without it the kernel only needs a row per thread
        column_max = np.full((threads, n_words if with_loss else 1), -np.inf)
        column_min = np.full_like(column_max, np.inf)
        step = self._block_rows()
        buffer = np.empty((min(step, max(len(rows), 1)), n_words), dtype=np.float32)
        for start in range(0, len(rows), step):
            block_rows = rows[start : start + step]
            block = self._dot_products(block_rows, buffer)
            _kernels.release_block(
                block,
                block_rows,
                *self._index_arrays,
                *self._constants(),
                uniform_ptr[start : start + len(block_rows) + 1],
                sorted_uniforms,
                sorted_out,
                with_loss,
                column_max,
                column_min,
                threads,
            )
            if on_block is not None:
                on_block(len(block_rows))
        _kernels.restore_openmp_nesting()
        out = np.empty(len(sources), dtype=np.int64)
        out[order] = sorted_out
        if not with_loss:
            return out
        loss = 0.0 if n_words <= 1 else float(np.max(column_max.max(axis=0) - column_min.min(axis=0)))
        return out, loss

    def loss_per_word(self, on_block: Callable[[int], None] | None = None) -> float:
        """The tight privacy loss per sampled word, computed exactly over the whole mechanism:

        l = max_w ln( max_v pi[v, w] / min_v pi[v, w] ) = max_{v, v', w} ln( pi[v, w] / pi[v', w] ).

        Streams pi in row blocks (never L x L at once): per block, a BLAS product for the (exact) dot products,
        a fused kernel for the ratings, ln Z_v from float64 weights, then running column maxima and minima of
        ln pi[v, w] = a[v, w] - ln Z_v. Memory is O(block_rows * L). The same pass as a release with no draws;
        ``on_block(rows)`` after each block.
        """
        return self.sample(np.empty(0, dtype=np.int64), np.empty(0), with_loss=True, on_block=on_block)[1]


def _draws_by_row(sources: np.ndarray, n_words: int, with_loss: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(order, rows, ptr): ``sources[order]`` is sorted, and the draws of ``rows[i]`` are positions
    ``ptr[i]:ptr[i + 1]`` of the sorted draws; ``rows`` is every word of the vocabulary with ``with_loss`` (rows
    without draws update the extrema only), else the distinct sources."""
    # a stable argsort of 16-bit keys is a radix sort: several times faster for millions of draws
    keys = sources.astype(np.uint16) if n_words <= 2**16 else sources
    order = np.argsort(keys, kind="stable")
    sorted_sources = sources[order]
    if with_loss:
        rows = np.arange(n_words, dtype=np.int64)
        ptr = np.searchsorted(sorted_sources, np.arange(n_words + 1), side="left").astype(np.int64)
    else:
        rows, starts = np.unique(sorted_sources, return_index=True)
        ptr = np.append(starts, len(sources)).astype(np.int64)
    return order, rows, ptr
