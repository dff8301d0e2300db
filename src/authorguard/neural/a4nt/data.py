"""The sentences an A⁴NT model is trained on, and the pre-processing every document goes through.

A setting is a benchmark scenario whose attack target is an attribute (``blog-age``, ``blog-gender``, ``speech``,
``speech-millercenter``; :data:`authorguard.data.splits.SCENARIOS`). Its training split is the only text
any stage learns from (sentences, vocabulary, Punkt parameters); validation sentences score the classifiers while
they train; the test split is left to evaluation.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.config import A4NTConfig
from authorguard.neural.a4nt.text import (
    ENTITY_LABELS,
    NUMBER,
    SentenceSplitter,
    Vocabulary,
    mask_entities,
    sentence_numbers,
    tokenize,
)


@dataclass
class Preprocessor:
    """Documents -> sentences of at most ``max_tokens`` word tokens (a longer sentence is cut into consecutive
    pieces, never truncated), after replacing named entities when ``masks_entities``."""

    splitter: SentenceSplitter
    max_tokens: int
    masks_entities: bool = False

    def sentences(self, texts: list[str]) -> list[list[list[str]]]:
        """Per document, its sentences as token lists (a document with no token gives an empty list)."""
        return [[tokens for tokens, _ in document] for document in self.sentences_with_numbers(texts)]

    def sentences_with_numbers(self, texts: list[str]) -> list[list[tuple[list[str], list[str]]]]:
        """Per document, its sentences as (tokens, the numbers behind the piece's ``NUM`` tokens, in order)."""
        if self.masks_entities:
            texts = mask_entities(texts)
        out = []
        for text in texts:
            pieces = []
            for sentence in self.splitter.split(text):
                tokens = tokenize(sentence, ENTITY_LABELS if self.masks_entities else frozenset())
                numbers = sentence_numbers(sentence)
                for i in range(0, len(tokens), self.max_tokens):
                    piece = tokens[i : i + self.max_tokens]
                    count = piece.count(NUMBER)
                    pieces.append((piece, numbers[:count]))
                    numbers = numbers[count:]
            out.append(pieces)
        return out


@dataclass
class SettingData:
    """A setting's training material: ``classes`` (sorted class names), per class the encoded training sentences,
    validation sentences with their class index, and the corpus counts behind them."""

    classes: list[str]
    train: list[list[list[int]]]
    validation: list[list[int]]
    validation_labels: list[int]
    counts: dict

    def save(self, path: Path) -> None:
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            json.dump(
                {
                    "classes": self.classes,
                    "train": self.train,
                    "validation": self.validation,
                    "validation_labels": self.validation_labels,
                    "counts": self.counts,
                },
                handle,
            )

    @classmethod
    def load(cls, path: Path) -> SettingData:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
        return cls(data["classes"], data["train"], data["validation"], data["validation_labels"], data["counts"])


def setting_corpus(config: A4NTConfig):
    """The selected corpus of ``config.setting`` (documents, attribute labels, splits at ``split_seed``)."""
    from authorguard.data import load_dataset
    from authorguard.data.splits import SCENARIOS

    if config.setting not in SCENARIOS or SCENARIOS[config.setting].target != "labels":
        known = ", ".join(n for n, s in SCENARIOS.items() if s.target == "labels")
        raise InputError(f"A4NT setting {config.setting!r} is not an attribute scenario (known: {known})")
    scenario = SCENARIOS[config.setting].with_seed(config.split_seed)
    return scenario.selection.select(load_dataset(scenario.dataset))


def build_setting_data(config: A4NTConfig, progress=None) -> tuple[SettingData, Vocabulary, SentenceSplitter]:
    """Sentences, vocabulary and Punkt parameters of ``config.setting`` from its training split."""
    corpus = setting_corpus(config)
    train, validation = corpus.split("train"), corpus.split("validation")
    say = progress or (lambda message: None)
    train_texts = mask_entities(list(train.texts)) if config.masks_entities else list(train.texts)
    validation_texts = mask_entities(list(validation.texts)) if config.masks_entities else list(validation.texts)
    say(f"training Punkt on {config.setting}'s training split")
    splitter = SentenceSplitter.train(train_texts, config.punkt_training_words)
    # entities were replaced above; the pre-processor must not run spaCy again
    preprocessor = Preprocessor(splitter, config.max_tokens, masks_entities=False)
    labels = ENTITY_LABELS if config.masks_entities else frozenset()
    split_train = [[tokenize(s, labels) for s in splitter.split(t)] for t in train_texts]
    vocabulary = Vocabulary.build((s for document in split_train for s in document), config.vocabulary_size)
    classes = sorted(set(train.labels))
    if len(classes) < 2:
        raise InputError(f"A4NT setting {config.setting!r}: fewer than two classes in the training split")
    rng = np.random.default_rng(config.seed)
    per_class: list[list[list[int]]] = []
    sentence_counts: dict[str, int] = {}
    kept_counts: dict[str, int] = {}
    counts: dict[str, dict[str, int] | int] = {
        "documents": {"train": len(train), "validation": len(validation)},
        "sentences": sentence_counts,
        "kept": kept_counts,
    }
    for name in classes:
        pool = [
            vocabulary.encode(s)
            for document, label in zip(split_train, train.labels)
            if label == name
            for s in document
            if config.min_tokens <= len(s) <= config.max_tokens
        ]
        sentence_counts[name] = len(pool)
        if len(pool) > config.max_sentences_per_class:
            pool = [pool[i] for i in np.sort(rng.choice(len(pool), config.max_sentences_per_class, replace=False))]
        if not pool:
            raise InputError(f"A4NT setting {config.setting!r}: class {name!r} has no training sentence")
        kept_counts[name] = len(pool)
        per_class.append(pool)
    held = [
        (vocabulary.encode(s), classes.index(label))
        for document, label in zip(preprocessor.sentences(validation_texts), validation.labels)
        for s in document
        if len(s) >= config.min_tokens and label in classes
    ]
    if len(held) > config.validation_sentences:
        held = [held[i] for i in np.sort(rng.choice(len(held), config.validation_sentences, replace=False))]
    counts["validation_sentences"] = len(held)
    data = SettingData(classes, per_class, [s for s, _ in held], [c for _, c in held], counts)
    return data, vocabulary, splitter


def pad_batch(sentences: list[list[int]], append_end: bool = False):
    """Token-id lists -> ``(ids, mask)``: int64 (B, T) padded with ``<pad>`` and bool (B, T); with ``append_end``
    each sentence ends with ``</s>``. An empty sentence keeps one position (masked out unless it holds ``</s>``)."""
    import torch

    rows = [list(s) + ([Vocabulary.eos] if append_end else []) for s in sentences]
    width = max(1, max((len(r) for r in rows), default=1))
    ids = np.full((len(rows), width), Vocabulary.pad, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=bool)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = True
    # one copy per batch, to torch's default device (the trainer's, under ``with torch.device(...)``)
    ids, mask = torch.as_tensor(ids), torch.as_tensor(mask)
    return ids, mask
