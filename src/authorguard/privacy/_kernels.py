"""Numba kernels of SynTF's exponential mechanism (rating rows, sampling, column extrema).

Why hand-written kernels: the mechanism is an L x L matrix (L = 30,000 words is 900 million entries), too
large to hold, so every consumer streams it by rows, fusing the bigram Dice overlaps (from an inverted index),
the affine rating, row maxima, exponentials, inverse-CDF sampling and column extrema, in parallel over rows.

- The exact loss (:func:`scaled_ratings_block`, :func:`column_extrema_update`) takes ``C``, a float32 BLAS block
  of cosines ``C[i, w] = cos(rows[i], w)``, and overwrites it with the scaled ratings.
- The sampler (:func:`sample_rows`) computes each row's cosines itself in a fixed order, so that a release does
  not depend on the BLAS blocking (see :func:`_cosine_row`).

Scaled ratings are ``a[i, w] = epsilon * rho(rows[i], w) / 2``, where (sensitivity 1)

    rho(v, w) = ((cos(v, w) + 1) / 2 - s * Dice(v, w) + s) / (1 + s)   in [0, 1].
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, fastmath=True, nogil=True)
def _fill_scaled_row(row, v, inc_ptr, inc_idx, post_ptr, post_idx, set_sizes, counts, base, offset, pen_dice, pen_self):
    """Turn one row of cosines into scaled ratings in place; returns an upper bound of the row maximum.

    ``counts`` is an int32 scratch of length L, all zero on entry and on exit.
    """
    # |bigrams(v) & bigrams(w)| for every w, through the inverted index (sum of df^2 work, not L * |bigrams|)
    for j in range(inc_ptr[v], inc_ptr[v + 1]):
        k = inc_idx[j]
        for p in range(post_ptr[k], post_ptr[k + 1]):
            counts[post_idx[p]] += 1
    n_v = set_sizes[v]
    largest = np.float32(-3.0e38)
    for w in range(row.shape[0]):
        denominator = max(n_v + set_sizes[w], np.float32(1.0))
        value = base * row[w] + offset - pen_dice * np.float32(counts[w]) / denominator
        row[w] = value
        counts[w] = 0
        largest = max(largest, value)
    if n_v == 0:
        # Dice(v, v) = 1 by definition, also for a word without any bigram (e.g. one letter)
        row[v] -= pen_self
    return largest


@njit(cache=True, parallel=True, fastmath=True, nogil=True)
def scaled_ratings_block(C, rows, inc_ptr, inc_idx, post_ptr, post_idx, set_sizes, base, offset, pen_dice, pen_self, row_max, n_chunks):
    """Scaled ratings of a block in place; ``row_max[i]`` gets an upper bound of row i's maximum."""
    n_rows, n_words = C.shape
    for chunk in prange(n_chunks):
        counts = np.zeros(n_words, dtype=np.int32)
        for i in range(chunk, n_rows, n_chunks):
            row_max[i] = _fill_scaled_row(
                C[i], rows[i], inc_ptr, inc_idx, post_ptr, post_idx, set_sizes, counts, base, offset, pen_dice, pen_self
            )


@njit(cache=True, parallel=True, fastmath=True, nogil=True)
def column_extrema_update(A, log_partition, column_max, column_min, n_chunks):
    """``column_max[w] = max(column_max[w], max_i A[i, w] - log_partition[i])``, likewise the minimum."""
    n_rows, n_words = A.shape
    width = (n_words + n_chunks - 1) // n_chunks
    for chunk in prange(n_chunks):
        lo = chunk * width
        hi = min(n_words, lo + width)
        for i in range(n_rows):
            z = log_partition[i]
            for w in range(lo, hi):
                value = A[i, w] - z
                column_max[w] = max(column_max[w], value)
                column_min[w] = min(column_min[w], value)


CDF_CHUNK = 64
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two (Cody & Waite) so that k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_EXP_FLOOR = -708.0  # below this exp(x) < 3.3e-308 is flushed to zero (no subnormal weights)


