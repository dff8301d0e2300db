"""The author encoder's data: author pools disjoint from every evaluation scenario, and episode sampling.

:func:`author_pools` loads each dataset, removes every author that a benchmark scenario of that dataset selects
(split seed 0; BAC-10/20, blog-age, blog-gender on the blogs; the Top-10 Any/Multi authors of 20 Newsgroups; AMT
and the speeches are evaluation-only and never trained on), keeps authors with enough texts of enough words, and
sets ``heldout_authors`` of them aside for retrieval. Author keys are ``"<dataset>:<author>"``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from authorguard import registry
from authorguard.exceptions import InputError
from authorguard.neural.author_encoder.config import AuthorEncoderConfig

# Datasets whose every author is evaluated on: never training data.
EVALUATION_ONLY = ("amt", "drexel_1", "speeches", "federalist")


def evaluation_authors(dataset: str, corpus) -> set:
    """Every author that an evaluation scenario on ``dataset`` selects."""
    from authorguard.data.scenarios import parse_scenario
    from authorguard.data.splits import SCENARIOS

    if dataset in EVALUATION_ONLY:
        return set(corpus.authors)
    chosen: set = set()
    for scenario in SCENARIOS.values():
        if scenario.dataset == dataset:
            chosen.update(scenario.selection.select(corpus).authors)
    if dataset == "20news":
        for name in ("Top10-Any", "Top10-Multi"):
            chosen.update(parse_scenario(name).authors(corpus))
    return chosen


@dataclass
class AuthorPools:
    """``train`` and ``heldout``: author key -> texts; ``excluded``: dataset -> number of evaluation authors removed."""

    train: dict = field(default_factory=dict)
    heldout: dict = field(default_factory=dict)
    excluded: dict = field(default_factory=dict)

    def summary(self) -> dict:
        return {
            "train_authors": len(self.train),
            "train_texts": sum(map(len, self.train.values())),
            "heldout_authors": len(self.heldout),
            "heldout_texts": sum(map(len, self.heldout.values())),
            "excluded_evaluation_authors": dict(self.excluded),
        }


def author_pools(config: AuthorEncoderConfig, corpora: dict | None = None) -> AuthorPools:
    """Train and held-out pools from ``config.datasets`` (``corpora``: dataset -> Corpus, to skip loading)."""
    rng = np.random.default_rng(config.seed)
    pools: dict[str, list[str]] = {}
    excluded: dict[str, int] = {}
    for dataset in config.datasets:
        if dataset in EVALUATION_ONLY:
            raise InputError(
                f"author encoder: dataset {dataset!r} is evaluation-only (every author is attacked); train on others"
            )
        corpus = corpora[dataset] if corpora and dataset in corpora else registry.datasets.get(dataset)()
        banned = evaluation_authors(dataset, corpus)
        excluded[dataset] = len(banned)
        texts = defaultdict(list)
        for author, text in zip(corpus.authors, corpus.texts):
            if author is not None and author not in banned and len(text.split()) >= config.min_words:
                texts[author].append(text)
        for author in sorted(texts):
            mine = texts[author]
            if len(mine) >= config.min_texts_per_author:
                if len(mine) > config.max_texts_per_author:
                    mine = [mine[i] for i in np.sort(rng.choice(len(mine), config.max_texts_per_author, replace=False))]
                pools[f"{dataset}:{author}"] = mine
    keys = sorted(pools)
    if len(keys) < config.heldout_authors + config.authors_per_batch:
        raise InputError(
            f"author encoder: {len(keys)} eligible authors, need {config.heldout_authors} held out + "
            f"{config.authors_per_batch} per batch"
        )
    heldout = set(rng.choice(keys, config.heldout_authors, replace=False).tolist())
    return AuthorPools(
        {k: pools[k] for k in keys if k not in heldout}, {k: pools[k] for k in keys if k in heldout}, excluded
    )


def sample_batch(
    pool: dict, authors_per_batch: int, texts_per_episode: int, rng: np.random.Generator
) -> tuple[list[str], int]:
    """Texts of one training batch: for each of ``authors_per_batch`` distinct authors, two disjoint episodes.

    Returns the flat text list ordered (author, episode, text) and the number of authors; episode e of author a
    is texts[(2a + e) * k : (2a + e + 1) * k] with k = ``texts_per_episode``.
    """
    keys = sorted(pool)
    chosen = rng.choice(len(keys), authors_per_batch, replace=False)
    texts: list[str] = []
    for index in chosen:
        mine = pool[keys[index]]
        picked = rng.choice(len(mine), 2 * texts_per_episode, replace=False)
        texts.extend(mine[i] for i in picked)
    return texts, authors_per_batch
