"""Which sampled rewrites become SFT targets."""

from __future__ import annotations

import numpy as np

from authorguard.neural.tarot.config import SFTConfig
from authorguard.neural.tarot.sft import rewrite_problem, select_targets
from authorguard.text.validity import REASONS, copy_share

ORIGINAL = "We went to the lake on Sunday and the water was far too cold to swim in."


def test_copy_share_counts_kept_word_pairs():
    assert copy_share(ORIGINAL, ORIGINAL) == 1.0
    assert copy_share(ORIGINAL, "Sunday trip: lake freezing, no swimming possible.") == 0.0
    assert 0 < copy_share(ORIGINAL, "On Sunday we went to a lake, but it was icy.") < 1


def test_rewrite_problems():
    config = SFTConfig()
    assert rewrite_problem(ORIGINAL, "", config) == "empty"
    assert rewrite_problem(ORIGINAL, "The author describes a cold lake in a casual tone.", config) == "meta"
    assert rewrite_problem(ORIGINAL, ORIGINAL, config) == "copy"
    assert rewrite_problem(ORIGINAL, "Cold lake.", config) == "length"
    assert (
        rewrite_problem(
            ORIGINAL,
            "On Sunday we went to the mall and bought new shoes, then ate pizza with friends downtown.",
            config,
        )
        == "invented"
    )
    assert (
        rewrite_problem(
            ORIGINAL, "On Sunday our trip to the lake was spoiled: the water was cold, nobody could swim.", config
        )
        is None
    )


def test_select_targets_takes_the_best_usable_candidate_per_prompt():
    config = SFTConfig(min_utility=0.5)
    good = "On Sunday our trip to the lake was spoiled: the water was cold, nobody could swim."
    better = "Sunday at the lake was a letdown, since the cold water meant we could not swim."
    candidates = [[good, better, ORIGINAL], ["", "The author is sad."]]
    utility = np.array([0.8, 0.7, 1.0, 0.0, 0.9])
    total = np.array([1.0, 1.2, 1.0, 0.0, 2.0])
    targets, reasons = select_targets([ORIGINAL, ORIGINAL], candidates, utility, total, config)
    assert targets == [better, None]
    assert reasons == {**dict.fromkeys(REASONS + ("utility",), 0), "empty": 1, "meta": 1, "copy": 1, "kept": 2}
    low = select_targets([ORIGINAL], [[good]], np.array([0.3]), np.array([3.0]), config)
    assert low == ([None], {**dict.fromkeys(REASONS + ("kept",), 0), "utility": 1})
