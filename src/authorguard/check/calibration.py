"""From an attacker's scores to probabilities that mean what they say: temperature scaling and its error.

An attacker's scores (SVM margins, cosines, log-probabilities) rank candidates but are no probabilities. Temperature
scaling (Guo et al., 2017, "On Calibration of Modern Neural Networks") fits one number T > 0 so that
``softmax(scores / T)`` minimises the negative log-likelihood of the true authors of held-out texts; it keeps the
ranking. Its quality is the expected calibration error (ECE) of the top candidate's probability: the gap between
confidence and accuracy, averaged over equal-width confidence bins, weighted by the texts in each.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax

from authorguard.exceptions import InputError

#: the range searched for log T: SVM margins (~0.1 apart) to log-probabilities (tens apart)
LOG_T_BOUNDS = (-8.0, 6.0)


def probabilities(scores: np.ndarray, temperature: float) -> np.ndarray:
    """``softmax(scores / temperature)`` row by row; shape as ``scores`` (n_texts, n_candidates)."""
    return np.exp(log_softmax(np.asarray(scores, dtype=float) / temperature, axis=1))


#: what a temperature is fitted for: the likelihood of every text's true candidate (Guo et al.), or the top
#: candidate's probability as a forecast of "the top candidate wrote it" (top-label calibration; the many-candidates
#: profiles' cosines need it: fitted for the likelihood, their top probability understates by ~12 points at 1,000
#: candidates, docs/results/check.md)
OBJECTIVES = ("likelihood", "top")


def fit_temperature(scores: np.ndarray, truth: Sequence[int] | np.ndarray, objective: str = "likelihood") -> float:
    """The T minimising the mean negative log-likelihood of candidate ``truth[i]`` for text i (``"likelihood"``),
    or of the outcomes "the top candidate is the author" under the top candidate's probability (``"top"``);
    ``scores``: (n_texts, n_candidates). Needs at least one text."""
    scores = np.asarray(scores, dtype=float)
    truth = np.asarray(truth, dtype=int)
    if scores.ndim != 2 or len(scores) != len(truth) or len(truth) == 0:
        raise InputError(f"fit_temperature: {scores.shape} scores for {len(truth)} true candidates")
    if objective not in OBJECTIVES:
        raise InputError(f"fit_temperature: objective {objective!r} is not one of {', '.join(OBJECTIVES)}")
    correct = scores.argmax(1) == truth
    # log p_ij = shifted_ij / T - log sum_k exp(shifted_ik / T), with shifted = scores - the row's top (<= 0, so the
    # top candidate's log-probability is minus the log-sum); the exponentials in float32 (SIMD: the fit reads
    # thousands of texts x 1,000 candidates a few hundred times at 1,000 candidates), the sums in float64
    shifted = scores - scores.max(axis=1, keepdims=True)
    shifted32 = shifted.astype(np.float32)
    true_shift = shifted[np.arange(len(truth)), truth]

    def loss(log_t: float) -> float:
        t = float(np.exp(log_t))
        log_sums = np.log(np.exp(shifted32 * np.float32(1 / t)).sum(axis=1, dtype=np.float64))
        if objective == "top":
            top = np.clip(np.exp(-log_sums), 1e-12, 1 - 1e-12)
            return -float(np.mean(np.where(correct, np.log(top), np.log1p(-top))))
        return -float(np.mean(true_shift / t - log_sums))

    return float(np.exp(minimize_scalar(loss, bounds=LOG_T_BOUNDS, method="bounded").x))


def calibration_error(
    confidence: Sequence[float] | np.ndarray, correct: Sequence[bool] | np.ndarray, bins: int = 10
) -> float:
    """Expected calibration error: sum over equal-width bins of (texts in bin / texts) x |accuracy - mean
    confidence|. ``confidence``: the top candidate's probability per text; ``correct``: whether it was the author."""
    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=float)
    if len(confidence) != len(correct) or len(confidence) == 0:
        raise InputError(f"calibration_error: {len(confidence)} confidences, {len(correct)} outcomes")
    which = np.minimum((confidence * bins).astype(int), bins - 1)
    error = 0.0
    for b in range(bins):
        members = which == b
        if members.any():
            error += members.mean() * abs(correct[members].mean() - confidence[members].mean())
    return float(error)


def cross_fitted(
    scores: np.ndarray,
    truth: Sequence[int] | np.ndarray,
    rng: np.random.Generator,
    folds: int = 2,
    objective: str = "likelihood",
) -> tuple[np.ndarray, np.ndarray]:
    """Temperature scaling judged on texts it was not fitted on: T fitted on all folds but one, each held-out
    text's top probability (``confidence``) and whether its top candidate is its author (``correct``), all folds
    pooled. Empty arrays with fewer texts than 2 x folds."""
    scores = np.asarray(scores, dtype=float)
    truth = np.asarray(truth, dtype=int)
    if len(truth) < 2 * folds:
        return np.empty(0), np.empty(0, dtype=bool)
    fold_of = rng.permutation(len(truth)) % folds
    confidence, correct = np.empty(len(truth)), np.empty(len(truth), dtype=bool)
    for fold in range(folds):
        held = fold_of == fold
        p = probabilities(scores[held], fit_temperature(scores[~held], truth[~held], objective))
        confidence[held] = p.max(1)
        correct[held] = p.argmax(1) == truth[held]
    return confidence, correct


def cross_fitted_error(
    scores: np.ndarray, truth: Sequence[int] | np.ndarray, rng: np.random.Generator, folds: int = 2
) -> float:
    """The ECE of :func:`cross_fitted`'s probabilities; NaN with fewer texts than 2 x folds."""
    confidence, correct = cross_fitted(scores, truth, rng, folds)
    return calibration_error(confidence, correct) if len(confidence) else float("nan")
