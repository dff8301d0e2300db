"""TAROT (Loiseau et al.) as text methods: a small LM rewriter fine-tuned to hide authorship while keeping utility.

``tarot`` rewrites with the DPO policy, ``tarot-ppo`` with the PPO policy, ``tarot-sft`` with the SFT policy both
started from, ``zero-shot-rewrite``
with the untuned SmolLM2-135M-Instruct and the paper's prompt (its GPT-3.5 row). ``model`` is a folder trained
with ``authorguard tarot sft|prefs|dpo``; None uses the adapters shipped in the package. Documents are cut into
chunks of whole sentences (never truncated) and rewritten in batches; the output is deterministic given
``random_state``; a blank document stays "" (nothing is generated).

Every chunk's rewrite passes the validity gate (:mod:`authorguard.text.validity`: no comments about the text, no
echoed instruction, no loops, copies, truncations, ...): ``candidates`` rewrites are sampled per chunk and the
valid one with the highest TAROT reward above the MiniLM-cosine floor ``min_utility`` is kept; chunks without one
are sampled again (``retries``) and then get the ``fallback`` ("keep": the chunk stays as written; "withhold":
it is left out), which flags the record. After a call, :meth:`release_report` counts chunks, refusals by reason,
fallbacks and flagged records (their positions), and gives the generation speed.
"""

from __future__ import annotations

import functools

from authorguard.base import TextObfuscator
from authorguard.utils.random import int_seed
from authorguard.utils.validation import check_number, check_texts

#: rewrites sampled per chunk by default (docs/results/tarot.md#best-of-k)
CANDIDATES = 4


@functools.lru_cache(maxsize=3)
def _load(model: str | None, stage: str, engine: str):
    from authorguard.neural.tarot.model import TarotRewriter

    return TarotRewriter(model, stage, engine=engine)


class Tarot(TextObfuscator):
    """Parameters
    ----------
    model : str or None
        A TAROT model folder; None = the packaged policy.
    temperature : float, default=0.7
        Sampling temperature of the rewrites (top-p ``top_p``).
    top_p : float, default=0.95
    batch_size : int, default=64
        Chunks generated together (the batched engine gets faster with larger batches: docs/benchmarks.md).
    max_new_tokens : int or None
        Cap on the tokens written per chunk (None: the policy's ``max_new_tokens``, 128 by default).
    engine : {"batched", "torch"}, default="batched"
        The generation engine (:mod:`authorguard.generation`): our batched decoder (bfloat16 where native)
        or transformers' ``generate`` in float32 (the reference path).
    candidates : int, default=CANDIDATES
        Rewrites sampled per chunk and round (best of k by reward among the valid ones; docs/results/tarot.md
        measures k).
    min_utility : float, default=0.5
        MiniLM cosine a rewrite must keep to its chunk (-1: no floor).
    retries : int, default=1
        Further rounds (other seeds) for chunks without a valid rewrite.
    fallback : {"keep", "withhold"}, default="keep"
        What a chunk without a valid rewrite gets; either way its record is flagged in :meth:`release_report`.
    anchored : bool, default=False
        Write every chunk under an anchor constraint: the chunk's names, numbers and negations copied in order
        (:class:`~authorguard.generation.anchors.AnchorPlan`; docs/results/faithful.md measures it).
    random_state : int, numpy Generator or None
    """

    deterministic = False
    stage = "dpo"

    def __init__(
        self,
        model: str | None = None,
        temperature: float = 0.7,
        top_p: float = 0.95,
        batch_size: int = 64,
        max_new_tokens: int | None = None,
        engine: str = "batched",
        candidates: int = CANDIDATES,
        min_utility: float = 0.5,
        retries: int = 1,
        fallback: str = "keep",
        anchored: bool = False,
        random_state=None,
    ) -> None:
        self.model = model
        self.temperature = temperature
        self.top_p = top_p
        self.batch_size = batch_size
        self.max_new_tokens = max_new_tokens
        self.engine = engine
        self.candidates = candidates
        self.min_utility = min_utility
        self.retries = retries
        self.fallback = fallback
        self.anchored = anchored
        self.random_state = random_state

    def fit(self, raw_documents=None, y=None):
        name = type(self).__name__
        check_number(self.temperature, "temperature", name, low=0, closed="neither")
        if not isinstance(self.anchored, bool):
            from authorguard.exceptions import InputError

            raise InputError(f"{name}: anchored must be True or False, got {self.anchored!r}")
        check_number(self.top_p, "top_p", name, low=0, high=1, closed="right")
        check_number(self.batch_size, "batch_size", name, kind=int, low=1, closed="left")
        if self.max_new_tokens is not None:
            check_number(self.max_new_tokens, "max_new_tokens", name, kind=int, low=1, closed="left")
        from authorguard.generation.base import engine_names
        from authorguard.utils.validation import check_option

        check_option(self.engine, "engine", name, engine_names())
        from authorguard.neural.tarot.selection import SelectionConfig

        self.selection_ = SelectionConfig(self.candidates, self.retries, self.min_utility, self.fallback)
        self.rewriter_ = _load(None if self.model is None else str(self.model), self.stage, self.engine)
        return self

    def reseed(self, random_state) -> Tarot:
        self.random_state = random_state
        return self

    def obfuscate(self, raw_documents) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        return self.rewriter_.rewrite(
            texts,
            int_seed(self.random_state),
            temperature=self.temperature,
            top_p=self.top_p,
            batch_size=self.batch_size,
            max_new_tokens=self.max_new_tokens,
            selection=self.selection_,
            anchored=bool(self.anchored),
        )

    def release_report(self) -> dict:
        """The last call's counts: documents, chunks, candidates sampled and refused (by reason), chunks that got the
        fallback, records rewritten / flagged (``flagged_records``: their positions), generated tokens, tokens/s."""
        return dict(getattr(self, "rewriter_", None) and self.rewriter_.stats or {})


class TarotPPO(Tarot):
    """TAROT-PPO: the SFT policy optimised by PPO against the reward with a KL penalty to the SFT policy."""

    stage = "ppo"


class TarotSFT(Tarot):
    """TAROT's SFT policy alone (the starting point of DPO and PPO)."""

    stage = "sft"


class ZeroShotRewrite(Tarot):
    """The untuned SmolLM2-135M-Instruct asked "Rewrite the following paragraph so that the author's style is
    obfuscated." (the paper's zero-shot GPT-3.5 baseline, with the model available here)."""

    stage = "zero-shot"

    def __init__(
        self,
        temperature: float = 0.7,
        top_p: float = 0.95,
        batch_size: int = 64,
        max_new_tokens: int | None = None,
        engine: str = "batched",
        candidates: int = CANDIDATES,
        min_utility: float = 0.5,
        retries: int = 1,
        fallback: str = "keep",
        anchored: bool = False,
        random_state=None,
    ) -> None:
        super().__init__(
            None,
            temperature,
            top_p,
            batch_size,
            max_new_tokens,
            engine,
            candidates,
            min_utility,
            retries,
            fallback,
            anchored,
            random_state,
        )
