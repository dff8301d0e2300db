"""The inverse-CDF kernel on its own: several CDF chunks, zero weights, extreme uniforms."""

from __future__ import annotations

import numpy as np

from authorguard.privacy._kernels import CDF_CHUNK, sample_from_weights
from tests import reference


def _draw(weights, uniforms):
    weights = np.ascontiguousarray(np.atleast_2d(weights), dtype=np.float32)
    out = np.empty(len(uniforms), dtype=np.int64)
    sample_from_weights(weights, np.array([0, len(uniforms)], dtype=np.int64), np.asarray(uniforms, dtype=np.float64), out, 2)
    return out


def test_matches_the_weights_across_chunks_and_never_picks_a_zero():
    rng = np.random.default_rng(11)
    L = 5 * CDF_CHUNK + 17
    weights = rng.gamma(0.5, size=L).astype(np.float32)
    weights[rng.random(L) < 0.3] = 0.0
    weights[CDF_CHUNK : 2 * CDF_CHUNK] = 0.0  # a whole empty chunk
    draws = _draw(weights, rng.random(200_000))
    assert (weights[draws] > 0).all()
    assert reference.chi_square_pvalue(np.bincount(draws, minlength=L), weights / weights.sum()) > 1e-3


def test_extreme_uniforms_pick_the_first_and_last_positive_words():
    weights = np.zeros(3 * CDF_CHUNK, dtype=np.float32)
    first, middle, last = 5, CDF_CHUNK + 10, 2 * CDF_CHUNK + 30  # one positive weight in each chunk
    weights[[first, middle, last]] = [1.0, 2.0, 1.0]
    draws = _draw(weights, [0.0, 0.2499, 0.25, 0.7499, 0.75, 1.0 - 2**-53]).tolist()
    assert draws == [first, first, middle, middle, last, last]


def test_rows_without_uniforms_are_skipped():
    weights = np.ones((3, 10), dtype=np.float32)
    out = np.full(2, -7, dtype=np.int64)
    sample_from_weights(weights, np.array([0, 0, 2, 2], dtype=np.int64), np.array([0.05, 0.95]), out, 2)
    assert out.tolist() == [0, 9]
