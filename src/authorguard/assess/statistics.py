"""Confidence intervals for accuracies, and whether two of them can be told apart."""

from __future__ import annotations

import math


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