@njit(cache=True, fastmath=True, nogil=True)
def _exp_shifted_row(row, largest, weights, bits):
    """weights[w] = exp(row[w] - largest) in float64, vectorisable (about 6x faster than a call to libm's exp).

    exp(x) = 2^k * exp(r), k = round(x / ln 2), |r| <= ln(2)/2, exp(r) by its degree-11 Taylor polynomial
    (relative error ~1e-14, measured against libm); 2^k is assembled from its exponent bits. Pure arithmetic in
    a fixed order, so the result does not depend on how rows are batched.
    """
    n_words = row.shape[0]
    for w in range(n_words):
        x = max(np.float64(row[w]) - largest, _EXP_FLOOR)
        k = np.floor(x * _LOG2E + 0.5)
        r = x - k * _LN2_HI - k * _LN2_LO
        p = 2.505210838544172e-08
        p = p * r + 2.755731922398589e-07
        p = p * r + 2.7557319223985893e-06
        p = p * r + 2.48015873015873e-05
        p = p * r + 0.0001984126984126984
        p = p * r + 0.001388888888888889
        p = p * r + 0.008333333333333333
        p = p * r + 0.041666666666666664
        p = p * r + 0.16666666666666666
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        weights[w] = p
        bits[w] = (np.int64(k) + 1023) << 52
    powers = bits.view(np.float64)
    for w in range(n_words):
        weights[w] = weights[w] * powers[w] if np.float64(row[w]) - largest > _EXP_FLOOR else 0.0


@njit(cache=True, fastmath=True, nogil=True)
def _cosine_row(unit, unit_t, v, row):
    """row[w] = <unit[v], unit[w]>, summed over the dimensions in a fixed order.

    Each output lane accumulates d = 0, 1, ... itself, so the value of row[w] does not depend on which other
    rows are computed with it or on the number of threads (a BLAS product's does: its blocking changes the
    summation order). Exact reproducibility of a record's release across batchings and engines needs this.
    """
    for w in range(row.shape[0]):
        row[w] = 0.0
    for d in range(unit.shape[1]):
        x = unit[v, d]
        for w in range(row.shape[0]):
            row[w] += x * unit_t[d, w]


@njit(cache=True, parallel=True, nogil=True)
def sample_rows(rows, unit, unit_t, inc_ptr, inc_idx, post_ptr, post_idx, set_sizes, base, offset, pen_dice, pen_self,
                uniform_ptr, uniforms, out, n_chunks):
    """Fused, reproducible inverse-CDF sampling, one row of pi at a time (O(L) memory per thread).

    Row i is the distribution of source word ``rows[i]``: cosines (:func:`_cosine_row`), scaled ratings, weights
    exp(a - max) in float64 (:func:`_exp_shifted_row`), cumulative sums per 64-word chunk; each uniform u in
    ``uniforms[uniform_ptr[i]:uniform_ptr[i+1]]`` picks the word w with F(w-1) <= u * F(L) < F(w).
    """
    n_rows = rows.shape[0]
    n_words = unit.shape[0]
    n_blocks = (n_words + CDF_CHUNK - 1) // CDF_CHUNK
    for chunk in prange(n_chunks):
        row = np.empty(n_words, dtype=np.float32)
        weights = np.empty(n_words, dtype=np.float64)
        bits = np.empty(n_words, dtype=np.int64)
        counts = np.zeros(n_words, dtype=np.int32)
        ends = np.empty(n_blocks, dtype=np.float64)
        for i in range(chunk, n_rows, n_chunks):
            if uniform_ptr[i] == uniform_ptr[i + 1]:
                continue
            _cosine_row(unit, unit_t, rows[i], row)
            largest = _fill_scaled_row(row, rows[i], inc_ptr, inc_idx, post_ptr, post_idx, set_sizes, counts,
                                       base, offset, pen_dice, pen_self)
            _exp_shifted_row(row, largest, weights, bits)
            running = 0.0
            for b in range(n_blocks):
                part = 0.0
                for w in range(b * CDF_CHUNK, min(n_words, (b + 1) * CDF_CHUNK)):
                    part += weights[w]
                running += part
                ends[b] = running
            for q in range(uniform_ptr[i], uniform_ptr[i + 1]):
                out[q] = _search(weights, ends, uniforms[q] * running)


@njit(cache=True, nogil=True)
def _search(weights, ends, target):
    """The word whose cumulative weight first exceeds ``target`` (never a zero-weight word)."""
    n_words = weights.shape[0]
    n_blocks = ends.shape[0]
    b = min(np.searchsorted(ends, target, side="right"), n_blocks - 1)
    accumulated = ends[b - 1] if b > 0 else 0.0
    chosen = -1
    for w in range(b * CDF_CHUNK, min(n_words, (b + 1) * CDF_CHUNK)):
        if weights[w] > 0.0:
            chosen = w  # rounding fallback: the last positive weight of the chunk
            accumulated += weights[w]
            if accumulated > target:
                break
    return chosen
