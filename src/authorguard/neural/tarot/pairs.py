"""Preference pairs for DPO by the paper's Algorithm 1 (Loiseau et al., Appendix A.3).

Two rewrites of one prompt form a pair when their privacy rewards differ by more than ε_priv and their utility
rewards by less than ε_util (the pair then teaches privacy at equal utility); the chosen rewrite is the one with
the higher privacy reward. The paper: ε_priv = 0.10, ε_util = 0.05.

The reward ablation (the paper's Table 7) trains DPO with one term switched off. The paper does not say how its
pairs were then built; here the remaining term ranks: without the utility reward the pair needs only
|ΔR_priv| > ε_priv (chosen = more private); without the privacy reward it needs |ΔR_util| > ε_priv (the same
margin; chosen = higher utility), which is Algorithm 1 with the roles of the two terms taken by the one left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.tarot.reward import RewardBreakdown


@dataclass(frozen=True)
class PreferencePairs:
    """The kept pairs (``prompts``, ``chosen``, ``rejected``, aligned; ``indices`` = their prompt numbers) and the
    filter's counts: ``candidates`` prompts, ``privacy_too_close`` (|ΔR_priv| ≤ ε_priv), ``utility_too_far``
    (|ΔR_priv| > ε_priv but |ΔR_util| ≥ ε_util)."""

    prompts: list
    chosen: list
    rejected: list
    indices: list
    candidates: int
    privacy_too_close: int
    utility_too_far: int

    def stats(self) -> dict:
        return {"candidates": self.candidates, "kept": len(self.chosen), "privacy_too_close": self.privacy_too_close,
                "utility_too_far": self.utility_too_far}


def preference_pairs(prompts: Sequence[str], left: Sequence[str], right: Sequence[str], left_reward: RewardBreakdown,
                     right_reward: RewardBreakdown, epsilon_privacy: float = 0.10,
                     epsilon_utility: float = 0.05) -> PreferencePairs:
    """Algorithm 1 over aligned prompts and two rewrites of each (with their rewards). A term that is off (NaN)
    drops out: without utility only the privacy condition applies; without privacy the utility reward ranks
    with margin ``epsilon_privacy`` (see the module's note). Both off is an error."""
    n = len(prompts)
    if not (len(left) == len(right) == len(left_reward.privacy) == len(right_reward.privacy) == n):
        raise InputError(f"preference pairs: {n} prompts but {len(left)} / {len(right)} rewrites and "
                         f"{len(left_reward.privacy)} / {len(right_reward.privacy)} rewards")
    privacy_gap = right_reward.privacy - left_reward.privacy
    utility_gap = right_reward.utility - left_reward.utility
    if np.isnan(privacy_gap).any():
        if np.isnan(utility_gap).any():
            raise InputError("preference pairs need the privacy or the utility reward (both are off)")
        privacy_gap, utility_gap = utility_gap, np.zeros(n)  # the ablation without privacy: utility ranks
    utility_gap = np.nan_to_num(utility_gap, nan=0.0)
    far_apart = np.abs(privacy_gap) > epsilon_privacy
    close_utility = np.abs(utility_gap) < epsilon_utility
    out = PreferencePairs([], [], [], [], n, int((~far_apart).sum()), int((far_apart & ~close_utility).sum()))
    for i in np.flatnonzero(far_apart & close_utility):
        better, worse = (right[i], left[i]) if privacy_gap[i] > 0 else (left[i], right[i])
        out.prompts.append(prompts[i])
        out.chosen.append(better)
        out.rejected.append(worse)
        out.indices.append(int(i))
    return out
