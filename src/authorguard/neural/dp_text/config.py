"""The typed configuration of an author-level DP-SGD fine-tune: the privacy budget, each author's contribution
bound, the optimisation, the adapter and the sampling of synthetic posts."""

from __future__ import annotations

from dataclasses import dataclass

from authorguard.utils.validation import check_number

#: how a labelled post is written for the model: its label line, then the post; a synthetic post is parsed back so
PROMPT = "Label: "
SEPARATOR = "\nPost: "


@dataclass(frozen=True)
class DPTextConfig:
    """``epsilon``, ``delta``: the (ε, δ)-DP per author of the whole fine-tune (so of every post sampled from it).

    Contribution: at most ``posts_per_author`` posts an author (a seeded hash chooses them), each cut to
    ``max_tokens`` tokens, label line included. Steps: ``steps`` of DP-SGD, each drawing every author with
    probability ``authors_per_step`` / authors (Poisson), an author's gradient the mean over their posts, clipped to
    L2 norm ``clip``; Adam at ``learning_rate``; ``micro_batch`` posts a forward pass. LoRA: rank ``lora_rank``,
    scale ``lora_alpha`` / rank, on ``lora_targets``. Sampling: ``temperature``, ``top_p``, at most
    ``max_new_tokens`` new tokens a post, ``sample_batch`` posts a call."""

    epsilon: float = 8.0
    delta: float = 1e-5
    posts_per_author: int = 4
    max_tokens: int = 128
    steps: int = 300
    authors_per_step: int = 256
    clip: float = 1.0
    learning_rate: float = 2e-3
    micro_batch: int = 64
    lora_rank: int = 8
    lora_alpha: int = 16
    lora_targets: tuple = ("q_proj", "k_proj", "v_proj", "o_proj")
    temperature: float = 1.0
    top_p: float = 0.95
    max_new_tokens: int = 128
    sample_batch: int = 64

    def __post_init__(self) -> None:
        owner = "author-level DP text"
        check_number(self.epsilon, "epsilon", owner, low=0.0, closed="neither")
        check_number(self.delta, "delta", owner, low=0.0, high=1.0, closed="neither")
        counts = ("posts_per_author", "max_tokens", "steps", "authors_per_step", "micro_batch", "lora_rank")
        for name in (*counts, "max_new_tokens", "sample_batch", "lora_alpha"):
            check_number(getattr(self, name), name, owner, kind=int, low=1, closed="left")
        for name in ("clip", "learning_rate", "temperature"):
            check_number(getattr(self, name), name, owner, low=0.0, closed="neither")
        check_number(self.top_p, "top_p", owner, low=0.0, high=1.0, closed="right")
