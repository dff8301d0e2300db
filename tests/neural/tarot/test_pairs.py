"""Algorithm 1 of the paper on hand-made rewards."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.neural.tarot.pairs import preference_pairs
from authorguard.neural.tarot.reward import RewardBreakdown


def _r(utility, privacy):
    return RewardBreakdown(np.array(utility, float), np.array(privacy, float))


def test_pairs_keep_privacy_gaps_at_equal_utility_and_choose_the_more_private():
    prompts = ["p0", "p1", "p2", "p3"]
    left, right = ["l0", "l1", "l2", "l3"], ["r0", "r1", "r2", "r3"]
    # p0: right more private, same utility -> kept, chosen r0; p1: left more private -> kept, chosen l1;
    # p2: privacy gap too small; p3: privacy gap large but utility differs by 0.2
    pairs = preference_pairs(
        prompts,
        left,
        right,
        _r([0.8, 0.8, 0.8, 0.9], [0.2, 0.6, 0.30, 0.1]),
        _r([0.82, 0.79, 0.8, 0.7], [0.5, 0.3, 0.35, 0.6]),
    )
    assert pairs.prompts == ["p0", "p1"]
    assert pairs.chosen == ["r0", "l1"] and pairs.rejected == ["l0", "r1"]
    assert pairs.stats() == {
        "candidates": 4,
        "kept": 2,
        "privacy_too_close": 1,
        "utility_too_far": 1,
        "validity_pairs": 0,
        "both_invalid": 0,
    }


def test_thresholds_are_strict_like_the_paper():
    # |ΔR_priv| must exceed ε_priv; |ΔR_util| must stay below ε_util
    at_edge = preference_pairs(["p"], ["l"], ["r"], _r([0.5], [0.25]), _r([0.5], [0.5]), epsilon_privacy=0.25)
    assert at_edge.stats()["kept"] == 0
    utility_edge = preference_pairs(["p"], ["l"], ["r"], _r([0.5], [0.0]), _r([0.75], [0.5]), epsilon_utility=0.25)
    assert utility_edge.stats()["kept"] == 0


def test_without_the_utility_reward_only_privacy_decides_and_without_privacy_utility_ranks():
    nan = [np.nan]
    pairs = preference_pairs(["p"], ["l"], ["r"], _r(nan, [0.1]), _r(nan, [0.9]))
    assert pairs.chosen == ["r"]
    # no privacy reward: the utility gap must exceed the margin ε_priv, and the higher utility is chosen
    nan2 = [np.nan, np.nan]
    pairs = preference_pairs(["p", "q"], ["l", "m"], ["r", "s"], _r([0.9, 0.5], nan2), _r([0.4, 0.55], nan2))
    assert pairs.chosen == ["l"] and pairs.rejected == ["r"]
    assert pairs.stats() == {
        "candidates": 2,
        "kept": 1,
        "privacy_too_close": 1,
        "utility_too_far": 0,
        "validity_pairs": 0,
        "both_invalid": 0,
    }
    with pytest.raises(InputError, match="both are off"):
        preference_pairs(["p"], ["l"], ["r"], _r(nan, nan), _r(nan, nan))
    with pytest.raises(InputError, match="prompts"):
        preference_pairs(["p", "q"], ["l"], ["r"], _r([0.5], [0.1]), _r([0.5], [0.9]))


def _gated(utility, privacy, problems):
    return RewardBreakdown(np.array(utility, float), np.array(privacy, float), problems)


def test_a_refused_rewrite_is_never_chosen_and_pairs_as_the_rejected_side_of_a_valid_one():
    prompts = ["p0", "p1", "p2", "p3"]
    left, right = ["l0", "l1", "l2", "l3"], ["r0", "r1", "r2", "r3"]
    # p0: both valid, Algorithm 1 keeps it; p1: the right rewrite is a comment (gated: minimum reward);
    # p2: the left one is a loop; p3: both refused
    left_reward = _gated([0.8, 0.8, -1.0, -1.0], [0.2, 0.3, 0.0, 0.0], [None, None, "loop", "copy"])
    right_reward = _gated([0.81, -1.0, 0.7, -1.0], [0.5, 0.0, 0.3, 0.0], [None, "meta", None, "empty"])
    pairs = preference_pairs(prompts, left, right, left_reward, right_reward)
    assert pairs.chosen == ["r0", "l1", "r2"] and pairs.rejected == ["l0", "r1", "l2"]
    assert pairs.stats() == {
        "candidates": 4,
        "kept": 3,
        "privacy_too_close": 0,
        "utility_too_far": 0,
        "validity_pairs": 2,
        "both_invalid": 1,
    }
    algorithm_only = preference_pairs(prompts, left, right, left_reward, right_reward, validity_pairs=False)
    assert algorithm_only.chosen == ["r0"]
