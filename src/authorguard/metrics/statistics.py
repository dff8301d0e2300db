"""Confidence intervals for accuracies, and whether two of them can be told apart: by their intervals, or by a
paired test when both were measured on the same documents."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from authorguard.exceptions import InputError


def wilson_interval(accuracy: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``accuracy`` measured on ``n`` documents (95 % by default).

    Wilson rather than the normal approximation: it stays inside [0, 1] and is honest at 0, 1 and small n, which
    is where attribution accuracies on a data owner's corpus live."""
    if n <= 0:
        return (0.0, 1.0)
    p = min(max(float(accuracy), 0.0), 1.0)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Whether two intervals share a point: the difference between their estimates is inside the noise."""
    return a[0] <= b[1] and b[0] <= a[1]


def mcnemar_exact(correct_a: npt.ArrayLike, correct_b: npt.ArrayLike) -> float:
    """Two-sided exact McNemar p-value: do two classifiers scored on the *same* documents differ in accuracy?

    ``correct_a``, ``correct_b``: whether each got each document right, shape (n_documents,), in the same order.
    Only the documents where they disagree count (``b`` right only for A, ``c`` right only for B); under the null
    hypothesis each is A's with probability 1/2, so p = min(1, 2 · P[Binomial(b + c, 1/2) ≤ min(b, c)]). Exact
    rather than the chi-squared approximation, which is poor when few documents disagree."""
    a, b = np.atleast_1d(np.asarray(correct_a, dtype=bool)), np.atleast_1d(np.asarray(correct_b, dtype=bool))
    if a.shape != b.shape:
        raise InputError(f"mcnemar_exact: the two need the same documents, got {a.size} and {b.size}")
    only_a, only_b = int(np.count_nonzero(a & ~b)), int(np.count_nonzero(~a & b))
    if only_a + only_b == 0:
        return 1.0
    from scipy.stats import binom

    return float(min(1.0, 2.0 * binom.cdf(min(only_a, only_b), only_a + only_b, 0.5)))


def paired_bootstrap_interval(
    correct_a: npt.ArrayLike, correct_b: npt.ArrayLike, rng: np.random.Generator, n_resamples: int = 2000
) -> tuple[float, float]:
    """95 % percentile interval of accuracy(B) − accuracy(A) over documents resampled with replacement, the same
    draw for both (paired); shapes as :func:`mcnemar_exact`."""
    a, b = np.atleast_1d(np.asarray(correct_a, dtype=float)), np.atleast_1d(np.asarray(correct_b, dtype=float))
    if a.shape != b.shape:
        raise InputError(f"paired_bootstrap_interval: the two need the same documents, got {a.size} and {b.size}")
    if a.size == 0:
        raise InputError("paired_bootstrap_interval: no documents to resample")
    draws = rng.integers(0, a.size, size=(n_resamples, a.size))
    differences = (b[draws] - a[draws]).mean(axis=1)
    low, high = np.quantile(differences, [0.025, 0.975])
    return float(low), float(high)
