"""The inverse-CDF search on its own: several CDF chunks, zero weights, extreme uniforms."""

from __future__ import annotations

import numpy as np

from authorguard.privacy._kernels import CDF_CHUNK, _search
from tests import reference


def _draw(weights, uniforms):
    weights = np.asarray(weights, dtype=np.float64)
    padded = np.pad(weights, (0, -len(weights) % CDF_CHUNK))
    ends = np.cumsum(padded.reshape(-1, CDF_CHUNK).sum(axis=1))
    return np.array([_search(weights, ends, u * ends[-1]) for u in uniforms])


def test_matches_the_weights_across_chunks_and_never_picks_a_zero():
    rng = np.random.default_rng(11)
    L = 5 * CDF_CHUNK + 17
    weights = rng.gamma(0.5, size=L)
    weights[rng.random(L) < 0.3] = 0.0
    weights[CDF_CHUNK : 2 * CDF_CHUNK] = 0.0  # a whole empty chunk
    draws = _draw(weights, rng.random(100_000))
    assert (weights[draws] > 0).all()
    assert reference.chi_square_pvalue(np.bincount(draws, minlength=L), weights) > 1e-3


def test_extreme_uniforms_pick_the_first_and_last_positive_words():
    weights = np.zeros(3 * CDF_CHUNK)
    first, middle, last = 5, CDF_CHUNK + 10, 2 * CDF_CHUNK + 30  # one positive weight in each chunk
    weights[[first, middle, last]] = [1.0, 2.0, 1.0]
    draws = _draw(weights, [0.0, 0.2499, 0.25, 0.7499, 0.75, 1.0 - 2**-53]).tolist()
    assert draws == [first, first, middle, middle, last, last]


def test_vectorised_exp_matches_libm():
    from authorguard.privacy._kernels import _exp_shifted_row

    rng = np.random.default_rng(2)
    row = np.concatenate(
        [[0.0, -1e-9, -0.3465, -0.3466, -700.0, -707.9, -708.1, -745.0, -900.0], -rng.random(10_000) * 120]
    ).astype(np.float32)
    weights, bits = np.empty(len(row)), np.empty(len(row), dtype=np.int64)
    _exp_shifted_row(row, 0.0, weights, bits)
    expected = np.exp(row.astype(np.float64))
    kept = row > -708.0
    np.testing.assert_allclose(weights[kept], expected[kept], rtol=1e-13)
    assert (weights[~kept] == 0).all()  # below e^-708 (relative to the row maximum) weights are flushed to zero


def test_row_maximum_by_integer_keys_equals_numpys():
    from authorguard.privacy._kernels import _max_float32

    rng = np.random.default_rng(3)
    for row in (
        rng.normal(size=1001).astype(np.float32),
        -rng.random(64).astype(np.float32) - 1.0,  # all negative
        np.array([-0.0, -1e-30, -3.0e38], dtype=np.float32),
        np.array([0.0, -0.0, 1e-45, 3.0e38], dtype=np.float32),
    ):
        assert _max_float32(row) == row.max()


def _numpy_categorical_rows(counts, uniforms):
    """The vectorised numpy form the kernel replaces: one global searchsorted, positions clipped to each row."""
    n_columns = counts.shape[1]
    uniform = np.minimum((uniforms * n_columns).astype(np.int64), n_columns - 1)
    if counts.nnz == 0:
        return uniform
    indptr = counts.indptr
    cumulative = np.concatenate([[0.0], np.cumsum(counts.data)])
    before, after = cumulative[indptr[:-1]], cumulative[indptr[1:]]
    totals = after - before
    positions = np.searchsorted(cumulative, before[:, None] + uniforms * totals[:, None], side="right") - 1
    last = np.maximum(indptr[1:, None] - 1, indptr[:-1, None])
    positions = np.minimum(np.clip(positions, indptr[:-1, None], last), counts.nnz - 1)
    return np.where((totals <= 0)[:, None], uniform, counts.indices[positions])


def test_categorical_rows_match_the_numpy_form_with_empty_rows_explicit_zeros_and_extreme_uniforms():
    import scipy.sparse as sp

    from authorguard.methods.syntf import SynTF

    rng = np.random.default_rng(5)
    for _ in range(300):
        n_rows, n_columns = rng.integers(1, 8), rng.integers(1, 12)
        dense = rng.integers(0, 3, (n_rows, n_columns)).astype(float)
        dense[rng.random((n_rows, n_columns)) < 0.5] = 0
        counts = sp.csr_matrix(dense)
        if counts.nnz and rng.random() < 0.3:
            counts.data[rng.integers(counts.nnz)] = 0.0  # an explicit zero weight
        uniforms = rng.random((n_rows, 5))
        uniforms[0, 0], uniforms[-1, -1] = 0.0, 1.0 - 2**-53
        assert np.array_equal(SynTF._sample_sources(counts, uniforms), _numpy_categorical_rows(counts, uniforms))
