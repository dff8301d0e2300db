"""Fixtures of the TAROT tests: SmolLM2's real tokenizer on a tiny randomly initialised Llama, and a stub reward."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")


@pytest.fixture(scope="session")
def tokenizer():
    from authorguard.neural.tarot.policy import PolicyLoader

    return PolicyLoader().tokenizer


@pytest.fixture(scope="session")
def tiny_factory(tokenizer):
    """() -> (a fresh tiny Llama with SmolLM2's vocabulary, the tokenizer); the same weights every call."""
    import copy

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, tie_word_embeddings=True)
    weights = LlamaForCausalLM(config).state_dict()

    def factory():
        model = LlamaForCausalLM(config)
        model.load_state_dict(copy.deepcopy(weights))
        model.eval()
        return model, copy.deepcopy(tokenizer)

    return factory


class LengthReward:
    """A stub reward with the real module's interface and known preferences: privacy = the rewrite's length in
    characters / 200 (capped at 1), utility = the share of the original's words the rewrite keeps."""

    def __init__(self, config=None) -> None:
        from authorguard.neural.tarot.config import RewardConfig

        self.config = config or RewardConfig()

    def __call__(self, originals, rewrites):
        from authorguard.neural.tarot.reward import RewardBreakdown

        kept = np.array([len(set(o.lower().split()) & set(r.lower().split())) / max(len(set(o.lower().split())), 1)
                         for o, r in zip(originals, rewrites)])
        return RewardBreakdown(kept, np.minimum(np.array([len(r) for r in rewrites]) / 200.0, 1.0))


@pytest.fixture
def stub_reward():
    return LengthReward()
