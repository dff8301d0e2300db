"""The realiser's typed configurations: how it reads a view and writes text (:class:`RealiserConfig`), and how it
is trained (:class:`TrainingConfig`). A model folder records both; a resumed run refuses a changed config."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from authorguard.exceptions import InputError
from authorguard.text.atoms import ATOM_SPACE, without_optional
from authorguard.utils.validation import check_number

#: the prompt for an ordered view (content, lemma, canonical): its words in order, "|" between sentences
ORDERED_INSTRUCTION = "Write these words as fluent sentences ('|' ends a sentence):"
#: the prompt for a bag of words (the syntf level): no order
BAG_INSTRUCTION = "Write a short fluent text with these words:"
#: the system turn of every prompt (shorter than SmolLM2's default)
SYSTEM = "You write plain English."
#: the prompt of a realiser trained for the roles view under its constraint (the view carries its punctuation; the
#: realiser adds articles and sentence stops only)
ROLES_INSTRUCTION = "Write these words as fluent sentences, adding only 'the', 'a' ('|' ends a sentence):"
#: a roles view keeps nearly every word: its chunks hold up to this many (whole sentences of a ~48-token chunk)
ROLES_VIEW_WORDS = 32
#: the view kinds a realiser reads, and the levels whose views are of each kind
KINDS = {"ordered": ("roles", "content", "lemma", "canonical"), "bag": ("syntf",)}
#: the view levels a training set may draw (``bag``: the canonical view's words sorted)
TRAINING_LEVELS = ("roles", "content", "lemma", "canonical", "bag")


def _from_dict(cls, data: dict):
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InputError(f"{cls.__name__}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


@dataclass(frozen=True)
class RealiserConfig:
    """A view is cut into chunks of whole view sentences of at most ``max_view_words`` words (a longer sentence is
    cut between words); each chunk goes into the chat template after the instruction of its kind, and the
    realiser writes at most ``max_new_tokens`` tokens for it. LoRA: rank ``lora_rank``, scale
    ``lora_alpha``/rank, on ``lora_targets`` of the top ``lora_layers`` layers (None: every layer). Only the top
    layers: the layers below need no backward pass, which halves a training step on 2 CPU cores (measured:
    docs/results/bottleneck.md), and dropout 0 spares the Bernoulli masks (6 % of a step). ``system`` replaces the
    chat template's default system prompt (20 tokens of every example) with a short one."""

    ordered_instruction: str = ORDERED_INSTRUCTION
    bag_instruction: str = BAG_INSTRUCTION
    max_view_words: int = 16
    max_new_tokens: int = 96
    lora_rank: int = 16
    lora_alpha: int = 32
    lora_dropout: float = 0.0
    lora_targets: tuple = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    lora_layers: int | None = 10
    system: str = SYSTEM

    def __post_init__(self) -> None:
        if self.lora_layers is not None:
            check_number(self.lora_layers, "lora_layers", "RealiserConfig", kind=int, low=1, closed="left")
        for name in ("max_view_words", "max_new_tokens", "lora_rank", "lora_alpha"):
            check_number(getattr(self, name), name, "RealiserConfig", kind=int, low=1, closed="left")
        check_number(self.lora_dropout, "lora_dropout", "RealiserConfig", low=0, high=1, closed="both")
        object.__setattr__(self, "lora_targets", tuple(self.lora_targets))

    def instruction(self, kind: str) -> str:
        if kind not in KINDS:
            raise InputError(f"realiser: unknown view kind {kind!r} (kinds: {', '.join(KINDS)})")
        return self.ordered_instruction if kind == "ordered" else self.bag_instruction

    def messages(self, kind: str, view: str) -> list[dict]:
        """The chat turns asking to write ``view`` (of ``kind``): the system turn, the user turn. A quotation's
        :data:`~authorguard.text.atoms.ATOM_SPACE` is shown as a space; optional words (the roles view's articles)
        are not shown — the realiser chooses which to write, its constraint allows only those."""
        shown = without_optional(view).replace(ATOM_SPACE, " ")
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": f"{self.instruction(kind)}\n\n{shown}"},
        ]

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict) -> RealiserConfig:
        return _from_dict(cls, data)


@dataclass(frozen=True)
class TrainingConfig:
    """SFT on (view of a chunk -> the chunk): ``pairs`` chunks (of at least ``min_words`` words, at most
    ``max_chunk_tokens`` tokens, ``texts_per_author`` texts an author) of authors that no evaluation scenario
    selects, from ``datasets``; each chunk's view level drawn with the shares in ``levels`` (``bag``: the
    canonical view's words sorted, standing in for a SynTF bag; ``roles``: the target is the chunk as the roles
    constraint writes it, :func:`~authorguard.text.views.roles.roles_surface`); ``held_out`` further pairs for the
    validation
    loss. ``epochs``, ``batch_size`` pairs a step, AdamW at ``learning_rate``, checkpoint every
    ``checkpoint_every`` steps (a stopped run resumes there)."""

    pairs: int = 5000
    held_out: int = 200
    levels: dict = field(default_factory=lambda: {"content": 0.5, "lemma": 0.2, "canonical": 0.2, "bag": 0.1})
    max_chunk_tokens: int = 48
    min_words: int = 20
    texts_per_author: int = 4
    datasets: tuple = ("blogs", "20news")
    epochs: int = 1
    batch_size: int = 8
    learning_rate: float = 3e-4
    checkpoint_every: int = 50
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("pairs", "max_chunk_tokens", "texts_per_author", "epochs", "batch_size", "checkpoint_every"):
            check_number(getattr(self, name), name, "TrainingConfig", kind=int, low=1, closed="left")
        for name in ("held_out", "min_words", "seed"):
            check_number(getattr(self, name), name, "TrainingConfig", kind=int, low=0, closed="left")
        check_number(self.learning_rate, "learning_rate", "TrainingConfig", low=0, closed="neither")
        unknown = sorted(set(self.levels) - set(TRAINING_LEVELS))
        if unknown or not self.levels or min(self.levels.values()) < 0 or sum(self.levels.values()) <= 0:
            raise InputError(
                f"TrainingConfig: levels must give non-negative shares of {', '.join(TRAINING_LEVELS)}; "
                f"got {self.levels}"
            )
        object.__setattr__(self, "datasets", tuple(self.datasets))

    def to_dict(self) -> dict:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict) -> TrainingConfig:
        return _from_dict(cls, data)
