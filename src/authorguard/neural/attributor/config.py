"""Hyper-parameters of the transformer attributor."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number, check_option


@dataclass(frozen=True)
class AttributorConfig:
    """Documents are cut into windows of ``max_tokens`` word pieces, at most ``max_windows`` per document; each
    training window carries its document's label; at most ``max_train_windows`` windows are trained on (a seeded
    sample, stratified by nothing: the label shares follow the training set). ``epochs`` passes of AdamW at
    ``learning_rate`` (linear warm-up over the first ``warmup_ratio`` of the steps, then linear decay), batches of
    ``batch_size``. A test document's class is the argmax of its windows' mean log-probabilities.

    ``base_model``: "" for the packaged all-MiniLM-L6-v2, or a folder holding a sentence encoder's config.json,
    tokenizer and weights (another encoder, or MiniLM's float16 copy that travels to a GPU machine: weights stored
    in half precision are trained in float32 all the same). ``device``: "cpu", "cuda" or "auto" (CUDA when there
    is a GPU)."""

    max_tokens: int = 128
    max_windows: int = 4
    max_train_windows: int = 2_000
    epochs: int = 3
    batch_size: int = 16
    learning_rate: float = 1e-4
    weight_decay: float = 0.01
    warmup_ratio: float = 0.1
    base_model: str = ""
    device: str = "cpu"

    def __post_init__(self) -> None:
        owner = "the transformer attributor"
        for name in ("max_tokens", "max_windows", "max_train_windows", "epochs", "batch_size"):
            check_number(getattr(self, name), name, owner, kind=int, low=1, closed="left")
        check_number(self.max_tokens, "max_tokens", owner, kind=int, low=8, high=512, closed="both")
        check_number(self.learning_rate, "learning_rate", owner, low=0, closed="neither")
        check_number(self.weight_decay, "weight_decay", owner, low=0, closed="left")
        check_number(self.warmup_ratio, "warmup_ratio", owner, low=0, high=1, closed="left")
        check_option(self.device, "device", owner, ("cpu", "cuda", "auto"))
        if not isinstance(self.base_model, str):
            raise InputError(
                f"The 'base_model' parameter of {owner} must be a folder path. Got {self.base_model!r} instead."
            )

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)
