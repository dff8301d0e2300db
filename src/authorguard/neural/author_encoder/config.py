"""The typed configuration of the author encoder and its training run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number


@dataclass(frozen=True)
class AuthorEncoderConfig:
    """Model and training hyper-parameters; recorded with every trained model.

    Model: ``max_tokens`` word pieces per text (longer texts are cut; :meth:`AuthorEncoder.encode` can average
    windows instead), a LoRA adapter of rank ``lora_rank`` on the attention ``lora_targets`` of every layer, and a
    linear projection to ``embedding_dim`` (L2-normalised output).

    Training: each step samples ``authors_per_batch`` authors and two disjoint episodes of ``texts_per_episode``
    texts per author; an episode's embedding is the normalised mean of its texts'; the loss is the symmetric
    InfoNCE of matching each author's two episodes against the batch's other authors (temperature
    ``temperature``). ``steps`` optimiser steps of AdamW at ``learning_rate`` (linear warm-up over
    ``warmup_steps``, then linear decay), a checkpoint every ``checkpoint_every`` steps.

    Data: authors of ``datasets`` with at least ``min_texts_per_author`` texts of at least ``min_words`` words,
    minus every author an evaluation scenario uses; ``heldout_authors`` of them (seeded) are kept for retrieval
    and never trained on; at most ``max_texts_per_author`` texts per author are kept.
    """

    max_tokens: int = 128
    embedding_dim: int = 256
    lora_rank: int = 8
    lora_alpha: int = 16
    lora_dropout: float = 0.1
    lora_targets: tuple = ("query", "key", "value")
    temperature: float = 0.05
    authors_per_batch: int = 24
    texts_per_episode: int = 2
    steps: int = 250
    learning_rate: float = 1e-3
    warmup_steps: int = 20
    weight_decay: float = 0.01
    checkpoint_every: int = 25
    datasets: tuple = ("blogs", "20news")
    min_texts_per_author: int = 8
    min_words: int = 20
    max_texts_per_author: int = 64
    heldout_authors: int = 150
    seed: int = 0

    def __post_init__(self) -> None:
        owner = "author encoder config"
        for name in (
            "max_tokens",
            "embedding_dim",
            "lora_rank",
            "lora_alpha",
            "authors_per_batch",
            "texts_per_episode",
            "steps",
            "checkpoint_every",
            "min_texts_per_author",
            "max_texts_per_author",
            "heldout_authors",
        ):
            check_number(getattr(self, name), name, owner, kind=int, low=1, closed="left")
        for name in ("warmup_steps", "min_words", "seed"):
            check_number(getattr(self, name), name, owner, kind=int, low=0, closed="left")
        check_number(self.authors_per_batch, "authors_per_batch", owner, kind=int, low=2, closed="left")
        check_number(self.lora_dropout, "lora_dropout", owner, low=0, high=1, closed="left")
        for name in ("temperature", "learning_rate"):
            check_number(getattr(self, name), name, owner, low=0, closed="neither")
        check_number(self.weight_decay, "weight_decay", owner, low=0, closed="left")
        if self.min_texts_per_author < 2 * self.texts_per_episode:
            raise InputError(
                f"{owner}: min_texts_per_author ({self.min_texts_per_author}) must be at least two episodes "
                f"(2 x texts_per_episode = {2 * self.texts_per_episode})"
            )
        object.__setattr__(self, "lora_targets", tuple(self.lora_targets))
        object.__setattr__(self, "datasets", tuple(self.datasets))

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    def model_dict(self) -> dict:
        """The keys that define the network (a saved model is loaded with these)."""
        keys = ("max_tokens", "embedding_dim", "lora_rank", "lora_alpha", "lora_dropout", "lora_targets")
        return {k: v for k, v in self.to_dict().items() if k in keys}
