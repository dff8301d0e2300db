"""Accounting of DP-SGD with the author as the privacy unit: at every step each author is drawn independently with
probability ``sample_rate`` (Poisson sampling of authors), each drawn author's gradient (over all the examples of
theirs that were counted) is clipped to L2 norm ``clip``, and Gaussian noise of deviation ``noise_multiplier *
clip`` is added to their sum: the Poisson-subsampled Gaussian mechanism, composed over ``steps``.

Neighbouring corpora differ by one author and everything they wrote, so one author moves one clipped term of one
step's sum — the same analysis as example-level DP-SGD with authors in the place of examples (user-level sampling,
Chua et al. 2024). The accounting is Opacus's Rényi DP accountant (its subsampled-Gaussian RDP and the conversion of
Balle et al. 2020): maintained and reviewed, where a hand-written accountant is one more thing to get wrong;
``tests/privacy/test_dp_sgd.py`` checks it against an independent computation (the exact RDP of the subsampled
Gaussian at integer orders, Mironov et al. 2019, and the conversion done again).
"""

from __future__ import annotations

import math
import warnings

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: the Rényi orders the accountant optimises over: Opacus's default grid, with finer orders near 1 (where the optimum
#: lies for a large ε) and larger ones (a small ε)
ORDERS = tuple([1 + x / 100.0 for x in range(1, 10)] + [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 256)))


def _check(sample_rate: float, steps: int, delta: float) -> None:
    check_number(sample_rate, "sample_rate", "DP-SGD", low=0.0, high=1.0, closed="right")
    check_number(steps, "steps", "DP-SGD", kind=int, low=1, closed="left")
    check_number(delta, "delta", "DP-SGD", low=0.0, high=1.0, closed="neither")


def epsilon_spent(noise_multiplier: float, sample_rate: float, steps: int, delta: float) -> float:
    """ε of ``steps`` Poisson-subsampled Gaussian steps at ``delta`` (Opacus's RDP accountant)."""
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    _check(sample_rate, steps, delta)
    check_number(noise_multiplier, "noise_multiplier", "DP-SGD", low=0.0, closed="neither")
    rdp = compute_rdp(q=sample_rate, noise_multiplier=noise_multiplier, steps=steps, orders=list(ORDERS))
    with warnings.catch_warnings():  # an optimum at the grid's edge is still an upper bound, only a looser one
        warnings.simplefilter("ignore", UserWarning)
        epsilon, _ = get_privacy_spent(orders=list(ORDERS), rdp=rdp, delta=delta)
    return float(epsilon)


def noise_multiplier_for(epsilon: float, sample_rate: float, steps: int, delta: float) -> float:
    """The smallest noise multiplier (to 0.1 % of itself) whose ``steps`` steps spend at most ``epsilon`` at
    ``delta``: a bisection on :func:`epsilon_spent`, which falls as the noise grows."""
    _check(sample_rate, steps, delta)
    check_number(epsilon, "epsilon", "DP-SGD", low=0.0, closed="neither")
    low, high = 1e-3, 1.0
    while epsilon_spent(high, sample_rate, steps, delta) > epsilon:
        low, high = high, 2 * high
        if high > 1e4:
            raise InputError(f"DP-SGD: no noise multiplier up to 10^4 reaches epsilon {epsilon} at delta {delta}")
    while high - low > 1e-3 * high:
        middle = math.sqrt(low * high)
        if epsilon_spent(middle, sample_rate, steps, delta) > epsilon:
            low = middle
        else:
            high = middle
    return high
