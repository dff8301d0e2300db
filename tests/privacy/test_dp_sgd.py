"""DP-SGD's author-level accounting against independent computations: the exact Rényi DP of the Poisson-subsampled
Gaussian at integer orders (Mironov, Talwar and Zhang 2019: a binomial sum); the (ε, δ) of one subsampled step from
the definition itself (the hockey-stick divergence of the two output densities, integrated numerically), and of
the unsubsampled Gaussian from its exact privacy profile — neither of which any accountant may undercut."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

pytest.importorskip("opacus")

from authorguard.exceptions import InputError
from authorguard.privacy.dp_sgd import epsilon_spent, noise_multiplier_for
from tests.reference import gaussian_dp_epsilon

INTEGER_ORDERS = range(2, 64)


def subsampled_gaussian_rdp(q: float, sigma: float, order: int) -> float:
    """RDP at an integer order of one step: log(sum_k C(a,k) (1-q)^(a-k) q^k exp((k^2-k)/(2 sigma^2))) / (a-1)."""
    k = np.arange(order + 1)
    terms = (
        special.gammaln(order + 1)
        - special.gammaln(k + 1)
        - special.gammaln(order - k + 1)
        + (order - k) * math.log1p(-q)
        + k * (math.log(q) if q > 0 else -np.inf)
        + (k * k - k) / (2 * sigma**2)
    )
    if q == 1.0:
        terms = np.where(k == order, terms, -np.inf)
    return float(special.logsumexp(terms)) / (order - 1)


def independent_epsilon(q: float, sigma: float, steps: int, delta: float) -> float:
    """The conversion of Balle et al. 2020 (Theorem 21) over the integer orders."""
    return min(
        steps * subsampled_gaussian_rdp(q, sigma, a) + math.log((a - 1) / a) - (math.log(delta) + math.log(a)) / (a - 1)
        for a in INTEGER_ORDERS
    )


def one_step_exact_epsilon(q: float, sigma: float, delta: float) -> float:
    """The smallest ε at which one step is (ε, δ)-DP, from the definition: with the author the output density is
    (1-q) N(0, σ²) + q N(1, σ²), without it N(0, σ²); δ(ε) is the larger hockey-stick divergence of the two orders."""
    x = np.linspace(-14 * sigma, 1 + 14 * sigma, 400_001)
    without = stats.norm.pdf(x, 0, sigma)
    with_author = (1 - q) * without + q * stats.norm.pdf(x, 1, sigma)

    def delta_at(epsilon: float) -> float:
        factor = math.exp(epsilon)
        return max(
            np.trapezoid(np.maximum(0, with_author - factor * without), x),
            np.trapezoid(np.maximum(0, without - factor * with_author), x),
        )

    low, high = 0.0, 50.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if delta_at(middle) > delta else (low, middle)
    return high


@pytest.mark.parametrize(("q", "sigma", "loose"), [(0.1, 1.0, 1.5), (0.5, 2.0, 1.5), (0.2, 0.5, 1.5), (0.01, 0.8, 3.5)])
def test_one_subsampled_step_never_undercuts_its_exact_epsilon(q, sigma, loose):
    exact = one_step_exact_epsilon(q, sigma, 1e-5)
    assert exact <= epsilon_spent(sigma, q, 1, 1e-5) <= loose * exact  # RDP's conversion is loosest at a small q


@pytest.mark.parametrize(("sigma", "steps"), [(1.0, 1), (4.0, 10), (20.0, 100)])
def test_without_subsampling_the_epsilon_never_undercuts_the_gaussians_exact_profile(sigma, steps):
    exact = gaussian_dp_epsilon(math.sqrt(steps) / sigma, 1e-5)
    spent = epsilon_spent(sigma, 1.0, steps, 1e-5)
    assert exact <= spent <= 1.6 * exact  # RDP is an upper bound, and not a loose one here


@pytest.mark.parametrize("epsilon", [1.0, 4.0, 8.0])
def test_the_calibrated_noise_spends_the_budget_and_less_noise_would_overspend_it(epsilon):
    sigma = noise_multiplier_for(epsilon, 64 / 2000, 500, 1e-5)
    assert epsilon_spent(sigma, 64 / 2000, 500, 1e-5) <= epsilon
    assert epsilon_spent(0.99 * sigma, 64 / 2000, 500, 1e-5) > epsilon
    assert noise_multiplier_for(epsilon, 64 / 2000, 1000, 1e-5) > sigma  # more steps need more noise


@pytest.mark.parametrize(
    ("args", "named"),
    [((0.0, 0.1, 10, 1e-5), "epsilon"), ((1.0, 0.0, 10, 1e-5), "sample_rate"), ((1.0, 0.1, 0, 1e-5), "steps"),
     ((1.0, 0.1, 10, 0.0), "delta")],
)  # fmt: skip
def test_bad_accounting_input_is_refused_naming_it(args, named):
    with pytest.raises(InputError, match=named):
        noise_multiplier_for(*args)
