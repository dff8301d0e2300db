"""Hyper-parameters of the transformer attributor."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from authorguard.utils.validation import check_number


@dataclass(frozen=True)
class AttributorConfig:
    """Documents are cut into windows of ``max_tokens`` word pieces, at most ``max_windows`` per document; each
    training window carries its document's label; at most ``max_train_windows`` windows are trained on (a seeded
    sample, stratified by nothing: the label shares follow the training set). ``epochs`` passes of AdamW at
    ``learning_rate`` (linear warm-up over the first ``warmup_ratio`` of the steps, then linear decay), batches of
    ``batch_size``. A test document's class is the argmax of its windows' mean log-probabilities."""

    max_tokens: int = 128
    max_windows: int = 4
    max_train_windows: int = 2_000
    epochs: int = 3
    batch_size: int = 16
    learning_rate: float = 1e-4
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1

    def __post_init__(self) -> None:
        owner = "the transformer attributor"
        for name in ("max_tokens", "max_windows", "max_train_windows", "epochs", "batch_size"):
            check_number(getattr(self, name), name, owner, kind=int, low=1, closed="left")
        check_number(self.max_tokens, "max_tokens", owner, kind=int, low=8, high=512, closed="both")
        check_number(self.learning_rate, "learning_rate", owner, low=0, closed="neither")
        check_number(self.weight_decay, "weight_decay", owner, low=0, closed="left")
        check_number(self.warmup_ratio, "warmup_ratio", owner, low=0, high=1, closed="left")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
