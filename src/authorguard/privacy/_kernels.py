"""Numba kernels of SynTF's exponential mechanism (rating rows, sampling, column extrema), one pass.

Why hand-written kernels: the mechanism is an L x L matrix (L = 30,000 words is 900 million entries), too
large to hold, so every consumer streams it by rows, fusing the bigram Dice overlaps (from an inverted index),
the affine rating, exponentials, inverse-CDF sampling and the column extrema of the exact loss, in parallel
over rows.

Every kernel takes ``D``, a float32 block of *exact integer* dot products ``D[i, w] = <q[rows[i]], q[w]>`` of
the quantised vectors (see :class:`~authorguard.privacy.mechanism.ExponentialMechanism`): whichever BLAS
blocking, thread count or row subset produced them, the values are the same, so a row's probabilities, and
hence every draw, do not depend on which other rows were computed with it.

Scaled ratings are ``a[i, w] = epsilon * rho(rows[i], w) / 2``, where (sensitivity 1)

    rho(v, w) = ((cos(v, w) + 1) / 2 - s * Dice(v, w) + s) / (1 + s)   in [0, 1],
    cos(v, w) = <q_v, q_w> / (|q_v| |q_w|).
"""

from __future__ import annotations

import contextlib
import ctypes

import numpy as np
from numba import njit, prange


def restore_openmp_nesting() -> None:
    """Turn nested OpenMP parallelism off again after a parallel kernel (call on the thread that ran it).

    numba's OpenMP threading layer enables nested parallel regions when it starts its threads, in the libgomp that
    torch shares. Torch work started afterwards in the same process then runs MKL's GEMM inside its own parallel
    regions (the flash-attention kernel) with nested thread teams: language-model generation after a SynTF cell
    ran 10-20x slower (docs/results/assess.md). One active level is what torch and MKL expect."""
    # no GNU OpenMP runtime: numba used another threading layer
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libgomp.so.1").omp_set_max_active_levels(1)


@njit(cache=True, fastmath=True, nogil=True)
def _max_float32(row):
    """The largest value of a float32 row (no NaN), by an integer maximum over order-preserving keys of the
    bits: numba leaves a float max reduction scalar, an integer one vectorises."""
    bits = row.view(np.int32)
    best = np.int32(-2147483648)
    for w in range(bits.shape[0]):
        b = bits[w]
        best = max(best, b ^ ((b >> 31) & np.int32(0x7FFFFFFF)))
    out = np.empty(1, dtype=np.int32)
    out[0] = best ^ ((best >> 31) & np.int32(0x7FFFFFFF))
    return out.view(np.float32)[0]


# fast-math without reciprocal or reassociation: the penalty's division stays exact (same bits as a scalar
# division), and the loop still vectorises
_EXACT_DIVISION = {"nnan", "ninf", "nsz", "contract"}


@njit(cache=True, fastmath=_EXACT_DIVISION, nogil=True)
def _subtract_dice_penalties(row, shared, set_sizes, n_v, pen_dice):
    """row[w] -= pen_dice * shared[w] / (n_v + |B(w)|) (Dice(v, w) * scale; 0 where nothing is shared), and
    shared is zeroed for the next row. Dense and branch-free: vectorised, it costs less than visiting only the
    words that share a bigram."""
    for w in range(row.shape[0]):
        # where shared[w] = 0 the penalty is 0 (n_v + |B(w)| may be 0 then: the max keeps it finite)
        row[w] = row[w] - pen_dice * np.float32(shared[w]) / max(n_v + set_sizes[w], np.float32(1.0))
        shared[w] = 0


