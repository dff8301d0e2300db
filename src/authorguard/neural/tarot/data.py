"""TAROT's training prompts: text of authors that no evaluation scenario selects.

The paper trained on Yelp reviews, a corpus disjoint from its evaluation sets; the closest here is the text of
blog and 20 Newsgroups authors that no benchmark scenario attacks (the author encoder's rule,
:func:`~authorguard.neural.author_encoder.episodes.evaluation_authors`). Per author at most ``texts_per_author``
texts of at least ``min_words`` words; the (author, text) items are shuffled with ``seed``; each item gives one
prompt: the first chunk (:func:`~authorguard.neural.tarot.prompts.chunk_documents`) of at least ``min_words``
words. Prompts ``offset`` .. ``offset + prompts`` are taken, so stages with disjoint ranges train on disjoint text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from authorguard import registry
from authorguard.exceptions import InputError
from authorguard.neural.author_encoder.episodes import EVALUATION_ONLY, evaluation_authors
from authorguard.neural.tarot.config import PromptConfig
from authorguard.neural.tarot.prompts import chunk_documents


@dataclass(frozen=True)
class TrainingPrompts:
    """``texts`` (the chunks to rewrite), ``authors`` (``"dataset:author"``) aligned with them, and ``counts``
    (eligible authors and items per dataset, evaluation authors excluded)."""

    texts: list
    authors: list
    counts: dict


def training_prompts(
    config: PromptConfig, count_tokens: Callable[[str], int], max_tokens: int, corpora: dict | None = None
) -> TrainingPrompts:
    """The prompts of ``config`` (``corpora``: dataset -> Corpus, to skip loading)."""
    items: list[tuple[str, str]] = []
    counts: dict = {}
    for dataset in config.datasets:
        if dataset in EVALUATION_ONLY:
            raise InputError(f"TAROT prompts: dataset {dataset!r} is evaluation-only (every author is attacked)")
        corpus = corpora[dataset] if corpora and dataset in corpora else registry.datasets.get(dataset)()
        banned = evaluation_authors(dataset, corpus)
        taken: dict = {}
        for author, text in zip(corpus.authors, corpus.texts):
            if author is None or author in banned or len(text.split()) < config.min_words:
                continue
            if taken.get(author, 0) < config.texts_per_author:
                taken[author] = taken.get(author, 0) + 1
                items.append((f"{dataset}:{author}", text))
        counts[dataset] = {
            "authors": len(taken),
            "texts": sum(taken.values()),
            "excluded_evaluation_authors": len(banned),
        }
    order = np.random.default_rng(config.seed).permutation(len(items))
    texts, authors = [], []
    needed = config.offset + config.prompts
    for index in order:
        author, text = items[index]
        chunk = next(
            (
                c.text
                for c in chunk_documents([text], count_tokens, max_tokens)
                if len(c.text.split()) >= config.min_words
            ),
            None,
        )
        if chunk is not None:
            texts.append(chunk)
            authors.append(author)
        if len(texts) >= needed:
            break
    if len(texts) < needed:
        raise InputError(
            f"TAROT prompts: {len(texts)} eligible texts, {needed} needed (offset {config.offset} + "
            f"prompts {config.prompts})"
        )
    return TrainingPrompts(texts[config.offset :], authors[config.offset :], counts)
