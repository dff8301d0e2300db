"""The typed configurations of TAROT's policy and of its three training stages (SFT, preference pairs, DPO).

One dataclass per stage (trl's habit): each stage's folder records the config it ran with, and a resumed stage
refuses a config that changes a field its outputs depend on.
"""

from __future__ import annotations

import dataclasses
from dataclasses import Field, dataclass
from typing import ClassVar

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: the paper's zero-shot prompt (its Appendix A.2), also the instruction the SFT and DPO policies are trained on
TAROT_PROMPT = "Rewrite the following paragraph so that the author's style is obfuscated."


def _check(config, ints=(), positive_ints=(), unit=(), positive=()) -> None:
    owner = type(config).__name__
    for name in ints:
        check_number(getattr(config, name), name, owner, kind=int, low=0, closed="left")
    for name in positive_ints:
        check_number(getattr(config, name), name, owner, kind=int, low=1, closed="left")
    for name in unit:
        check_number(getattr(config, name), name, owner, low=0, high=1, closed="both")
    for name in positive:
        check_number(getattr(config, name), name, owner, low=0, closed="neither")


class _Record:
    """The mixin of the stage configs, which are all dataclasses (hence ``__dataclass_fields__``)."""

    __dataclass_fields__: ClassVar[dict[str, Field[object]]]
    #: fields that hold another config (read from a nested table of a config file)
    nested: dict = {}

    def _read_nested(self) -> None:
        for name, kind in self.nested.items():
            if isinstance(getattr(self, name), dict):
                object.__setattr__(self, name, kind.from_dict(getattr(self, name)))

    def to_dict(self) -> dict:
        out = {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}
        out.update({name: getattr(self, name).to_dict() for name in self.nested})
        return out

    @classmethod
    def from_dict(cls, data: dict):
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InputError(f"{cls.__name__}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        return cls(**data)


@dataclass(frozen=True)
class PolicyConfig(_Record):
    """How the policy reads and writes. A document is cut into chunks of whole sentences of at most
    ``max_chunk_tokens`` policy tokens (a longer sentence is cut between words, never dropped); each chunk is put in
    the chat template after ``instruction`` and the policy writes at most ``max_new_tokens`` tokens for it.
    The LoRA adapter (rank ``lora_rank``, scale ``lora_alpha``/rank) sits on ``lora_targets`` of every layer."""

    instruction: str = TAROT_PROMPT
    max_chunk_tokens: int = 96
    max_new_tokens: int = 128
    lora_rank: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.05
    lora_targets: tuple = ("q_proj", "k_proj", "v_proj", "o_proj")

    def __post_init__(self) -> None:
        _check(
            self,
            positive_ints=("max_chunk_tokens", "max_new_tokens", "lora_rank", "lora_alpha"),
            unit=("lora_dropout",),
        )
        if not str(self.instruction).strip():
            raise InputError("PolicyConfig: instruction is empty")
        object.__setattr__(self, "lora_targets", tuple(self.lora_targets))

    @property
    def max_sequence_tokens(self) -> int:
        """Prompt (chat template ~40 tokens + instruction ~15 + chunk) + completion: what training must not cut."""
        return self.max_chunk_tokens + self.max_new_tokens + 96


@dataclass(frozen=True)
class PromptConfig(_Record):
    """Which texts the policy is trained on: chunks of training-split texts of authors that no evaluation scenario
    selects (the author encoder's pools: blogs outside BAC-10/20 and the blog-age/gender samples, 20 Newsgroups
    outside its Top-10 sets), at most ``texts_per_author`` per author, ``prompts`` in all (seeded), each chunk
    of at least ``min_words`` words. ``offset`` skips that many prompts first (the DPO stage's prompts are
    disjoint from the SFT stage's)."""

    prompts: int = 400
    offset: int = 0
    texts_per_author: int = 2
    min_words: int = 25
    datasets: tuple = ("blogs", "20news")
    seed: int = 0

    def __post_init__(self) -> None:
        _check(self, ints=("offset", "min_words", "seed"), positive_ints=("prompts", "texts_per_author"))
        object.__setattr__(self, "datasets", tuple(self.datasets))


@dataclass(frozen=True)
class SFTConfig(_Record):
    """Teaching SmolLM2 to rewrite (rejection-sampling SFT). For each prompt the *untuned* instruct model writes
    ``candidates`` rewrites (temperature ``temperature``, top-p ``top_p``); a candidate is kept when it reads as a
    rewrite, not a comment or a copy: its MiniLM cosine to the input is at least ``min_utility``, its word
    overlap (share of its word bigrams found in the input) at most ``max_copy``, its length ``min_length_ratio``
    .. ``max_length_ratio`` times the input's words, at most ``max_invented`` of its content words are new, and
    the rest of the validity gate passes it (no meta phrase, loop, ...). Of the kept ones, the one with the highest
    reward (utility + privacy) becomes the target. Then LoRA
    fine-tuning on (instruction + chunk -> target), loss on the target tokens only: ``epochs`` epochs,
    ``batch_size`` pairs a step (``gradient_accumulation`` micro-batches), AdamW at ``learning_rate``."""

    nested = {"prompts": PromptConfig}

    prompts: PromptConfig = PromptConfig()
    candidates: int = 4
    temperature: float = 0.7
    top_p: float = 0.95
    min_utility: float = 0.5
    max_copy: float = 0.6
    min_length_ratio: float = 0.5
    max_length_ratio: float = 1.6
    max_invented: float = 0.5
    generation_batch_size: int = 16
    epochs: int = 2
    batch_size: int = 8
    gradient_accumulation: int = 1
    learning_rate: float = 2e-4
    checkpoint_every: int = 20
    seed: int = 0

    def __post_init__(self) -> None:
        self._read_nested()
        _check(
            self,
            ints=("seed",),
            positive_ints=(
                "candidates",
                "generation_batch_size",
                "epochs",
                "batch_size",
                "gradient_accumulation",
                "checkpoint_every",
            ),
            unit=("top_p", "max_copy", "max_invented"),
            positive=("temperature", "learning_rate", "min_length_ratio", "max_length_ratio"),
        )
        check_number(self.min_utility, "min_utility", "SFTConfig", low=-1, high=1, closed="both")
        if self.min_length_ratio > self.max_length_ratio:
            raise InputError(
                f"SFTConfig: min_length_ratio {self.min_length_ratio} > max_length_ratio {self.max_length_ratio}"
            )


@dataclass(frozen=True)
class RewardConfig(_Record):
    """R = R_util + R_priv (the paper's Section 4.2): R_util = cos(U(x), U(y)) with U all-MiniLM-L6-v2 (paper:
    GTE-large), R_priv = 1 - cos(A(x), A(y)) with A the project's author encoder (paper: LUAR). ``utility`` /
    ``privacy`` False drop a term (the paper's Table 7 ablation); ``author_encoder`` None = the default encoder."""

    utility: bool = True
    privacy: bool = True
    author_encoder: str | None = None
    batch_size: int = 32
    gate: bool = True

    def __post_init__(self) -> None:
        _check(self, positive_ints=("batch_size",))
        if not (self.utility or self.privacy):
            raise InputError("RewardConfig: utility and privacy are both off: the reward would be constant")


@dataclass(frozen=True)
class PreferenceConfig(_Record):
    """The paper's Algorithm 1: the SFT policy writes two rewrites per prompt (temperature ``temperature``, top-p
    ``top_p``: the paper's 1.0 / 1.0); the pair is kept when |ΔR_priv| > ``epsilon_privacy`` and |ΔR_util| <
    ``epsilon_utility`` (paper: 0.10, 0.05), chosen = the rewrite with the higher R_priv. ``max_pairs`` > 0 keeps
    a seeded random subset of that many pairs (the reward ablation holds the DPO budget equal across its arms).
    ``validity_pairs``: with the reward's gate on, a prompt with one valid and one refused rewrite gives the pair
    (valid chosen) (:mod:`~authorguard.neural.tarot.pairs`)."""

    nested = {"prompts": PromptConfig, "reward": RewardConfig}

    prompts: PromptConfig = PromptConfig(prompts=600, offset=400)
    reward: RewardConfig = RewardConfig()
    epsilon_privacy: float = 0.10
    epsilon_utility: float = 0.05
    temperature: float = 1.0
    top_p: float = 1.0
    generation_batch_size: int = 16
    max_pairs: int = 0
    validity_pairs: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        self._read_nested()
        _check(
            self,
            ints=("seed", "max_pairs"),
            positive_ints=("generation_batch_size",),
            unit=("top_p",),
            positive=("temperature",),
        )
        for name in ("epsilon_privacy", "epsilon_utility"):
            check_number(getattr(self, name), name, "PreferenceConfig", low=0, closed="left")


@dataclass(frozen=True)
class DPOConfig(_Record):
    """DPO (Rafailov et al., 2023) with trl's ``DPOTrainer`` on the preference pairs; the reference policy is the
    SFT policy (its adapter merged into the weights; DPO trains a new adapter on top). The paper's TAROT-DPO
    hyper-parameters: learning rate 2.96e-5, batch 32, β 0.1, 3 epochs. ``max_steps`` (optimiser steps) ends
    training before ``epochs`` are done — the pairs are shuffled with ``seed``, so a cut run has seen a random
    subset — for a stage that must finish within a time budget. ``precompute_reference`` computes the reference
    policy's log-probabilities of every pair once before training instead of in every step (the same values: the
    reference is frozen; saves one forward pass per pair and epoch). ``sft_weight`` α > 0 adds α times the
    chosen rewrite's negative log-likelihood (nats per token) to the DPO loss (RPO: Pang et al., 2024; beyond the
    paper, whose value is 0): plain DPO can lower the likelihood of both sides of a pair and move the policy to
    text neither side resembles — at 10x it learned to invent content — while the added term keeps the
    chosen, gate-passing rewrites likely."""

    learning_rate: float = 2.96e-5
    batch_size: int = 32
    micro_batch_size: int = 4
    beta: float = 0.1
    epochs: int = 3
    max_steps: int | None = None
    precompute_reference: bool = False
    sft_weight: float = 0.0
    checkpoint_every: int = 5
    seed: int = 0

    def __post_init__(self) -> None:
        _check(
            self,
            ints=("seed",),
            positive_ints=("batch_size", "micro_batch_size", "epochs", "checkpoint_every"),
            positive=("learning_rate", "beta"),
        )
        if self.max_steps is not None:
            _check(self, positive_ints=("max_steps",))
        if not isinstance(self.precompute_reference, bool):
            raise InputError(
                f"DPOConfig: precompute_reference must be true or false, not {self.precompute_reference!r}"
            )
        if (
            not isinstance(self.sft_weight, (int, float))
            or isinstance(self.sft_weight, bool)
            or not self.sft_weight >= 0
        ):
            raise InputError(f"DPOConfig: sft_weight must be a number >= 0, not {self.sft_weight!r}")
        if self.batch_size % self.micro_batch_size:
            raise InputError(
                f"DPOConfig: batch_size {self.batch_size} is not a multiple of micro_batch_size {self.micro_batch_size}"
            )


@dataclass(frozen=True)
class PPOConfig(_Record):
    """PPO (Schulman et al., 2017) of the SFT policy against the reward with a per-token KL penalty to the SFT
    policy, R(x, y) = r(x, y) − ``kl_coef`` · KL[π_θ(y|x) ‖ π_SFT(y|x)] (the paper's Section 3.4). Each step the
    policy rewrites ``batch_size`` prompts (temperature ``temperature``, top-p ``top_p``), then ``ppo_epochs``
    passes over those rollouts in shuffled minibatches of ``mini_batch_size`` (one optimiser step each; forward
    passes of ``micro_batch_size`` rows); ``epochs`` passes over the prompts in all. Advantages by GAE (``gamma``,
    ``lam``), whitened; the surrogate is clipped at 1 ± ``clip_range``, the value loss at ± ``clip_range_value``
    around the rollout's values and weighted by ``value_coef``. The paper's TAROT-PPO: lr 1.47e-5, batch 16,
    KL coefficient 0.2, 3 epochs, top-p 1.0, temperature 1.0."""

    nested = {"prompts": PromptConfig, "reward": RewardConfig}

    prompts: PromptConfig = PromptConfig(prompts=600, offset=400)
    reward: RewardConfig = RewardConfig()
    learning_rate: float = 1.47e-5
    value_learning_rate: float = 1e-3
    batch_size: int = 16
    mini_batch_size: int = 8
    micro_batch_size: int = 4
    ppo_epochs: int = 1
    epochs: int = 3
    kl_coef: float = 0.2
    clip_range: float = 0.2
    clip_range_value: float = 0.2
    value_coef: float = 0.5
    gamma: float = 1.0
    lam: float = 0.95
    temperature: float = 1.0
    top_p: float = 1.0
    max_grad_norm: float = 1.0
    checkpoint_every: int = 5
    seed: int = 0

    def __post_init__(self) -> None:
        self._read_nested()
        _check(
            self,
            ints=("seed",),
            positive_ints=(
                "batch_size",
                "mini_batch_size",
                "micro_batch_size",
                "ppo_epochs",
                "epochs",
                "checkpoint_every",
            ),
            unit=("top_p", "gamma", "lam"),
            positive=(
                "learning_rate",
                "value_learning_rate",
                "temperature",
                "clip_range",
                "clip_range_value",
                "value_coef",
                "max_grad_norm",
            ),
        )
        check_number(self.kl_coef, "kl_coef", "PPOConfig", low=0, closed="left")
        for small, large in (("mini_batch_size", "batch_size"), ("micro_batch_size", "mini_batch_size")):
            if getattr(self, large) % getattr(self, small):
                raise InputError(
                    f"PPOConfig: {large} {getattr(self, large)} is not a multiple of {small} {getattr(self, small)}"
                )
