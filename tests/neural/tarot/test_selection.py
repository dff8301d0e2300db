"""Best-of-k at inference: the gate, the reward ranking, the utility floor, retries and the counted fallback."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.generation.base import Generations
from authorguard.neural.tarot.reward import RewardBreakdown
from authorguard.neural.tarot.selection import SelectionConfig, select_rewrites
from authorguard.text.validity import RewriteGate

CHUNKS = [
    "We went to the lake on Sunday and the water was far too cold to swim in.",
    "My brother borrowed my bike again and brought it back with a flat tyre.",
]


class Scripted:
    """A sampler that answers round r with ``rounds[r]``: one list of k texts per pending chunk (in order), and
    records the chunks and seeds it was asked for."""

    limit = 128

    def __init__(self, rounds):
        self.rounds, self.calls = rounds, []

    def __call__(self, indices, repeats, seed):
        self.calls.append((list(indices), repeats, seed))
        texts = [t for per_chunk in self.rounds[len(self.calls) - 1] for t in per_chunk]
        assert len(texts) == len(indices) * repeats
        return Generations(texts, [10] * len(texts), 0.5)


def score_by_length(originals, rewrites):
    """Utility 0.9 except for rewrites containing "drifting" (0.2); total grows with the rewrite's length."""
    utility = np.array([0.2 if "drifting" in r else 0.9 for r in rewrites])
    return RewardBreakdown(utility, np.array([len(r) / 100 for r in rewrites]))


LAKE_SHORT = "Sunday at the lake: far too cold to swim."
LAKE_LONG = "Sunday's outing to the lake was a letdown, since the water proved far too cold for a swim."
BIKE = "The bike my brother borrowed came back to me, once again, with a flat tyre."


def test_the_valid_candidate_with_the_highest_reward_above_the_floor_is_kept():
    sample = Scripted([[[LAKE_SHORT, "The author's tone is calm.", LAKE_LONG + " drifting"], [BIKE, CHUNKS[1], ""]]])
    out = select_rewrites(CHUNKS, sample, RewriteGate(), score_by_length, SelectionConfig(candidates=3), seed=5)
    assert out.texts == [LAKE_SHORT, BIKE]  # LAKE_LONG+drifting pays more but is under the utility floor
    assert out.fell_back == [False, False]
    assert out.counts == {
        "candidates_sampled": 6,
        "rounds": 1,
        "refused": {"empty": 1, "meta": 1, "copy": 1, "utility": 1},
        "chunks_fallback": 0,
    }
    assert sample.calls == [([0, 1], 3, 5)]


def test_chunks_without_a_valid_rewrite_are_retried_with_another_seed_then_fall_back_counted():
    rounds = [
        [["The author's tone is calm."], [CHUNKS[1]]],  # round 1: both refused
        [[LAKE_LONG], ["I'm sorry, I can't help with that."]],
    ]  # round 2: only the lake gets one
    sample = Scripted(rounds)
    kept = select_rewrites(CHUNKS, sample, RewriteGate(), score_by_length, SelectionConfig(retries=1), seed=5)
    assert kept.texts == [LAKE_LONG, CHUNKS[1]] and kept.fell_back == [False, True]
    assert kept.counts["chunks_fallback"] == 1 and kept.counts["rounds"] == 2
    assert sample.calls[0][2] != sample.calls[1][2] and sample.calls[1][0] == [0, 1]
    withheld = select_rewrites(
        CHUNKS,
        Scripted(rounds),
        RewriteGate(),
        score_by_length,
        SelectionConfig(retries=1, fallback="withhold"),
        seed=5,
    )
    assert withheld.texts == [LAKE_LONG, ""] and withheld.fell_back == [False, True]
    no_retry = select_rewrites(
        CHUNKS, Scripted(rounds), RewriteGate(), score_by_length, SelectionConfig(retries=0), seed=5
    )
    assert no_retry.texts == CHUNKS and no_retry.counts["rounds"] == 1


def test_without_a_score_the_first_valid_candidate_is_kept_and_nothing_means_no_sampling():
    sample = Scripted([[["", LAKE_LONG, LAKE_SHORT]]])
    out = select_rewrites(CHUNKS[:1], sample, RewriteGate(), None, SelectionConfig(candidates=3), seed=0)
    assert out.texts == [LAKE_LONG]
    empty = Scripted([])
    assert select_rewrites([], empty, RewriteGate(), None, SelectionConfig(), seed=0).texts == [] and not empty.calls


def test_settings_are_checked():
    with pytest.raises(InputError, match="fallback"):
        SelectionConfig(fallback="copy")
    with pytest.raises(InputError, match="candidates"):
        SelectionConfig(candidates=0)
