"""Token samplers: what turns one decoding step's logits into the next token, shared by every engine.

A sampler receives the step's logits, shape (B, V) float32 (whatever precision the model ran in), on the engine's
device, and returns B token ids on that device. It is also the one place a method reaches per-step logits: DP-Prompt's
:class:`ClippedSampler` clips
them before anything else touches them. Each sampler states how the reference engine (transformers'
``generate``) expresses the same distribution, so both engines sample from one definition.

Draws are inverse-CDF: one uniform per row from a seeded ``torch.Generator``, or, when the generator is None,
from the operating system's CSPRNG (``secrets``), so that DP sampling can use a cryptographically secure source.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from authorguard.privacy.clipped_sampling import check_sampler
from authorguard.utils.validation import check_number
from authorguard.utils.weights import require_torch


def uniforms(n: int, generator):
    """n uniforms in [0, 1) (float64): from ``generator`` (on its device), or from the OS CSPRNG (53 random bits
    each, on the CPU) when None."""
    torch = require_torch()
    if generator is not None:
        return torch.rand(n, generator=generator, dtype=torch.float64, device=generator.device)
    return torch.tensor([secrets.randbits(53) / 2.0**53 for _ in range(n)], dtype=torch.float64)


def draw(probabilities, generator):
    """One index per row of ``probabilities`` (B, K) (rows need not sum to 1), by inverse CDF in float64, on the
    device ``probabilities`` are on (a seeded ``generator`` must be on that device too)."""
    torch = require_torch()
    cumulative = probabilities.double().cumsum(-1)
    targets = uniforms(len(cumulative), generator).to(cumulative.device) * cumulative[:, -1]
    index = torch.searchsorted(cumulative, targets[:, None], right=True).squeeze(1)
    return index.clamp(max=probabilities.shape[1] - 1)


@dataclass(frozen=True)
class GreedySampler:
    """The most likely token (ties: the lowest id)."""

    #: a constraint's mask (-inf logits) keeps this sampler's meaning: the most likely allowed token
    accepts_mask = True

    def __call__(self, logits, generator):
        return logits.argmax(-1)

    def transformers_options(self) -> dict:
        return {"do_sample": False}


@dataclass(frozen=True)
class NucleusSampler:
    """softmax(logits / temperature), truncated to the smallest set of most likely tokens whose mass reaches
    ``top_p`` (nucleus sampling; top_p = 1 keeps the whole vocabulary). The exact nucleus is found among the
    ``shortlist`` most likely tokens when their mass reaches ``top_p`` (almost always), else over the whole
    vocabulary: the same distribution as sorting every row, without sorting 49,152 logits per step."""

    temperature: float = 1.0
    top_p: float = 1.0
    shortlist: int = 256
    #: a constraint's mask (-inf logits) keeps this sampler's meaning: the nucleus of the allowed tokens
    accepts_mask = True

    def __post_init__(self) -> None:
        check_number(self.temperature, "temperature", "NucleusSampler", low=0, closed="neither")
        check_number(self.top_p, "top_p", "NucleusSampler", low=0, high=1, closed="right")

    def __call__(self, logits, generator):
        torch = require_torch()
        scaled = logits.float() / self.temperature
        if self.top_p >= 1.0:
            return draw(torch.softmax(scaled, -1), generator)
        log_total = torch.logsumexp(scaled, -1, keepdim=True)
        k = min(self.shortlist, scaled.shape[1])
        values, ids = scaled.topk(k, dim=-1)  # sorted, largest first
        probabilities = (values - log_total).exp()
        if bool((probabilities.sum(-1) < self.top_p).any()):  # a flat row: the nucleus is wider than the shortlist
            values, ids = scaled.sort(-1, descending=True)
            probabilities = (values - log_total).exp()
        before = probabilities.cumsum(-1) - probabilities  # mass of the tokens ranked above each one
        kept = probabilities * (before < self.top_p)
        return ids.gather(1, draw(kept, generator)[:, None]).squeeze(1)

    def transformers_options(self) -> dict:
        return {"do_sample": True, "temperature": self.temperature, "top_p": self.top_p, "top_k": 0}


@dataclass(frozen=True)
class ClippedSampler:
    """DP-Prompt's sampler: softmax(clip(logits, clip_low, clip_high) / temperature) over the whole vocabulary
    (with ``relative``, the logits less the row's maximum are clipped); nothing else changes the distribution.
    The bound it gives is derived in :mod:`authorguard.privacy.clipped_sampling`."""

    clip_low: float
    clip_high: float
    temperature: float
    relative: bool = False

    def __post_init__(self) -> None:
        check_sampler(self.clip_low, self.clip_high, self.temperature, self.relative)

    def scores(self, logits):
        """clip(logits) / T, shape (B, V) float32: what the softmax is taken of."""
        logits = logits.float()
        if self.relative:
            logits = logits - logits.max(dim=-1, keepdim=True).values
        return logits.clamp(min=self.clip_low, max=self.clip_high) / self.temperature

    def __call__(self, logits, generator):
        torch = require_torch()
        return draw(torch.softmax(self.scores(logits), -1), generator)

    def transformers_options(self) -> dict:
        options = private_generation_options(self.clip_low, self.clip_high, self.temperature, 1, self.relative)
        del options["max_new_tokens"]
        return options


def clipped_logits_processor(clip_low: float, clip_high: float, temperature: float, relative: bool = False):
    """A ``transformers.LogitsProcessor``: scores (B, V) -> clip(scores, low, high) / T (float32); with
    ``relative``, clip(scores − their row maximum, low, high) / T."""
    require_torch()
    from transformers import LogitsProcessor

    check_sampler(clip_low, clip_high, temperature, relative)

    class ClippedLogits(LogitsProcessor):
        def __call__(self, input_ids, scores):
            scores = scores.float()
            if relative:
                scores = scores - scores.max(dim=-1, keepdim=True).values
            return scores.clamp(min=clip_low, max=clip_high) / temperature

    return ClippedLogits()


def private_generation_options(
    clip_low: float, clip_high: float, temperature: float, max_new_tokens: int, relative: bool = False
) -> dict:
    """Keyword arguments for ``model.generate``: plain sampling from the clipped, tempered logits, at most
    ``max_new_tokens`` tokens. The generation config's own temperature, top-k, top-p, typical-p, min-p,
    repetition and length penalties are neutralised (each would change the distribution after the clip or
    truncate it, which the bound does not cover); the temperature lives in the processor."""
    from transformers import LogitsProcessorList

    return {
        "do_sample": True,
        "temperature": 1.0,
        "top_k": 0,
        "top_p": 1.0,
        "typical_p": 1.0,
        "min_p": None,
        "repetition_penalty": 1.0,
        "no_repeat_ngram_size": 0,
        "min_new_tokens": 0,
        "num_beams": 1,
        "max_new_tokens": int(max_new_tokens),
        "logits_processor": LogitsProcessorList([clipped_logits_processor(clip_low, clip_high, temperature, relative)]),
    }


def sampler_for(sample: bool, temperature: float = 1.0, top_p: float = 1.0):
    """The sampler of the common settings: greedy when ``sample`` is False, else nucleus sampling."""
    return NucleusSampler(temperature, top_p) if sample else GreedySampler()
