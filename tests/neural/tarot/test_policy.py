"""Seeded batched generation and sequence log-probabilities on a tiny Llama with SmolLM2's tokenizer."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.neural.tarot.dpo import sequence_log_probs
from authorguard.neural.tarot.policy import PolicyLoader, generate, load_policy
from authorguard.neural.tarot.prompts import render_prompt

TEXTS = ["The cat sat on the mat.", "We drove to the coast and it rained all weekend, which nobody minded.", "Hello."]


@pytest.fixture(scope="module")
def policy(tiny_factory):
    return load_policy((), tiny_factory())


def test_generation_is_seeded_bounded_and_leaves_the_global_stream_alone(policy):
    import torch

    model, tokenizer = policy
    prompts = [render_prompt(tokenizer, "Rewrite.", t) for t in TEXTS]
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    first = generate(model, tokenizer, prompts, max_new_tokens=12, seed=5, batch_size=2)
    after = torch.rand(1)
    assert torch.equal(before, after)  # the global torch stream did not move
    again = generate(model, tokenizer, prompts, max_new_tokens=12, seed=5, batch_size=2)
    other = generate(model, tokenizer, prompts, max_new_tokens=12, seed=6, batch_size=2)
    assert first.texts == again.texts and first.texts != other.texts
    assert len(first.texts) == 3 and all(1 <= n <= 12 for n in first.new_tokens)
    assert first.tokens_per_second > 0


def test_sequence_log_probs_do_not_depend_on_batching(policy):
    model, tokenizer = policy
    prompts = [render_prompt(tokenizer, "Rewrite.", t) for t in TEXTS]
    completions = ["A cat on a mat.", "Rain on the coast all weekend; fine by us.", "Hi there, friend."]
    together = sequence_log_probs(model, tokenizer, prompts, completions, batch_size=3)
    alone = np.array([sequence_log_probs(model, tokenizer, [p], [c])[0] for p, c in zip(prompts, completions)])
    np.testing.assert_allclose(together, alone, rtol=1e-4)
    assert np.all(together < 0)


def test_an_adapter_folder_that_is_not_one_is_a_one_line_error(tmp_path, tiny_factory):
    with pytest.raises(InputError, match="adapter_config.json"):
        load_policy([tmp_path], tiny_factory())
    (tmp_path / "adapter_config.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(InputError, match="does not fit"):
        load_policy([tmp_path], tiny_factory())


def test_the_loader_renders_prompts_before_loading_the_model(tokenizer):
    loader = PolicyLoader()
    assert loader.tokenizer.padding_side == "left"
    assert loader._policy is None