@njit(cache=True, fastmath=True, nogil=True)
def _fill_scaled_row(
    row,
    v,
    inv_norms,
    inc_ptr,
    inc_idx,
    post_ptr,
    post_idx,
    set_sizes,
    dense_slot,
    dense_members,
    shared,
    base,
    offset,
    pen_dice,
    pen_self,
):
    """Turn one row of exact dot products into scaled ratings in place; returns an upper bound of its maximum.

    ``shared[w]`` counts the bigrams v shares with w: a frequent bigram (``dense_slot[k] >= 0``) adds its dense
    0/1 membership row ``dense_members[slot]`` (vectorised), a rare one increments its posting list's words
    (inverted index). ``shared`` (the members' dtype, length L) is all zero on entry and on exit.
    """
    for j in range(inc_ptr[v], inc_ptr[v + 1]):
        k = inc_idx[j]
        slot = dense_slot[k]
        if slot >= 0:
            members = dense_members[slot]
            for w in range(shared.shape[0]):
                shared[w] += members[w]
        else:
            for p in range(post_ptr[k], post_ptr[k + 1]):
                shared[post_idx[p]] += 1
    base_v = base * inv_norms[v]
    for w in range(row.shape[0]):
        row[w] = base_v * (row[w] * inv_norms[w]) + offset
    largest = _max_float32(row)  # penalties only lower a rating: this bounds the row's maximum
    n_v = set_sizes[v]
    _subtract_dice_penalties(row, shared, set_sizes, n_v, pen_dice)
    if n_v == 0:
        # Dice(v, v) = 1 by definition, also for a word without any bigram (e.g. one letter)
        row[v] -= pen_self
    return largest


@njit(cache=True, parallel=True, fastmath=True, nogil=True)
def scaled_ratings_block(
    D,
    rows,
    inv_norms,
    inc_ptr,
    inc_idx,
    post_ptr,
    post_idx,
    set_sizes,
    dense_slot,
    dense_members,
    base,
    offset,
    pen_dice,
    pen_self,
    n_chunks,
):
    """Scaled ratings of a block, in place of its dot products."""
    n_rows, n_words = D.shape
    for chunk in prange(n_chunks):
        shared = np.zeros(n_words, dtype=dense_members.dtype)
        for i in range(chunk, n_rows, n_chunks):
            _fill_scaled_row(
                D[i],
                rows[i],
                inv_norms,
                inc_ptr,
                inc_idx,
                post_ptr,
                post_idx,
                set_sizes,
                dense_slot,
                dense_members,
                shared,
                base,
                offset,
                pen_dice,
                pen_self,
            )


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


@njit(cache=True, nogil=True)
def _chunk_sums(weights, ends):
    """ends[b] = the sum of weights[: 64 (b + 1)]; returns the total. Each 64-word chunk is summed in eight
    fixed lanes and a fixed tree (vectorisable, and the same bits on every machine and in every batch)."""
    n_words = weights.shape[0]
    running = 0.0
    for b in range(ends.shape[0]):
        start = b * CDF_CHUNK
        if start + CDF_CHUNK <= n_words:
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
            for i in range(start, start + CDF_CHUNK, 8):
                s0 += weights[i]
                s1 += weights[i + 1]
                s2 += weights[i + 2]
                s3 += weights[i + 3]
                s4 += weights[i + 4]
                s5 += weights[i + 5]
                s6 += weights[i + 6]
                s7 += weights[i + 7]
            part = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
        else:
            part = 0.0
            for w in range(start, n_words):
                part += weights[w]
        running += part
        ends[b] = running
    return running


@njit(cache=True, fastmath=True, nogil=True)
def _update_extrema_pair(row, log_partition, other, other_log_partition, highest, lowest):
    """highest[w] = max(highest[w], row[w] - log_partition, other[w] - other_log_partition), likewise the minimum:
    two rows at once, so the column arrays are read once per pair (float64; max and min are exact in any order, so
    fastmath only lets them vectorise; a row paired with itself updates them alone)."""
    for w in range(row.shape[0]):
        value = np.float64(row[w]) - log_partition
        other_value = np.float64(other[w]) - other_log_partition
        highest[w] = max(highest[w], max(value, other_value))
        lowest[w] = min(lowest[w], min(value, other_value))


