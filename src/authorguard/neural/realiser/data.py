"""The realiser's training pairs: (view of a chunk, the chunk), from authors no evaluation scenario selects.

The chunks are TAROT's training prompts (:func:`~authorguard.neural.tarot.data.training_prompts`: blog and
20 Newsgroups authors outside every benchmark scenario, at most ``texts_per_author`` texts each, the first chunk
of whole sentences of each text). Each chunk gets one view level, drawn with ``levels``' shares from a generator
seeded with ``seed``; ``bag`` is the canonical view's words sorted (a SynTF bag's shape: no order, public-vocabulary
words). Targets are the chunk with its whitespace collapsed (one paragraph); at level ``roles``, the chunk as the
roles constraint writes it (:func:`~authorguard.text.views.roles.roles_surface`, checked against the constraint's
language: the realiser learns only what it may write). Chunks whose view has fewer than :data:`MIN_VIEW_WORDS` words
are skipped (counted).
"""

from __future__ import annotations

import numpy as np

from authorguard.neural.realiser.config import TrainingConfig
from authorguard.text.atoms import ATOM_SPACE
from authorguard.text.views import get_view, view_words
from authorguard.text.views.reading import QUESTION_MARK, SENTENCE_MARK
from authorguard.text.views.roles import roles_surface

MIN_VIEW_WORDS = 3


def bag_view(text: str) -> str:
    """The canonical view's words, sorted: what the realiser reads for a bag of words."""
    return " ".join(sorted(view_words(get_view("canonical")(text))))


def chunk_view(level: str, text: str) -> str:
    return bag_view(text) if level == "bag" else get_view(level)(text)


def target_of(level: str, text: str) -> str:
    """What the realiser learns to write for ``text`` at ``level``."""
    return roles_surface(text) if level == "roles" else " ".join(text.split())


def view_plan_words(view: str) -> tuple[list[str], list[int], list[int]]:
    """A view's words (a quotation's :data:`~authorguard.text.atoms.ATOM_SPACE` read as spaces), the word counts after
    which a sentence mark stands (a constraint's ``breaks``) and those
    after which a question ends (``questions``: a question mark in the view)."""
    words: list[str] = []
    breaks: list[int] = []
    questions: list[int] = []
    for word in view.split():
        if word == SENTENCE_MARK:
            breaks.append(len(words))
        elif word == QUESTION_MARK:
            questions.append(len(words))
        else:
            words.append(word.replace(ATOM_SPACE, " "))  # a quotation's spaces are written as spaces
    return words, breaks, questions


def view_kind(level: str) -> str:
    return "bag" if level in ("bag", "syntf") else "ordered"


def training_pairs(
    config: TrainingConfig, count_tokens, corpora: dict | None = None, accepts=None
) -> tuple[list[dict], dict]:
    """``pairs + held_out`` rows ``{"level", "view", "text", "author"}`` (the last ``held_out`` are the validation
    rows) and the counts (authors per dataset, chunks skipped for a short view or a target outside the
    constraint's language, rows per level). ``accepts(view, target)``: the constraint's check of a ``roles``
    target (:func:`~authorguard.neural.realiser.constrained.roles_accepts`)."""
    from authorguard.neural.tarot.config import PromptConfig
    from authorguard.neural.tarot.data import training_prompts

    wanted = config.pairs + config.held_out
    # some chunks have too short a view: ask for a few more than needed
    prompts = training_prompts(
        PromptConfig(
            prompts=int(wanted * 1.05) + 10,
            texts_per_author=config.texts_per_author,
            min_words=config.min_words,
            datasets=config.datasets,
            seed=config.seed,
        ),
        count_tokens,
        config.max_chunk_tokens,
        corpora,
    )
    names = sorted(config.levels)
    shares = np.array([config.levels[n] for n in names], dtype=float)
    rng = np.random.default_rng(config.seed)
    levels = rng.choice(len(names), size=len(prompts.texts), p=shares / shares.sum())
    rows, skipped, off_language = [], 0, 0
    for text, author, level in zip(prompts.texts, prompts.authors, levels):
        view = chunk_view(names[level], text)
        if len(view_words(view)) < MIN_VIEW_WORDS:
            skipped += 1
            continue
        # the target is one paragraph: hard line breaks (20 Newsgroups' wrapping) are layout, not content
        target = target_of(names[level], text)
        if accepts is not None and names[level] == "roles" and not accepts(view, target):
            off_language += 1
            continue
        rows.append({"level": names[level], "view": view, "text": target, "author": author})
        if len(rows) == wanted:
            break
    if len(rows) < wanted:
        from authorguard.exceptions import InputError

        raise InputError(f"realiser data: {len(rows)} usable chunks, {wanted} needed (pairs + held_out)")
    per_level = {n: sum(r["level"] == n for r in rows) for n in names}
    return rows, {
        "sources": prompts.counts,
        "skipped_short_view": skipped,
        "skipped_off_language": off_language,
        "rows_per_level": per_level,
    }
