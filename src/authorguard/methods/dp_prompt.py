"""DP-Prompt (Utpala, Hooker and Chen, Findings of EMNLP 2023) as a text method: a language model paraphrases each
document, every token sampled from softmax(clip(logits, clip_low, clip_high) / temperature), so that releasing one
document costs at most ε = max_tokens · 2 (clip_high − clip_low) / temperature (pure ε-DP between any two
documents; derivation in :mod:`authorguard.privacy.clipped_sampling`). By default the clip applies to the logits
less the step's largest (``relative``; same ε, see there). The model is TAROT's SFT rewriting policy
(the untuned 135M instruct model comments instead of rewriting) or, with ``policy="dpo"``, the TAROT-DPO policy;
``model`` None uses the packaged adapters.
"""

from __future__ import annotations

import functools

from authorguard.base import TextObfuscator
from authorguard.exceptions import InputError
from authorguard.privacy.clipped_sampling import DPPromptPrivacyReport, temperature_for
from authorguard.utils.random import int_seed
from authorguard.utils.validation import check_number, check_texts


@functools.lru_cache(maxsize=2)
def _load(model: str | None, policy: str, engine: str):
    from authorguard.neural.dp_prompt import DPPromptRewriter

    return DPPromptRewriter(model, policy, engine=engine)


#: the document-level ε used when neither ``epsilon`` nor ``temperature`` is given (see :class:`DPPrompt`)
DEFAULT_EPSILON = 10_000.0


class DPPrompt(TextObfuscator):
    """Parameters
    ----------
    clip_low, clip_high : float, default=-8.0, 0.0
        The clip range [b_lo, b_hi]: of the logits less the step's largest (``relative``, default), or of the raw
        logits (the paper's rule; SmolLM2's largest logit ranges over ~10 … 35 between steps, so a fixed raw range
        ties the top tokens on some steps and floors them all on others: docs/results/dp-rewriting.md).
    relative : bool, default=True
        Clip log-odds against the step's top token instead of raw logits; the same ε per token (the bound
        needs only a fixed range width; :mod:`authorguard.privacy.clipped_sampling`).
    temperature : float or None, default=None
        Sampling temperature T; None derives it from ``epsilon``.
    epsilon : float or None, default=None
        Document-level ε to spend (sets T = 2 (b_hi − b_lo) · max_tokens / ε); give this or ``temperature``.
        With neither, ε = :data:`DEFAULT_EPSILON` (10,000): the smallest measured ε whose paraphrases stay
        readable (below ~2 m ln V ≈ 2,770 the clipped floor of 49,152 tokens outweighs the top token and the output
        is random tokens; docs/results/dp-rewriting.md). A formally weak guarantee, reported as what it is.
    max_tokens : int, default=128
        Tokens generated per document at most (m); the guarantee is m · ε_token whatever the realised length.
    segments : int, default=1
        Parts each document is cut into (whole sentences, near-equal lengths), each paraphrased with
        ``max_tokens // segments`` tokens; a fixed number, so the output's shape says nothing of the input's length.
    model : str or None
        A TAROT model folder; None = the packaged policy.
    policy : {"sft", "dpo"}, default="sft"
    batch_size : int, default=64
    max_input_tokens : int, default=512
        Each segment's prompt text is cut to this many tokens.
    engine : {"batched", "torch"}, default="batched"
        The generation engine; both sample every token from exactly the clipped, tempered distribution (the
        model's precision changes the logits, which the bound does not depend on).
    random_state : int, numpy Generator or None
        None draws every token from the OS CSPRNG on the batched engine (the torch engine seeds its generator from
        it): ``secure_random`` in the privacy report.
    """

    deterministic = False

    def __init__(
        self,
        clip_low: float = -8.0,
        clip_high: float = 0.0,
        relative: bool = True,
        temperature: float | None = None,
        epsilon: float | None = None,
        max_tokens: int = 128,
        segments: int = 1,
        model: str | None = None,
        policy: str = "sft",
        batch_size: int = 64,
        max_input_tokens: int = 512,
        engine: str = "batched",
        random_state=None,
    ) -> None:
        self.clip_low = clip_low
        self.clip_high = clip_high
        self.relative = relative
        self.temperature = temperature
        self.epsilon = epsilon
        self.max_tokens = max_tokens
        self.segments = segments
        self.model = model
        self.policy = policy
        self.batch_size = batch_size
        self.max_input_tokens = max_input_tokens
        self.engine = engine
        self.random_state = random_state

    def _sampling_temperature(self) -> float:
        if self.temperature is not None and self.epsilon is not None:
            raise InputError("DPPrompt: give temperature or epsilon, not both")
        if self.temperature is not None:
            return check_number(self.temperature, "temperature", "DPPrompt", low=0, closed="neither")
        epsilon = DEFAULT_EPSILON if self.epsilon is None else self.epsilon
        return temperature_for(epsilon, self.clip_low, self.clip_high, self.max_tokens)

    def privacy_report(self) -> DPPromptPrivacyReport:
        """What releasing one document costs (fixed before any document is seen)."""
        return DPPromptPrivacyReport.compute(
            self.clip_low,
            self.clip_high,
            self._sampling_temperature(),
            self.max_tokens,
            secure_random=self.random_state is None,
            relative=bool(self.relative),
        )

    def fit(self, raw_documents=None, y=None):
        name = type(self).__name__
        for key in ("max_tokens", "segments", "batch_size", "max_input_tokens"):
            check_number(getattr(self, key), key, name, kind=int, low=1, closed="left")
        if self.max_tokens % self.segments:
            raise InputError(f"DPPrompt: max_tokens {self.max_tokens} is not a multiple of segments {self.segments}")
        self.privacy_report()  # checks the clip range and temperature / epsilon
        from authorguard.generation.base import engine_names
        from authorguard.utils.validation import check_option

        check_option(self.engine, "engine", name, engine_names())
        self.rewriter_ = _load(None if self.model is None else str(self.model), self.policy, self.engine)
        return self

    def reseed(self, random_state) -> DPPrompt:
        self.random_state = random_state
        return self

    def obfuscate(self, raw_documents) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        return self.rewriter_.rewrite(
            texts,
            clip_low=self.clip_low,
            clip_high=self.clip_high,
            temperature=self._sampling_temperature(),
            max_tokens=self.max_tokens,
            relative=bool(self.relative),
            segments=self.segments,
            seed=None if self.random_state is None else int_seed(self.random_state),
            batch_size=self.batch_size,
            max_input_tokens=self.max_input_tokens,
        )

    def release_report(self) -> dict:
        """The privacy report and the last call's counts (documents, segments, tokens, tokens/s) with the validity
        gate's verdicts on the paraphrased segments (``validity``) and the records with a refused segment
        (``flagged_records``; counted, never acted on: see :class:`~authorguard.neural.dp_prompt.DPPromptRewriter`)."""
        stats = dict(getattr(self, "rewriter_", None) and self.rewriter_.stats or {})
        return {**self.privacy_report().to_dict(), **stats}
