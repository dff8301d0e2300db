"""Constrained decoding: per sequence, an automaton over token ids says which tokens may come next; every engine
masks the other tokens' logits before its sampler.

The interface is :class:`TokenConstraint` (``allowed()``: the token ids allowed next, ``advance(token)``), one
object per sequence, over a tokenizer's :class:`TokenVocabulary` (each token's bytes and their trie). The
constraints: :class:`~authorguard.generation.ordered_words.OrderedWords`, a view's words in order with only free
words between them (the style bottleneck's), and :class:`~authorguard.generation.anchors.AnchorsInOrder`, anchors
in order with any text between them (TAROT's). Here too: how an engine applies them (:func:`check_constraints`,
:func:`masked_logits`, :func:`constraint_processor`).
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Sequence

import numpy as np

from authorguard.exceptions import InputError


class TokenConstraint(abc.ABC):
    """One sequence's constraint. ``allowed()``: the token ids that may come next (a sorted int64 array; never empty
    while the sequence may go on — the end-of-turn token is among them when the text may end); ``advance(id)``
    after the engine chose a token. A fresh object per sequence: it keeps the sequence's state."""

    @abc.abstractmethod
    def allowed(self): ...

    @abc.abstractmethod
    def advance(self, token_id: int) -> None: ...


class TokenVocabulary:
    """A byte-level BPE tokenizer's tokens as bytes, in a trie (special tokens left out: only ``end_id`` may end a
    text). Built once per tokenizer (:func:`vocabulary_of`)."""

    def __init__(self, tokenizer) -> None:
        byte_of = _byte_decoder()
        special = set(tokenizer.all_special_ids)
        self.end_id = tokenizer.eos_token_id
        self.size = len(tokenizer)
        self.token_bytes: list = [None] * self.size
        root: dict = {}
        for token, index in tokenizer.get_vocab().items():
            if index in special or index >= self.size:
                continue
            try:
                data = bytes(byte_of[ch] for ch in token)
            except KeyError:
                raise InputError(
                    f"constrained decoding needs a byte-level BPE tokenizer (GPT-2 style); token {token!r} is not one"
                ) from None
            if not data:
                continue
            self.token_bytes[index] = data
            node = root
            for byte in data:
                node = node.setdefault(byte, {})
            node[None] = index  # the token ending here
        self.trie = root
        ids = [i for i, data in enumerate(self.token_bytes) if data is not None]
        #: every ordinary token (not the end, not a special token), and those that cannot continue a word
        self.all_but_end = np.array(ids, dtype=np.int64)
        self.word_ends = np.array([i for i in ids if not word_byte(self.token_bytes[i][0])], dtype=np.int64)


@functools.cache
def _byte_decoder() -> dict:
    """GPT-2's byte-level alphabet: the printable character standing for each byte, inverted."""
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    codes = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            codes.append(256 + extra)
            extra += 1
    return {chr(code): byte for byte, code in zip(printable, codes)}


_VOCABULARIES: dict = {}


def vocabulary_of(tokenizer) -> TokenVocabulary:
    """The tokenizer's :class:`TokenVocabulary`, built on first use and kept per tokenizer object."""
    key = id(tokenizer)
    if key not in _VOCABULARIES or _VOCABULARIES[key][0] is not tokenizer:
        _VOCABULARIES[key] = (tokenizer, TokenVocabulary(tokenizer))
    return _VOCABULARIES[key][1]


def check_constraints(constraints, n_prompts: int, sampler) -> list | None:
    """``constraints`` as a list of one constraint (or None) per prompt; a one-line error for a wrong count or a
    sampler whose distribution a mask would change beyond what it states (DP-Prompt's clipped sampler: its bound
    is over the whole vocabulary)."""
    if constraints is None:
        return None
    constraints = list(constraints)
    if len(constraints) != n_prompts:
        raise InputError(f"constrained decoding: {len(constraints)} constraints for {n_prompts} prompts")
    if not getattr(sampler, "accepts_mask", False) and any(c is not None for c in constraints):
        raise InputError(
            f"constrained decoding: {type(sampler).__name__} cannot be masked (its distribution is "
            "over the whole vocabulary)"
        )
    return constraints


def masked_logits(logits, constraints: Sequence):
    """``logits`` (B, V) with the tokens each row's constraint forbids set to -inf (rows without one unchanged)."""
    from authorguard.utils.weights import require_torch

    torch = require_torch()
    if not any(c is not None for c in constraints):
        return logits
    keep = torch.ones(logits.shape, dtype=torch.bool, device=logits.device)
    for row, constraint in enumerate(constraints):
        if constraint is None:
            continue
        allowed = constraint.allowed()
        if len(allowed) == 0:  # ended: any token (the engine stops the row)
            continue
        keep[row] = False
        keep[row, torch.from_numpy(np.asarray(allowed)).to(logits.device)] = True
    return logits.masked_fill(~keep, float("-inf"))


def constraint_processor(constraints: Sequence, prompt_width: int):
    """A ``transformers.LogitsProcessor`` applying one constraint per batch row (the reference engine): it advances
    each row's constraint by the token generated last, then masks."""
    from transformers import LogitsProcessor

    class ConstraintMask(LogitsProcessor):
        def __call__(self, input_ids, scores):
            if input_ids.shape[1] > prompt_width:
                for row, constraint in enumerate(constraints):
                    if constraint is not None:
                        constraint.advance(int(input_ids[row, -1]))
            return masked_logits(scores, constraints)

    return ConstraintMask()


def word_byte(byte: int) -> bool:
    """Whether a byte may be part of a word: a letter or digit, an apostrophe, or a byte of a non-ASCII character."""
    return chr(byte).isalnum() or byte == ord("'") or byte >= 0x80
