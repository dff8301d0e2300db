"""The posts a DP-SGD fine-tune counts, each author's bounded first, as token ids grouped by author; and the
format of a labelled post, written for training and prompted for sampling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.dp_text.config import PROMPT, SEPARATOR, DPTextConfig
from authorguard.privacy.author_level import chosen_documents


def format_post(label: str, text: str) -> str:
    """A labelled post as the model reads and writes it: ``Label: <label>`` then ``Post: <text>``."""
    return f"{PROMPT}{label}{SEPARATOR}{' '.join(text.split())}"


def label_prompt(label: str) -> str:
    """What a synthetic post of ``label`` is written after: its label line and the post's marker (the space after
    the marker is the post's first token's, as in training)."""
    return f"{PROMPT}{label}{SEPARATOR.rstrip()}"


@dataclass(frozen=True)
class AuthorExamples:
    """The counted posts: ``token_ids`` (one list of ids per post, end-of-text included, at most ``max_tokens``),
    ``author_of`` (posts,) each post's author index in 0..``n_authors``-1, and what the bound left out
    (``posts_dropped``)."""

    token_ids: list[list[int]]
    author_of: np.ndarray
    n_authors: int
    posts_dropped: int

    def posts_of(self, authors: np.ndarray) -> np.ndarray:
        """Positions of the posts of the author indices ``authors``."""
        return np.flatnonzero(np.isin(self.author_of, authors))


def author_examples(
    texts: Sequence[str],
    authors: Sequence,
    labels: Sequence[str],
    tokenizer,
    config: DPTextConfig,
    seed: int,
    ids: Sequence | None = None,
) -> AuthorExamples:
    """Each author's at most ``config.posts_per_author`` posts (chosen by a seeded hash of (seed, author, id): with
    record ``ids`` the same however the corpus is ordered; None: positions), formatted with their label and
    tokenised."""
    if not (len(texts) == len(authors) == len(labels)):
        raise InputError(f"DP text: {len(texts)} texts, {len(authors)} authors and {len(labels)} labels: one each")
    if len(set(map(str, authors))) < 2:
        raise InputError("DP text: fewer than two authors (the privacy unit): nothing to hide an author among")
    ids = list(range(len(texts))) if ids is None else list(ids)
    if len(ids) != len(texts):
        raise InputError(f"DP text: {len(ids)} ids for {len(texts)} texts")
    chosen = chosen_documents(authors, ids, config.posts_per_author, seed)
    names, author_of = np.unique(np.asarray([str(authors[i]) for i in chosen], dtype=object), return_inverse=True)
    token_ids = [post_token_ids(tokenizer, format_post(str(labels[i]), texts[i]), config.max_tokens) for i in chosen]
    return AuthorExamples(token_ids, author_of.astype(np.int64), len(names), len(texts) - len(chosen))


def post_token_ids(tokenizer, text: str, max_tokens: int) -> list[int]:
    """``text`` then the end of text, as token ids, cut to ``max_tokens``."""
    return tokenizer(text + (tokenizer.eos_token or ""), add_special_tokens=False)["input_ids"][:max_tokens]


def pad_id(tokenizer) -> int:
    """The tokenizer's padding id, else its end of text's."""
    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id


def padded(token_ids: Sequence[Sequence[int]], pad_id: int):
    """(input_ids, attention_mask) tensors (posts, longest) of ``token_ids``, padded on the right."""
    import torch

    longest = max(len(ids) for ids in token_ids)
    input_ids = torch.full((len(token_ids), longest), pad_id, dtype=torch.long)
    mask = torch.zeros((len(token_ids), longest), dtype=torch.long)
    for row, ids in enumerate(token_ids):
        input_ids[row, : len(ids)] = torch.as_tensor(ids, dtype=torch.long)
        mask[row, : len(ids)] = 1
    return input_ids, mask
