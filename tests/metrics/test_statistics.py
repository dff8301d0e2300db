"""Intervals and paired tests: known values, coverage by exact enumeration, and a constructed case whose answer is
known."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.metrics.statistics import mcnemar_exact, overlaps, paired_bootstrap_interval, wilson_interval


def test_wilson_interval_known_values_and_bounds():
    lo, hi = wilson_interval(0.5, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson_interval(0.0, 10)[0] == 0.0 and 0.0 < wilson_interval(0.0, 10)[1] < 0.35
    assert wilson_interval(1.0, 10)[1] == 1.0
    # coverage, exactly over every outcome k of n = 30 trials: the 95 % interval holds the true proportion about 95 %
    # of the time on average over p (Wilson's known behaviour: it oscillates around the nominal level, never far below)
    from scipy.stats import binom

    def coverage(p, n=30):
        return sum(
            binom.pmf(k, n, p)
            for k in range(n + 1)
            if wilson_interval(k / n, n)[0] <= p <= wilson_interval(k / n, n)[1]
        )

    values = [coverage(p) for p in np.linspace(0.05, 0.95, 37)]
    assert 0.935 < np.mean(values) < 0.965 and min(values) > 0.88
    assert overlaps((0.1, 0.3), (0.25, 0.5)) and not overlaps((0.1, 0.2), (0.3, 0.4))


def test_mcnemar_exact_matches_a_brute_force_enumeration_of_the_sign_flips():
    rng = np.random.default_rng(0)
    for n_disagree in (1, 5, 12):
        a = rng.random(n_disagree) < 0.7  # A right where True; B right exactly where A is not
        observed = abs(int(a.sum()) - int((~a).sum()))
        # under the null each disagreement is A's or B's with probability 1/2: enumerate all 2^n assignments
        extreme = sum(
            1 for flips in itertools.product([0, 1], repeat=n_disagree) if abs(2 * sum(flips) - n_disagree) >= observed
        )
        agreeing = np.ones(20, dtype=bool)  # documents both get right never count
        p = mcnemar_exact(np.concatenate([a, agreeing]), np.concatenate([~a, agreeing]))
        assert p == pytest.approx(min(1.0, extreme / 2**n_disagree))


def test_a_constructed_difference_is_found_real_and_an_equal_one_is_not():
    rng = np.random.default_rng(1)
    original = rng.random(2000) < 0.50
    # the method loses 60 of the original's correct answers and gains 10: accuracy 2.5 points lower
    method = original.copy()
    method[np.flatnonzero(original)[:60]] = False
    method[np.flatnonzero(~original)[:10]] = True
    assert mcnemar_exact(original, method) < 1e-6
    low, high = paired_bootstrap_interval(original, method, np.random.default_rng(2))
    assert low < -0.025 < high < 0
    # the same accuracy, other documents right: nothing to tell apart
    shuffled = original.copy()
    shuffled[np.flatnonzero(original)[:30]] = False
    shuffled[np.flatnonzero(~original)[:30]] = True
    assert mcnemar_exact(original, shuffled) == 1.0
    low, high = paired_bootstrap_interval(original, shuffled, np.random.default_rng(2))
    assert low < 0 < high


def test_the_paired_tests_refuse_documents_that_do_not_pair():
    with pytest.raises(InputError, match="same documents"):
        mcnemar_exact([True, False], [True])
    with pytest.raises(InputError, match="no documents"):
        paired_bootstrap_interval([], [], np.random.default_rng(0))
