"""Finding the epsilon that gives a target tight loss per word.

The paper's exact normalisation of the rating is not recoverable, so results are compared at equal
tight loss l (what a release actually costs), not at equal epsilon.
"""

from __future__ import annotations

from scipy.optimize import brentq

from authorguard.privacy.mechanism import ExponentialMechanism
from authorguard.utils.validation import check_number


def epsilon_for_loss(
    mechanism: ExponentialMechanism, target_loss: float, *, tolerance: float = 1e-3, max_epsilon: float = 1e4
) -> float:
    """The epsilon at which ``mechanism.loss_per_word()`` equals ``target_loss``.

    l(epsilon) is continuous and zero at 0, and l <= epsilon; Brent's method needs only a bracket with a sign
    change, found by doubling from ``target_loss``. Each evaluation is one exact pass over the mechanism.

    Parameters
    ----------
    target_loss : float
        Target loss per word. Must be in (0, inf).
    tolerance : float
        Absolute tolerance on epsilon.
    """
    target_loss = check_number(target_loss, "target_loss", "epsilon_for_loss", low=0.0)

    def gap(epsilon: float) -> float:
        return mechanism.with_epsilon(epsilon).loss_per_word() - target_loss

    high = max(1.0, target_loss)
    while gap(high) < 0:
        high *= 2.0
        if high > max_epsilon:
            raise ValueError(f"no epsilon up to {max_epsilon:g} reaches a loss per word of {target_loss:g}")
    return float(brentq(gap, 1e-9, high, xtol=tolerance))
