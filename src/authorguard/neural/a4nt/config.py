"""The typed configuration of an A⁴NT model folder and its training stages."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number, check_option

SEMANTIC_LOSSES = ("cycml", "fbsem")
#: ``flip``: the paper's generators, each source class into the other's style; ``neutral``: one generator for every
#: class, trained so that classifiers read the class prior from its output (beyond the paper; docs/neural.md)
OBJECTIVES = ("flip", "neutral")
AUTOENCODER = "autoencoder"
NEUTRAL_AUTOENCODER = "neutral-autoencoder"
#: the pre-trained generators, stored as ``<name>.pt``; the adversarially trained ones as ``<variant>/generator.pt``
AUTOENCODERS = (AUTOENCODER, NEUTRAL_AUTOENCODER)
HOLDOUT_KINDS = ("lstm", "cnn", "lstm-cnn")
#: The ten holdout attribute classifiers of the paper's Table IV: varied architectures and sizes, "kind-width".
DEFAULT_HOLDOUTS = (
    "lstm-64",
    "lstm-128",
    "lstm-384",
    "cnn-64",
    "cnn-128",
    "cnn-256",
    "lstm-cnn-64",
    "lstm-cnn-128",
    "lstm-cnn-256",
    "lstm2-128",
)


def variant_name(semantic: str, language_loss: bool, objective: str = "flip", window: int = 1) -> str:
    """The paper's names, as folder names: ``cycml``, ``cycml-lang``, ``fbsem``, ``fbsem-lang``; the neutral
    objective's with a ``neutral-`` prefix (``neutral-cycml-lang``, ...), and ``neutral-w8-`` where its style
    loss pools windows of 8 sentences."""
    if objective != "neutral":
        return semantic + ("-lang" if language_loss else "")
    return "neutral-" + (f"w{window}-" if window > 1 else "") + semantic + ("-lang" if language_loss else "")


def generator_file(variant: str) -> str:
    """A variant's generator, relative to its model folder."""
    return f"{variant}.pt" if variant in AUTOENCODERS else f"{variant}/generator.pt"


def is_neutral(variant: str) -> bool:
    """A variant of the neutral objective (one generator for every source class, no direction)."""
    return variant.startswith("neutral-")


