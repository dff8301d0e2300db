"""DP-Prompt's sampler for ``transformers`` generation: logits clipped to [b_lo, b_hi] and divided by T, applied
last, with every other logits change turned off (the privacy argument: :mod:`authorguard.privacy.clipped_sampling`).
"""

from __future__ import annotations

from authorguard.neural.resources import require_torch
from authorguard.privacy.clipped_sampling import token_epsilon


def clipped_logits_processor(clip_low: float, clip_high: float, temperature: float):
    """A ``transformers.LogitsProcessor``: scores (B, V) -> clip(scores, low, high) / T (float32)."""
    require_torch()
    from transformers import LogitsProcessor

    token_epsilon(clip_low, clip_high, temperature)  # validates the settings

    class ClippedLogits(LogitsProcessor):
        def __call__(self, input_ids, scores):
            return scores.float().clamp(min=clip_low, max=clip_high) / temperature

    return ClippedLogits()


def private_generation_options(clip_low: float, clip_high: float, temperature: float, max_new_tokens: int) -> dict:
    """Keyword arguments for ``model.generate``: plain sampling from the clipped, tempered logits, at most
    ``max_new_tokens`` tokens. The generation config's own temperature, top-k, top-p, typical-p, min-p,
    repetition and length penalties are neutralised (each would change the distribution after the clip or
    truncate it, which the bound does not cover); the temperature lives in the processor."""
    from transformers import LogitsProcessorList

    return {"do_sample": True, "temperature": 1.0, "top_k": 0, "top_p": 1.0, "typical_p": 1.0, "min_p": None,
            "repetition_penalty": 1.0, "no_repeat_ngram_size": 0, "min_new_tokens": 0, "num_beams": 1,
            "max_new_tokens": int(max_new_tokens),
            "logits_processor": LogitsProcessorList([clipped_logits_processor(clip_low, clip_high, temperature)])}
