"""Preference pairs for DPO by the paper's Algorithm 1 (Loiseau et al., Appendix A.3).

Two rewrites of one prompt form a pair when their privacy rewards differ by more than ε_priv and their utility
rewards by less than ε_util (the pair then teaches privacy at equal utility); the chosen rewrite is the one with
the higher privacy reward. The paper: ε_priv = 0.10, ε_util = 0.05.

With the validity gate on (the reward's ``gate``; beyond the paper), a refused rewrite has the minimum reward,
so Algorithm 1 never pairs it (its utility gap is too large): every Algorithm-1 pair has two valid sides. A prompt
whose two rewrites are one valid and one refused gives a *validity pair* instead (``validity_pairs``): the valid
rewrite chosen over the comment, loop or copy, whatever their privacy rewards — the contrast the reward itself
gets wrong (a comment shares nothing of the author's style, so R_priv pays it well). A prompt with two refused
rewrites gives nothing; a pair whose chosen side is refused never forms.

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
    (|ΔR_priv| > ε_priv but |ΔR_util| ≥ ε_util), ``validity_pairs`` (one side refused by the gate, kept as a
    pair), ``both_invalid`` (both refused: no pair)."""

    prompts: list
    chosen: list
    rejected: list
    indices: list
    candidates: int
    privacy_too_close: int
    utility_too_far: int
    validity_pairs: int = 0
    both_invalid: int = 0

    def stats(self) -> dict:
        return {
            "candidates": self.candidates,
            "kept": len(self.chosen),
            "privacy_too_close": self.privacy_too_close,
            "utility_too_far": self.utility_too_far,
            "validity_pairs": self.validity_pairs,
            "both_invalid": self.both_invalid,
        }


def preference_pairs(
    prompts: Sequence[str],
    left: Sequence[str],
    right: Sequence[str],
    left_reward: RewardBreakdown,
    right_reward: RewardBreakdown,
    epsilon_privacy: float = 0.10,
    epsilon_utility: float = 0.05,
    validity_pairs: bool = True,
) -> PreferencePairs:
    """Algorithm 1 over aligned prompts and two rewrites of each (with their rewards). A term that is off (NaN)
    drops out: without utility only the privacy condition applies; without privacy the utility reward ranks
    with margin ``epsilon_privacy`` (see the module's note). Both off is an error. When the rewards carry the
    gate's verdicts, refused rewrites are handled as the module's note says."""
    n = len(prompts)
    if not (len(left) == len(right) == len(left_reward.privacy) == len(right_reward.privacy) == n):
        raise InputError(
            f"preference pairs: {n} prompts but {len(left)} / {len(right)} rewrites and "
            f"{len(left_reward.privacy)} / {len(right_reward.privacy)} rewards"
        )
    privacy_gap = right_reward.privacy - left_reward.privacy
    utility_gap = right_reward.utility - left_reward.utility
    if np.isnan(privacy_gap).any():
        if np.isnan(utility_gap).any():
            raise InputError("preference pairs need the privacy or the utility reward (both are off)")
        privacy_gap, utility_gap = utility_gap, np.zeros(n)  # the ablation without privacy: utility ranks
    utility_gap = np.nan_to_num(utility_gap, nan=0.0)
    left_problems, right_problems = left_reward.problems, right_reward.problems
    if left_problems is not None and right_problems is not None:
        left_bad = np.array([p is not None for p in left_problems])
        right_bad = np.array([p is not None for p in right_problems])
    else:
        left_bad, right_bad = np.zeros(n, bool), np.zeros(n, bool)
    both_valid = ~left_bad & ~right_bad
    one_valid = left_bad ^ right_bad
    far_apart = np.abs(privacy_gap) > epsilon_privacy
    close_utility = np.abs(utility_gap) < epsilon_utility
    out = PreferencePairs(
        [],
        [],
        [],
        [],
        n,
        int((both_valid & ~far_apart).sum()),
        int((both_valid & far_apart & ~close_utility).sum()),
        int(one_valid.sum()) if validity_pairs else 0,
        int((left_bad & right_bad).sum()),
    )
    for i in range(n):
        if both_valid[i] and far_apart[i] and close_utility[i]:
            better, worse = (right[i], left[i]) if privacy_gap[i] > 0 else (left[i], right[i])
        elif validity_pairs and one_valid[i]:
            better, worse = (right[i], left[i]) if left_bad[i] else (left[i], right[i])
        else:
            continue
        out.prompts.append(prompts[i])
        out.chosen.append(better)
        out.rejected.append(worse)
        out.indices.append(int(i))
    return out
