"""Fixtures of the TAROT tests: a stub reward (the tokenizer and the tiny Llama are in tests/neural/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


class LengthReward:
    """A stub reward with the real module's interface and known preferences: privacy = the rewrite's length in
    characters / 200 (capped at 1), utility = the share of the original's words the rewrite keeps."""

    def __init__(self, config=None) -> None:
        from authorguard.neural.tarot.config import RewardConfig

        self.config = config or RewardConfig()

    def __call__(self, originals, rewrites):
        from authorguard.neural.tarot.reward import RewardBreakdown

        kept = np.array(
            [
                len(set(o.lower().split()) & set(r.lower().split())) / max(len(set(o.lower().split())), 1)
                for o, r in zip(originals, rewrites)
            ]
        )
        return RewardBreakdown(kept, np.minimum(np.array([len(r) for r in rewrites]) / 200.0, 1.0))


@pytest.fixture
def stub_reward():
    return LengthReward()
