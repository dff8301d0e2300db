"""The reward with the real encoders (MiniLM, the packaged author encoder): signs, ranges, ablation switches."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.neural.tarot.config import RewardConfig
from authorguard.neural.tarot.reward import ObfuscationReward

pytest.importorskip("sentence_transformers")

TEXT = (
    "omg i totally cant believe it!!! went to the mall w/ jess and we saw him there lol. "
    "sooo embarrassing, i just wanted to hide behind the pretzel stand"
)
PARAPHRASE = (
    "I could hardly believe it. Jess and I went to the shopping centre and saw him there; it was so "
    "embarrassing that I wanted to hide behind the pretzel stand."
)
UNRELATED = "The quarterly report shows a modest increase in operating margins across all regions."


@pytest.fixture(scope="module")
def reward():
    """The paper's reward, without the validity gate (tested below)."""
    return ObfuscationReward(RewardConfig(gate=False))


def test_a_copy_keeps_all_utility_and_earns_no_privacy(reward):
    scores = reward([TEXT], [TEXT])
    assert scores.utility[0] == pytest.approx(1.0, abs=1e-5)
    assert scores.privacy[0] == pytest.approx(0.0, abs=1e-5)
    assert scores.total[0] == pytest.approx(1.0, abs=1e-5)


def test_a_paraphrase_keeps_more_meaning_than_an_unrelated_text_and_both_hide_the_author_more_than_a_copy(reward):
    scores = reward([TEXT, TEXT, TEXT], [TEXT, PARAPHRASE, UNRELATED])
    assert scores.utility[1] > scores.utility[2] + 0.2
    assert scores.privacy[1] > scores.privacy[0] and scores.privacy[2] > scores.privacy[0]
    assert np.all((scores.utility >= -1) & (scores.utility <= 1 + 1e-6))
    assert np.all((scores.privacy >= -1e-6) & (scores.privacy <= 2))


def test_an_empty_rewrite_scores_zero_on_both_terms(reward):
    scores = reward([TEXT], ["  "])
    assert scores.utility[0] == 0 and scores.privacy[0] == 0


def test_switched_off_terms_are_nan_and_add_nothing(reward):
    no_privacy = ObfuscationReward(RewardConfig(privacy=False), reward.sentence_encoder, reward.author_encoder)
    scores = no_privacy([TEXT], [PARAPHRASE])
    assert np.isnan(scores.privacy[0]) and scores.total[0] == pytest.approx(scores.utility[0])
    assert np.isnan(scores.summary()["privacy"])
    no_utility = ObfuscationReward(RewardConfig(utility=False), reward.sentence_encoder, reward.author_encoder)
    assert np.isnan(no_utility([TEXT], [PARAPHRASE]).utility[0])
    with pytest.raises(InputError, match="both off"):
        RewardConfig(utility=False, privacy=False)
    with pytest.raises(InputError, match="rewrites"):
        reward([TEXT], [])


def test_the_gate_gives_refused_rewrites_the_minimum_reward_and_says_why(reward):
    gated = ObfuscationReward(RewardConfig(), reward.sentence_encoder, reward.author_encoder)
    comment = "The author's style is casual and embarrassed, with many abbreviations."
    scores = gated([TEXT, TEXT, TEXT], [PARAPHRASE, TEXT, comment])
    plain = reward([TEXT, TEXT, TEXT], [PARAPHRASE, TEXT, comment])
    assert scores.problems == [None, "copy", "meta"]
    assert scores.utility[0] == plain.utility[0] and scores.privacy[0] == plain.privacy[0]
    assert list(scores.utility[1:]) == [-1.0, -1.0] and list(scores.privacy[1:]) == [0.0, 0.0]
    assert plain.privacy[2] > plain.privacy[0]  # why: ungated, the comment earns more privacy than the rewrite
    assert scores.summary()["invalid"] == pytest.approx(2 / 3)
    assert plain.problems is None and "invalid" not in plain.summary()


def test_each_distinct_text_is_embedded_once_and_rows_keep_their_order(reward):
    from authorguard.neural.tarot import reward as module

    calls = []

    def embed(texts):
        calls.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts])

    originals = [TEXT, TEXT, TEXT, UNRELATED]  # k candidates of one chunk share their original
    rewrites = [PARAPHRASE, UNRELATED, PARAPHRASE, TEXT]
    cosines = module.ObfuscationReward._cosines(embed, originals, rewrites)
    assert calls == [[TEXT, UNRELATED], [PARAPHRASE, UNRELATED, TEXT]]
    expected = [
        np.dot([len(a), 1], [len(b), 1]) / np.hypot(len(a), 1) / np.hypot(len(b), 1)
        for a, b in zip(originals, rewrites)
    ]
    assert cosines == pytest.approx(expected)
    scores = reward(originals, rewrites)  # the real encoders: a repeated pair scores as it does alone
    alone = reward([TEXT], [PARAPHRASE])
    assert scores.utility[[0, 2]] == pytest.approx([alone.utility[0]] * 2, abs=1e-5)
    assert scores.privacy[[0, 2]] == pytest.approx([alone.privacy[0]] * 2, abs=1e-5)
