"""DP-Prompt's sampler inside ``generate``: the scores it samples from are exactly clip(logits)/T."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_clipping_and_temperature_reach_the_sampler_and_nothing_else_does():
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

    from authorguard.generation.samplers import private_generation_options

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=13,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
        initializer_range=1.0,
        eos_token_id=12,
        pad_token_id=0,
    )
    model = LlamaForCausalLM(config).eval()
    # a generation config that would truncate and reshape the distribution if it were left on
    model.generation_config = GenerationConfig(
        do_sample=True, top_k=3, top_p=0.5, temperature=0.3, repetition_penalty=2.0
    )
    prompt = torch.tensor([[3, 1, 4, 1, 5]])
    options = private_generation_options(-1.5, 1.0, 2.0, max_new_tokens=6)
    torch.manual_seed(1)
    out = model.generate(
        prompt, attention_mask=torch.ones_like(prompt), return_dict_in_generate=True, output_scores=True, **options
    )
    steps = out.sequences.shape[1] - prompt.shape[1]
    assert 1 <= steps <= 6
    for t in range(steps):
        with torch.no_grad():
            raw = model(out.sequences[:, : prompt.shape[1] + t]).logits[:, -1]
        expected = raw.clamp(-1.5, 1.0) / 2.0
        torch.testing.assert_close(out.scores[t], expected, atol=1e-5, rtol=1e-5)
    # all tokens keep probability > 0 (no top-k / top-p truncation)
    assert bool(torch.isfinite(out.scores[0]).all())
    # relative clipping: the logits less the step's largest reach the sampler
    options = private_generation_options(-2.5, 0.0, 2.0, max_new_tokens=3, relative=True)
    out = model.generate(
        prompt, attention_mask=torch.ones_like(prompt), return_dict_in_generate=True, output_scores=True, **options
    )
    for t in range(out.sequences.shape[1] - prompt.shape[1]):
        with torch.no_grad():
            raw = model(out.sequences[:, : prompt.shape[1] + t]).logits[:, -1]
        expected = (raw - raw.max(dim=-1, keepdim=True).values).clamp(-2.5, 0.0) / 2.0
        torch.testing.assert_close(out.scores[t], expected, atol=1e-5, rtol=1e-5)