@njit(cache=True, parallel=True, nogil=True)
def release_block(
    D,
    rows,
    inv_norms,
    inc_ptr,
    inc_idx,
    post_ptr,
    post_idx,
    set_sizes,
    dense_slot,
    dense_members,
    base,
    offset,
    pen_dice,
    pen_self,
    uniform_ptr,
    uniforms,
    out,
    track_extrema,
    column_max,
    column_min,
    n_chunks,
):
    """One streamed block of the mechanism: sample every draw of its rows and (optionally) update the extrema.

    Row i is the distribution of source word ``rows[i]``: scaled ratings from the dot products ``D[i]``
    (:func:`_fill_scaled_row`), weights exp(a - max) in float64 (:func:`_exp_shifted_row`), cumulative sums per
    64-word chunk; each uniform u in ``uniforms[uniform_ptr[i]:uniform_ptr[i+1]]`` picks the word w with
    F(w-1) <= u * F(L) < F(w), written to the same positions of ``out``.

    With ``track_extrema``, also ``column_max[c, w] = max(column_max[c, w], ln pi[rows[i], w])`` (likewise the
    minimum) for the rows of chunk c, ln pi[v, w] = a[v, w] - ln Z_v: per-thread arrays of shape (n_chunks, L) the
    caller reduces (without it, any n_chunks rows); a row without draws then costs only its ratings and normaliser."""
    n_rows = rows.shape[0]
    n_words = D.shape[1]
    n_blocks = (n_words + CDF_CHUNK - 1) // CDF_CHUNK
    for chunk in prange(n_chunks):
        weights = np.empty(n_words, dtype=np.float64)
        bits = np.empty(n_words, dtype=np.int64)
        shared = np.zeros(n_words, dtype=dense_members.dtype)
        ends = np.empty(n_blocks, dtype=np.float64)
        highest, lowest = column_max[chunk], column_min[chunk]
        pending = -1  # a row whose extrema wait for a second one: the column arrays are then read once per pair
        pending_log_partition = 0.0
        for i in range(chunk, n_rows, n_chunks):
            has_draws = uniform_ptr[i] < uniform_ptr[i + 1]
            if not (has_draws or track_extrema):
                continue
            row = D[i]
            largest = _fill_scaled_row(
                row,
                rows[i],
                inv_norms,
                inc_ptr,
                inc_idx,
                post_ptr,
                post_idx,
                set_sizes,
                dense_slot,
                dense_members,
                shared,
                base,
                offset,
                pen_dice,
                pen_self,
            )
            _exp_shifted_row(row, largest, weights, bits)
            running = _chunk_sums(weights, ends)
            for q in range(uniform_ptr[i], uniform_ptr[i + 1]):
                out[q] = _search(weights, ends, uniforms[q] * running)
            if track_extrema:
                log_partition = np.float64(largest) + np.log(running)
                if pending < 0:
                    pending, pending_log_partition = i, log_partition
                else:
                    _update_extrema_pair(D[pending], pending_log_partition, row, log_partition, highest, lowest)
                    pending = -1
        if pending >= 0:  # a row left without a partner updates the extrema alone
            _update_extrema_pair(D[pending], pending_log_partition, D[pending], pending_log_partition, highest, lowest)


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


@njit(cache=True, nogil=True)
def sample_categorical_rows(indptr, indices, cumulative, uniforms, n_columns, out):
    """One draw per uniform from each CSR row's categorical distribution (weights = the row's values), by inverse
    CDF over the global running sum ``cumulative`` (length nnz + 1, cumulative[k] = sum of the first k values).

    ``uniforms`` and ``out`` have shape (n_rows, n_draws). A row with no positive weight draws uniformly over
    ``n_columns``. Exactly the vectorised numpy form (offset targets, one global ``searchsorted``, positions clipped
    into the row's segment), row by row: each search stays inside the row's own segment of ``cumulative``.
    """
    n_rows, n_draws = uniforms.shape
    last_entry = cumulative.shape[0] - 2
    for d in range(n_rows):
        start, end = indptr[d], indptr[d + 1]
        before = cumulative[start]
        total = cumulative[end] - before
        last = max(end - 1, start)
        for j in range(n_draws):
            u = uniforms[d, j]
            if total <= 0.0 or last_entry < 0:
                out[d, j] = min(np.int64(u * n_columns), n_columns - 1)
                continue
            target = before + u * total
            # cumulative[start] <= target, so the global search's answer lies in [start + 1, ...]: search from there
            position = start + np.searchsorted(cumulative[start : end + 1], target, side="right") - 1
            position = min(max(position, start), last, last_entry)
            out[d, j] = indices[position]
