"""Brute-force reference implementations, straight from the definitions (float64, explicit loops)."""

from __future__ import annotations

import math

import numpy as np


def bigram_set(word: str) -> set[str]:
    word = word.lower()
    return {word[i : i + 2] for i in range(len(word) - 1)}


def dice(v: str, w: str) -> float:
    if v == w:
        return 1.0
    a, b = bigram_set(v), bigram_set(w)
    if not a and not b:
        return 0.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def rating_matrix(words: list[str], vectors: np.ndarray, s: float) -> np.ndarray:
    """rho(v, w) = ((cos + 1)/2 - s * Dice + s) / (1 + s), shape (L, L)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    L = len(words)
    rho = np.empty((L, L))
    for i in range(L):
        for j in range(L):
            cos = float(vectors[i] @ vectors[j] / (np.linalg.norm(vectors[i]) * np.linalg.norm(vectors[j])))
            rho[i, j] = ((cos + 1) / 2 - s * dice(words[i], words[j]) + s) / (1 + s)
    return rho


def mechanism_matrix(words: list[str], vectors: np.ndarray, epsilon: float, s: float) -> np.ndarray:
    """pi[v, w] = exp(epsilon rho / 2) / sum_w' exp(epsilon rho(v, w') / 2)."""
    weights = np.exp(epsilon * rating_matrix(words, vectors, s) / 2)
    return weights / weights.sum(axis=1, keepdims=True)


def tight_loss(pi: np.ndarray) -> float:
    """max over outputs w and inputs v, v' of ln(pi[v, w] / pi[v', w]), by enumerating every triple."""
    L = pi.shape[0]
    worst = 0.0
    for w in range(L):
        for v in range(L):
            for v2 in range(L):
                worst = max(worst, math.log(pi[v, w] / pi[v2, w]))
    return worst


def chi_square_pvalue(observed_counts: np.ndarray, expected_probabilities: np.ndarray) -> float:
    """Goodness-of-fit p-value of counts against probabilities, pooling cells expected below 5."""
    from scipy import stats

    observed = np.asarray(observed_counts, dtype=float)
    probabilities = np.asarray(expected_probabilities, dtype=float)
    expected = probabilities / probabilities.sum() * observed.sum()
    keep = expected >= 5  # pool the thin tail so the chi-square approximation holds
    f_obs, f_exp = observed[keep], expected[keep]
    if (~keep).any() and expected[~keep].sum() > 0:
        f_obs, f_exp = np.append(f_obs, observed[~keep].sum()), np.append(f_exp, expected[~keep].sum())
    if len(f_obs) < 2:
        raise ValueError("too few cells for a chi-square test: draw more samples")
    return float(stats.chisquare(f_obs, f_exp).pvalue)


def gaussian_dp_epsilon(mu: float, delta: float) -> float:
    """ε at ``delta`` of a mu-Gaussian-DP mechanism (a Gaussian mechanism of sensitivity-to-scale ratio mu, or a
    composition of them with mu the root of the summed squares; Dong, Roth & Su 2019): the exact privacy profile
    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), inverted by bisection."""
    from scipy import stats

    def profile(eps: float) -> float:
        return stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)

    low, high = 0.0, 100.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if profile(middle) > delta else (low, middle)
    return high
