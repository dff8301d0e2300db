"""DP-Prompt's per-token bound, checked by brute force, and the document budget."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from authorguard.exceptions import InputError
from authorguard.privacy.clipped_sampling import (
    DPPromptPrivacyReport,
    clipped_distribution,
    document_epsilon,
    temperature_for,
    token_epsilon,
)


@pytest.mark.parametrize("relative", [False, True])
def test_every_probability_ratio_of_one_step_is_within_the_token_epsilon_on_random_logits(rng, relative):
    # two "documents" = two arbitrary logit vectors, far outside the clip range on purpose (and shifted apart:
    # relative clipping must not care where the logits sit)
    for clip_low, clip_high, temperature in [(-1.0, 0.0, 1.0), (-5.0, -0.5, 2.5), (-3.0, 0.0, 0.7)]:
        if not relative:
            clip_low, clip_high = clip_low + 1.0, clip_high + 1.0
        bound = token_epsilon(clip_low, clip_high, temperature)
        worst = 0.0
        for _ in range(200):
            first, second = rng.normal(0, 3, size=(2, 9)) + rng.normal(0, 10, size=(2, 1))
            ratio = np.log(clipped_distribution(first, clip_low, clip_high, temperature, relative)) - np.log(
                clipped_distribution(second, clip_low, clip_high, temperature, relative)
            )
            worst = max(worst, np.abs(ratio).max())
        assert worst <= bound + 1e-9
        assert worst > 0.5 * bound  # the bound is not vacuous: random logits come within a factor 2 of it


def test_the_bound_is_approached_by_the_worst_pair_on_a_large_vocabulary():
    clip_low, clip_high, temperature = -1.0, 1.0, 1.0
    vocabulary = 10_000
    first = np.full(vocabulary, clip_low)
    first[0] = clip_high
    second = -first  # token 0 at the bottom, all others at the top
    ratio = np.log(
        clipped_distribution(first, clip_low, clip_high, temperature)[0]
        / clipped_distribution(second, clip_low, clip_high, temperature)[0]
    )
    assert ratio <= token_epsilon(clip_low, clip_high, temperature)
    assert ratio > 0.99 * token_epsilon(clip_low, clip_high, temperature)
    # without the clip the same logits scaled up break any bound
    unclipped = np.log(
        clipped_distribution(first * 50, -1e9, 1e9, temperature)[0]
        / clipped_distribution(second * 50, -1e9, 1e9, temperature)[0]
    )
    assert unclipped > 10 * token_epsilon(clip_low, clip_high, temperature)


def test_relative_clipping_ignores_the_logits_offset_and_always_keeps_the_top_token_on_top():
    logits = np.array([30.0, 28.5, 25.0, 3.0, -4.0])
    shifted = clipped_distribution(logits - 20.0, -8.0, 0.0, 1.0, relative=True)
    assert np.allclose(clipped_distribution(logits, -8.0, 0.0, 1.0, relative=True), shifted)
    assert shifted.argmax() == 0 and shifted[3] == pytest.approx(shifted[4])  # both floored at -8 below the top
    # the paper's raw clip on the same step ties the three top tokens at b_hi = 25
    raw = clipped_distribution(logits, 10.0, 25.0, 1.0)
    assert raw[0] == pytest.approx(raw[1]) == pytest.approx(raw[2])
    with pytest.raises(InputError, match="needs high <= 0"):
        clipped_distribution(logits, -8.0, 1.0, 1.0, relative=True)


@pytest.mark.parametrize("relative", [False, True])
def test_one_step_of_a_tiny_language_model_on_two_documents_by_enumeration(relative):
    """A tiny random causal LM (vocabulary 11) after two different documents: every next-token probability ratio
    of the clipped sampler is within e^{ε_token}, and so is every two-token sequence's within e^{2 ε_token}."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers import LlamaConfig, LlamaForCausalLM

    from authorguard.generation.samplers import clipped_logits_processor

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=11,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
        initializer_range=1.0,
    )
    model = LlamaForCausalLM(config).eval()
    clip_low, clip_high, temperature = (-4.0, 0.0, 3.0) if relative else (-2.0, 2.0, 3.0)
    process = clipped_logits_processor(clip_low, clip_high, temperature, relative)
    documents = torch.tensor([[1, 4, 2, 7, 3], [9, 9, 0, 5, 6]])

    def log_probs(ids):
        with torch.no_grad():
            return torch.log_softmax(process(ids, model(ids).logits[:, -1]), dim=-1)

    raw = model(documents).logits[:, -1].detach()
    assert float(raw.max() - raw.min()) > clip_high - clip_low  # the clip binds on these logits
    one_step = log_probs(documents)
    assert float((one_step[0] - one_step[1]).abs().max()) <= token_epsilon(clip_low, clip_high, temperature) + 1e-5
    worst = 0.0
    for first, second in itertools.product(range(11), repeat=2):  # all 121 two-token outputs
        total = torch.zeros(2)
        ids = documents
        for token in (first, second):
            total += log_probs(ids)[:, token]
            ids = torch.cat([ids, torch.full((2, 1), token)], dim=1)
        worst = max(worst, float((total[0] - total[1]).abs()))
    assert worst <= document_epsilon(clip_low, clip_high, temperature, 2) + 1e-5


def test_the_document_budget_is_fixed_in_advance_and_checked():
    assert token_epsilon(-1, 2, 3.0) == pytest.approx(2.0)
    assert document_epsilon(-1, 2, 3.0, 50) == pytest.approx(100.0)
    assert document_epsilon(-1, 2, temperature_for(250.0, -1, 2, 50), 50) == pytest.approx(250.0)
    report = DPPromptPrivacyReport.compute(-1, 2, 3.0, 50)
    assert report.to_dict()["document_epsilon"] == pytest.approx(100.0) and report.max_tokens == 50
    with pytest.raises(InputError, match="low < high"):
        token_epsilon(1.0, 1.0, 1.0)
    with pytest.raises(InputError, match="temperature"):
        token_epsilon(0.0, 1.0, 0.0)
    with pytest.raises(InputError, match="max_tokens"):
        document_epsilon(0.0, 1.0, 1.0, 0)
