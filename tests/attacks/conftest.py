"""Shared fixtures of the attacker tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="module")
def top_author_split(newsgroups):
    """``split(k, n_train, n_test, seed)``: ((train texts, authors), (test texts, authors)) of the k most prolific
    20 Newsgroups authors, ``n_train`` + ``n_test`` seeded messages each."""
    from authorguard.data.scenarios import AuthorshipScenario

    def split(k: int, n_train: int, n_test: int, seed: int = 0):
        selected = AuthorshipScenario(k).select(newsgroups)
        rng = np.random.default_rng(seed)
        train, test = [], []
        for author in sorted(set(selected.authors)):
            mine = rng.permutation([i for i, a in enumerate(selected.authors) if a == author])
            train.extend(mine[:n_train])
            test.extend(mine[n_train : n_train + n_test])
        texts, authors = np.array(selected.texts, dtype=object), np.array(selected.authors, dtype=object)
        return (list(texts[train]), authors[train]), (list(texts[test]), authors[test])

    return split
