"""The candidate sets of a check: the writer beside background authors with as much writing, each cut into pieces
as long as the text (runs of counted blocks), nested and drawn by seed, with held-out pieces for calibration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from authorguard.check.background import Background
from authorguard.check.config import PIECE_WORDS, WRITER
from authorguard.check.features import BLOCK_WORDS
from authorguard.exceptions import InputError


@dataclass
class Candidates:
    """One candidate set: ``names[0]`` is the writer; ``train``/``labels`` the training pieces (each a run of rows
    of the check's :class:`~authorguard.check.features.BlockMatrix`) and their authors; ``held``/``held_labels``
    the background authors' calibration pieces (indices into ``names``)."""

    names: list
    train: list
    labels: list
    held: list = field(default_factory=list)
    held_labels: list = field(default_factory=list)


def piece_words(text_words: int) -> int:
    """The length of the pieces every candidate is learnt from: the text's, within :data:`PIECE_WORDS`, to the
    nearest block (:data:`~authorguard.check.features.BLOCK_WORDS` words)."""
    return int(BLOCK_WORDS * round(np.clip(text_words, *PIECE_WORDS) / BLOCK_WORDS))


def runs_of(rows: Sequence[int], blocks: int) -> list[list[int]]:
    """``rows`` cut into runs of ``blocks`` consecutive rows; a last run shorter than half joins the one before."""
    rows = list(rows)
    runs = [rows[i : i + blocks] for i in range(0, len(rows), blocks)]
    if len(runs) > 1 and len(runs[-1]) < blocks / 2:
        last = runs.pop()
        runs[-1] = runs[-1] + last
    return runs


def without_the_writer(background: Background, writing: Sequence[str]) -> tuple[Background, list[str]]:
    """``background`` less the authors any of whose documents is one of ``writing`` (the text and the known
    documents, whitespace-normalised): a writer whose posts are in the staged corpus would otherwise compete with
    themselves. Returns (background, the authors left out). Only documents whose first non-space characters match
    one of ``writing``'s are normalised whole (the blog pool's 47,000 posts would otherwise cost ~0.4 s a check)."""

    def opening(document: str) -> str:
        return "".join(document[:1000].split())[:64]

    mine = {" ".join(w.split()) for w in writing}
    openings = {opening(w) for w in writing}
    yours = [
        author
        for author, documents in background.authors.items()
        if any(opening(d) in openings and " ".join(d.split()) in mine for d in documents)
    ]
    return (background.without(yours), yours) if yours else (background, [])


def background_runs(
    features, blocks: int, known_words: int, keep: int, rng: np.random.Generator, needed: int, among: set | None = None
) -> list:
    """[(author, runs of pool block rows)] in a seeded order, the first ``needed``: each author's first blocks up
    to as many words as the writer's plus ``keep`` pieces, cut into runs; authors with at least half the writer's
    known words (and one piece) to learn from besides ``keep`` held-out pieces. ``among``: the pool's authors that
    may be drawn (default: all)."""
    out: list[tuple[str, list[list[int]]]] = []
    limit = known_words + keep * blocks * BLOCK_WORDS
    for i in rng.permutation(len(features.authors)):
        if len(out) >= needed:
            break
        if among is not None and features.authors[int(i)] not in among:
            continue
        rows = features.blocks_of(int(i))
        words = np.cumsum(features.block_words[rows.start : rows.stop])
        used = int(np.searchsorted(words, limit)) + 1
        runs = runs_of(range(rows.start, rows.start + min(used, len(rows))), blocks)
        train = runs[:-keep]
        if not train or len(runs) - len(train) != keep:
            continue
        train_words = int(features.block_words[[r for run in train for r in run]].sum())
        if train_words >= known_words / 2:
            out.append((features.authors[int(i)], runs))
    return out


def candidate_sets(sizes: Sequence[int], writer_runs: list, pool: list, statements: list) -> list[Candidates]:
    """Nested candidate sets, smallest first; sizes beyond the background are cut to it, and said."""
    sets, seen = [], set()
    for size in sorted(set(sizes)):
        others = pool[: size - 1]
        if len(others) < size - 1 and len(others) + 1 not in seen:
            statements.append(
                f"Only {len(pool)} background authors have enough writing to stand beside yours "
                f"(half as many words at least): the set of {size} candidates is {len(others) + 1}."
            )
        if not others or len(others) + 1 in seen:
            continue
        seen.add(len(others) + 1)
        names = [WRITER] + [name for name, _, _ in others]
        train = list(writer_runs) + [run for _, runs, _ in others for run in runs]
        labels = [WRITER] * len(writer_runs) + [name for name, runs, _ in others for _ in runs]
        held = [run for _, _, runs in others for run in runs]
        held_labels = [1 + i for i, (_, _, runs) in enumerate(others) for _ in runs]
        sets.append(Candidates(names, train, labels, held, held_labels))
    if not sets:
        raise InputError("check: the background has no author with enough writing to compare with yours")
    return sets
