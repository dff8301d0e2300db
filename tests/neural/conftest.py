"""Fixtures shared by the neural tests: SmolLM2's real tokenizer and a tiny randomly initialised Llama over it."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tokenizer():
    pytest.importorskip("transformers")
    from authorguard.neural.tarot.policy import PolicyLoader

    return PolicyLoader().tokenizer


@pytest.fixture(scope="session")
def tiny_factory(tokenizer):
    """() -> (a fresh tiny Llama with SmolLM2's vocabulary, the tokenizer); the same weights every call."""
    import copy

    pytest.importorskip("transformers")

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