@dataclass(frozen=True)
class A4NTConfig:
    """One setting's model and training hyper-parameters; recorded in the model folder.

    Data: the setting's training split (a benchmark scenario with attribute labels, split seed ``split_seed``) is
    cut into sentences (Punkt trained on that split), lower-cased word tokens, numbers -> ``NUM``; sentences of
    ``min_tokens``..``max_tokens`` tokens are kept, at most ``max_sentences_per_class`` per class (seeded); the
    vocabulary is the ``vocabulary_size`` most frequent tokens (others -> ``<unk>``). ``entities_to_labels``
    replaces named entities by their spaCy label (the paper's speech setting; None: on for speech settings).

    Networks: word embeddings of ``embedding_dim`` learned from data, LSTMs of ``hidden_size`` units (the
    generator's encoder has the classifier's architecture), ``dropout`` between layers.

    Stages (each resumable, a checkpoint every ``checkpoint_every`` steps), RMSprop throughout (the paper):
    ``classifier_steps`` for the attribute classifier and each of ``holdouts``; ``language_model_steps`` for each
    class's language model; ``autoencoder_steps`` of autoencoder pre-training; ``adversarial_steps`` of GAN
    training (generator and discriminator one minibatch each, alternately) with the ``semantic`` loss
    (``cycml``: cycle reconstruction likelihood; ``fbsem``: L1 between MiniLM sentence embeddings) and, with
    ``language_loss``, the target class's language-model likelihood. Loss weights None are set at the first
    adversarial step so the weighted terms start at the style loss's magnitude (the paper's rule).

    ``autoencoder_eval_every`` > 0 measures the autoencoder's greedy reconstructions of ``autoencoder_eval_sentences``
    validation sentences by METEOR every that many steps, keeps the best weights and stops after
    ``autoencoder_patience`` measurements without a gain (``autoencoder_steps`` is then the most); 0 trains the
    fixed number of steps.

    ``objective``: ``flip`` (the paper) or ``neutral`` — one generator for every source class whose output the
    frozen attribute classifier and an adversary retrained on that output both read as the class prior (style loss
    KL(prior ‖ posterior), :mod:`~authorguard.neural.a4nt.losses`) — per sentence, or with ``neutral_window`` k > 1
    per window of k rewrites of one source class, their posteriors pooled as a document attacker pools them; its
    decoder is pre-trained as an autoencoder of every class's sentences (``neutral-autoencoder.pt``), the cycle loss
    reconstructs the input through the same
    generator and the language loss averages the classes' language models.
    """

    setting: str = "blog-age"
    split_seed: int = 0
    vocabulary_size: int = 10000
    min_tokens: int = 2
    max_tokens: int = 30
    max_sentences_per_class: int = 40000
    validation_sentences: int = 4000
    punkt_training_words: int = 400000
    entities_to_labels: bool | None = None
    embedding_dim: int = 128
    hidden_size: int = 256
    dropout: float = 0.2
    batch_size: int = 64
    pretrain_batch_size: int = 128
    classifier_steps: int = 1500
    classifier_learning_rate: float = 1e-3
    holdouts: tuple = DEFAULT_HOLDOUTS
    holdout_steps: int = 800
    language_model_steps: int = 1500
    autoencoder_steps: int = 2000
    autoencoder_eval_every: int = 0
    autoencoder_eval_sentences: int = 300
    autoencoder_patience: int = 3
    pretrain_learning_rate: float = 1e-3
    adversarial_steps: int = 1500
    generator_learning_rate: float = 3e-4
    discriminator_learning_rate: float = 3e-4
    gumbel_temperature: float = 0.5
    semantic: str = "cycml"
    language_loss: bool = True
    objective: str = "flip"
    neutral_window: int = 1
    style_weight: float | None = None
    semantic_weight: float | None = None
    language_weight: float | None = None
    checkpoint_every: int = 100
    seed: int = 0

    def __post_init__(self) -> None:
        owner = "A4NT config"
        for name in (
            "vocabulary_size",
            "min_tokens",
            "max_tokens",
            "max_sentences_per_class",
            "validation_sentences",
            "punkt_training_words",
            "embedding_dim",
            "hidden_size",
            "batch_size",
            "pretrain_batch_size",
            "checkpoint_every",
            "autoencoder_eval_sentences",
            "autoencoder_patience",
            "neutral_window",
        ):
            check_number(getattr(self, name), name, owner, kind=int, low=1, closed="left")
        for name in (
            "classifier_steps",
            "holdout_steps",
            "language_model_steps",
            "autoencoder_steps",
            "adversarial_steps",
            "autoencoder_eval_every",
            "split_seed",
            "seed",
        ):
            check_number(getattr(self, name), name, owner, kind=int, low=0, closed="left")
        for name in (
            "classifier_learning_rate",
            "pretrain_learning_rate",
            "generator_learning_rate",
            "discriminator_learning_rate",
            "gumbel_temperature",
        ):
            check_number(getattr(self, name), name, owner, low=0, closed="neither")
        for name in ("style_weight", "semantic_weight", "language_weight"):
            if getattr(self, name) is not None:
                check_number(getattr(self, name), name, owner, low=0, closed="left")
        check_number(self.dropout, "dropout", owner, low=0, high=1, closed="left")
        check_option(self.semantic, "semantic", owner, SEMANTIC_LOSSES)
        check_option(self.objective, "objective", owner, OBJECTIVES)
        if self.neutral_window > 1 and self.objective != "neutral":
            raise InputError(f'{owner}: neutral_window {self.neutral_window} needs objective = "neutral"')
        if self.min_tokens > self.max_tokens:
            raise InputError(f"{owner}: min_tokens {self.min_tokens} > max_tokens {self.max_tokens}")
        object.__setattr__(self, "holdouts", tuple(self.holdouts))
        for spec in self.holdouts:
            parse_holdout(spec)

    @property
    def variant(self) -> str:
        return variant_name(self.semantic, self.language_loss, self.objective, self.neutral_window)

    @property
    def masks_entities(self) -> bool:
        return self.setting.startswith("speech") if self.entities_to_labels is None else bool(self.entities_to_labels)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    #: the fields that define the shared stages (data, vocabulary, classifiers, language models, autoencoder); a
    #: model folder refuses to resume or add a variant under a config that changes one of them
    SHARED_FIELDS = (
        "setting",
        "split_seed",
        "vocabulary_size",
        "min_tokens",
        "max_tokens",
        "max_sentences_per_class",
        "validation_sentences",
        "punkt_training_words",
        "entities_to_labels",
        "embedding_dim",
        "hidden_size",
        "seed",
    )

    def shared(self) -> dict:
        return {name: getattr(self, name) for name in self.SHARED_FIELDS}


def parse_holdout(spec: str) -> tuple[str, int, int]:
    """``"lstm-128"`` -> ("lstm", 128 units, 1 layer); ``"lstm2-128"`` -> two LSTM layers; ``"cnn-64"`` -> 64
    filters per kernel width; ``"lstm-cnn-256"`` -> LSTM then convolutions."""
    kind, _, width = str(spec).rpartition("-")
    layers = 1
    if kind.startswith("lstm") and kind[4:5].isdigit():
        layers, kind = int(kind[4]), "lstm" + kind[5:]
    if kind not in HOLDOUT_KINDS or not width.isdigit() or int(width) < 1:
        raise InputError(
            f"A4NT config: holdout {spec!r} is not KIND-WIDTH with KIND in {', '.join(HOLDOUT_KINDS)} "
            "(e.g. lstm-128, lstm2-128, cnn-64, lstm-cnn-128)"
        )
    return kind, int(width), layers
