"""Privacy of text sampled token by token from clipped, tempered logits (DP-Prompt: Utpala, Hooker and Chen,
"Locally Differentially Private Document Generation Using Zero Shot Prompting", Findings of EMNLP 2023).

**One token.** Let u_x(v) be the language model's logit for token v after a prompt built from the private
document x (and the tokens generated so far), clipped to [b_lo, b_hi]; the token is drawn from
p_x(v) = exp(u_x(v)/T) / Z_x, Z_x = Σ_w exp(u_x(w)/T). For any two documents x, x′ and any token v:

    p_x(v) / p_x′(v) = exp((u_x(v) − u_x′(v))/T) · Z_x′ / Z_x.

The first factor is at most exp((b_hi − b_lo)/T) because both logits lie in [b_lo, b_hi]; so is the second,
since Z_x′ = Σ_w exp(u_x(w)/T) · exp((u_x′(w) − u_x(w))/T) ≤ Z_x · exp((b_hi − b_lo)/T). Hence every probability
ratio is at most e^{ε_token} with

    ε_token = 2 (b_hi − b_lo) / T,

whatever the model does with x: the step is the exponential mechanism with a utility of range b_hi − b_lo. The
bound is reached in the limit of a large vocabulary (v at b_hi under x and b_lo under x′, every other token the
other way round), so it is not loose by more than the vocabulary's finiteness.

**A document.** Generation stops after at most m tokens. The probability of an output y = (y_1 .. y_k), k ≤ m,
is the product of k step probabilities, each step's prompt depending on x and on y_<t only (adaptive sequential
composition), so P(y | x) / P(y | x′) ≤ e^{k ε_token} ≤ e^{m ε_token}. The guarantee is **ε = m · ε_token for
the whole document** (replace-one-document, local DP: each document is protected on its own, without trusting
a curator), fixed before anything is generated; the realised length k is itself an output that depends on x,
so the report never uses it.

**Relative clipping** (``relative=True``, ours, not in the paper). Raw logits carry an arbitrary offset per step
(SmolLM2's largest logit ranges from ~10 to ~35 over the steps of one paraphrase;
``scripts/dp_prompt/dp_prompt_logits.py``),
so one fixed [b_lo, b_hi] either ties the top tokens at b_hi or sinks every token to b_lo on some steps. Clipping
u_x(v) = logit_x(v) − max_w logit_x(w), the log-odds against the step's top token, to [b_lo, b_hi] with b_hi ≤ 0
keeps every utility in a range of width b_hi − b_lo for every input, which is all the argument above uses: the
same ε_token holds, and the top token always sits at b_hi.

What voids the argument: top-k or top-p truncation (the kept set depends on x and a token outside it has
probability 0 under x but not under x′: an unbounded ratio), repetition penalties or any other logits change
after the clip, and stopping rules that read x (e.g. "stop when the input's chunks run out"). The sampler in
:mod:`authorguard.neural.dp_prompt` applies the clip last and turns the others off.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number


def check_sampler(
    clip_low: float, clip_high: float, temperature: float, relative: bool = False
) -> tuple[float, float, float]:
    """The sampler's settings as floats, or a one-line InputError (range order; high <= 0 when ``relative``)."""
    clip_low = check_number(clip_low, "clip_low", "DP-Prompt")  # finite reals
    clip_high = check_number(clip_high, "clip_high", "DP-Prompt")
    temperature = check_number(temperature, "temperature", "DP-Prompt", low=0, closed="neither")
    if clip_high <= clip_low:
        raise InputError(f"DP-Prompt: the clip range [{clip_low}, {clip_high}] needs low < high")
    if relative and clip_high > 0:  # relative logits never exceed 0: the part above would be paid for, never used
        raise InputError(f"DP-Prompt: with relative clipping the clip range [{clip_low}, {clip_high}] needs high <= 0")
    return float(clip_low), float(clip_high), float(temperature)


def relative_logits(logits: np.ndarray) -> np.ndarray:
    """logits − their maximum over the last axis (log-odds against the top token; the softmax is unchanged)."""
    logits = np.asarray(logits, dtype=np.float64)
    return logits - logits.max(axis=-1, keepdims=True)


def token_epsilon(clip_low: float, clip_high: float, temperature: float) -> float:
    """ε of one sampled token: 2 (clip_high − clip_low) / temperature."""
    clip_low, clip_high, temperature = check_sampler(clip_low, clip_high, temperature)
    return 2.0 * (clip_high - clip_low) / temperature


def document_epsilon(clip_low: float, clip_high: float, temperature: float, max_tokens: int) -> float:
    """ε of one released document of at most ``max_tokens`` sampled tokens: max_tokens · ε_token."""
    max_tokens = check_number(max_tokens, "max_tokens", "DP-Prompt", kind=int, low=1, closed="left")
    return max_tokens * token_epsilon(clip_low, clip_high, temperature)


def temperature_for(epsilon: float, clip_low: float, clip_high: float, max_tokens: int) -> float:
    """The temperature that makes a document of ``max_tokens`` tokens cost ``epsilon``:
    T = 2 (clip_high − clip_low) · max_tokens / ε (to compare methods at equal document-level ε)."""
    epsilon = check_number(epsilon, "epsilon", "DP-Prompt", low=0, closed="neither")
    max_tokens = check_number(max_tokens, "max_tokens", "DP-Prompt", kind=int, low=1, closed="left")
    clip_low, clip_high, _ = check_sampler(clip_low, clip_high, 1.0)
    return 2.0 * (clip_high - clip_low) * max_tokens / epsilon


def clipped_distribution(
    logits: np.ndarray, clip_low: float, clip_high: float, temperature: float, relative: bool = False
) -> np.ndarray:
    """softmax(clip(logits, low, high) / T) over the last axis (the sampler's distribution, in numpy); with
    ``relative``, the logits less their maximum are clipped."""
    clip_low, clip_high, temperature = check_sampler(clip_low, clip_high, temperature, relative)
    logits = relative_logits(logits) if relative else np.asarray(logits, dtype=np.float64)
    scaled = np.clip(logits, clip_low, clip_high) / temperature
    scaled -= scaled.max(axis=-1, keepdims=True)
    weights = np.exp(scaled)
    return weights / weights.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class DPPromptPrivacyReport:
    """What one DP-Prompt release costs per document: ``document_epsilon`` = ``max_tokens`` · ``token_epsilon``
    (pure ε-DP between any two documents), with the settings that fix it. ``secure_random``: whether the tokens
    were drawn from the operating system's CSPRNG rather than torch's seeded generator."""

    document_epsilon: float
    token_epsilon: float
    max_tokens: int
    clip_low: float
    clip_high: float
    temperature: float
    secure_random: bool = False
    relative: bool = False
    mechanism: str = "dp-prompt (clipped-logit exponential mechanism per token, sequential composition)"

    @classmethod
    def compute(
        cls,
        clip_low: float,
        clip_high: float,
        temperature: float,
        max_tokens: int,
        secure_random: bool = False,
        relative: bool = False,
    ) -> DPPromptPrivacyReport:
        check_sampler(clip_low, clip_high, temperature, relative)
        return cls(
            document_epsilon(clip_low, clip_high, temperature, max_tokens),
            token_epsilon(clip_low, clip_high, temperature),
            int(max_tokens),
            float(clip_low),
            float(clip_high),
            float(temperature),
            bool(secure_random),
            bool(relative),
        )

    def to_dict(self) -> dict:
        return asdict(self)
