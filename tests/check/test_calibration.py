"""Temperature scaling recovers a known temperature, and the calibration error tells calibrated from overconfident."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.check.calibration import calibration_error, cross_fitted_error, fit_temperature, probabilities
from authorguard.exceptions import InputError


def _draws(temperature: float, n: int, candidates: int, rng: np.random.Generator):
    """Scores whose softmax at ``temperature`` is the true distribution of the author, and authors drawn from it."""
    scores = rng.normal(0, 1, (n, candidates))
    p = probabilities(scores, temperature)
    truth = np.array([rng.choice(candidates, p=row) for row in p])
    return scores, truth


@pytest.mark.parametrize("temperature", [0.25, 1.0, 3.0])
def test_recovers_the_temperature_that_generated_the_authors(temperature):
    scores, truth = _draws(temperature, 4000, 10, np.random.default_rng(1))
    assert fit_temperature(scores, truth) == pytest.approx(temperature, rel=0.1)


def test_calibrated_probabilities_have_a_small_error_overconfident_ones_a_large_one():
    rng = np.random.default_rng(2)
    scores, truth = _draws(1.0, 4000, 10, rng)
    right = probabilities(scores, 1.0)
    wrong = probabilities(scores, 0.2)  # sharper than the truth: overconfident
    error = lambda p: calibration_error(p.max(1), p.argmax(1) == truth)  # noqa: E731
    assert error(right) < 0.03 < 0.15 < error(wrong)
    assert cross_fitted_error(scores, truth, rng) < 0.03


def test_error_of_a_known_case():
    # two texts at confidence .9, one right: |0.5 - 0.9| in one bin
    assert calibration_error([0.9, 0.9], [True, False]) == pytest.approx(0.4)
    assert np.isnan(cross_fitted_error(np.zeros((3, 2)), [0, 1, 0], np.random.default_rng(0)))


def test_bad_shapes_are_one_line():
    with pytest.raises(InputError, match="fit_temperature"):
        fit_temperature(np.zeros((3, 2)), [0, 1])
    with pytest.raises(InputError, match="calibration_error"):
        calibration_error([], [])


def test_the_top_objective_calibrates_the_top_probability_where_the_likelihood_does_not():
    """300 candidates whose true author's score is raised by a noisy amount (not a softmax at any temperature, as
    cosines to many profiles are not): the likelihood's T misstates the top probability by ~9 points, the top
    objective's by ~5 (on the check's 1,000 blog profiles: 0.137 -> 0.040, docs/results/check.md)."""
    rng = np.random.default_rng(3)
    n, candidates = 3000, 300
    truth = rng.integers(0, candidates, n)
    scores = rng.normal(0, 1, (n, candidates))
    scores[np.arange(n), truth] += rng.normal(2.5, 1.5, n)
    errors = {}
    for objective in ("likelihood", "top"):
        t = fit_temperature(scores, truth, objective)
        p = probabilities(scores, t)
        errors[objective] = calibration_error(p.max(1), p.argmax(1) == truth)
    assert errors["top"] < 0.06
    assert errors["likelihood"] > 0.08
    with pytest.raises(InputError, match="objective"):
        fit_temperature(scores, truth, "accuracy")
