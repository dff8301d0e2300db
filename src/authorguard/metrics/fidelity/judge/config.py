"""The typed configuration of the consistency judge and its training run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from authorguard.utils.validation import check_number


@dataclass(frozen=True)
class JudgeConfig:
    """Model and training hyper-parameters; recorded with the trained judge.

    Model: all-MiniLM-L6-v2 as a cross-encoder (both sentences in one sequence of at most ``max_tokens`` word
    pieces), a LoRA adapter of rank ``lora_rank`` on ``lora_targets`` of every layer and a new 3-way head
    (faithful, generalised, changed).

    Training: ``sentences`` real sentences of the development corpora (at most ``per_author`` documents an author)
    turned into rule-made pairs (:mod:`authorguard.neural.judge.pairs`), ``validation`` of them held out for the
    loss; ``epochs`` passes of AdamW at ``learning_rate`` over batches of ``batch_size`` (linear warm-up over
    ``warmup_steps``, then linear decay), a checkpoint every ``checkpoint_every`` steps.
    """

    max_tokens: int = 128
    lora_rank: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.1
    lora_targets: tuple = ("query", "key", "value", "dense")
    sentences: int = 32_000
    per_author: int = 4
    validation: int = 1_000
    epochs: int = 2
    batch_size: int = 32
    learning_rate: float = 5e-4
    warmup_steps: int = 50
    weight_decay: float = 0.01
    checkpoint_every: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        owner = "judge config"
        for name in ("max_tokens", "lora_rank", "lora_alpha", "sentences", "per_author", "epochs", "batch_size"):
            check_number(getattr(self, name), name, owner, kind=int, low=1, closed="left")
        for name in ("validation", "warmup_steps", "seed", "checkpoint_every"):
            check_number(getattr(self, name), name, owner, kind=int, low=0, closed="left")
        check_number(self.lora_dropout, "lora_dropout", owner, low=0, high=1, closed="left")
        check_number(self.learning_rate, "learning_rate", owner, low=0, closed="neither")
        check_number(self.weight_decay, "weight_decay", owner, low=0, closed="left")
        object.__setattr__(self, "lora_targets", tuple(self.lora_targets))

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    def model_dict(self) -> dict:
        """The keys that define the network (a saved judge is loaded with these)."""
        keys = ("max_tokens", "lora_rank", "lora_alpha", "lora_dropout", "lora_targets")
        return {k: v for k, v in self.to_dict().items() if k in keys}
