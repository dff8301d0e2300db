"""Shared fixtures: real data from ../shared/data (20 Newsgroups, GloVe, NLTK) and a global seed."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

# Tests and CI read local copies of the corpora: point the data directory (and NLTK) at ../shared/data.
os.environ.setdefault("AUTHORGUARD_DATA", str(SHARED_DATA))
os.environ.setdefault("NLTK_DATA", str(SHARED_DATA / "nltk_data"))
GLOVE_TOP100K = Path(os.environ["AUTHORGUARD_DATA"]) / "glove" / "glove.6B.50d.top100k.txt.gz"

SMALL_WORDS = [
    "a", "i", "cat", "cats", "dog", "kitten", "puppy", "car", "truck", "catalog", "democracy", "election", "vote",
    "banana", "apple", "orange", "running", "run", "god", "atheist", "hockey", "game", "computer", "disk",
]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("AUTHORGUARD_CACHE", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20181)


@pytest.fixture(scope="session")
def small_vectors():
    """Real GloVe 6B 50d vectors of ~24 words (from the staged top-100k file)."""
    from authorguard.embeddings.glove import load_glove_text

    return load_glove_text(GLOVE_TOP100K, vocabulary=SMALL_WORDS)


@pytest.fixture(scope="session")
def newsgroups():
    from authorguard.data.newsgroups import load_20newsgroups

    return load_20newsgroups()


@pytest.fixture(scope="session")
def newsgroups_sample(newsgroups):
    """300 training messages from three newsgroups (seeded)."""
    groups = {"rec.sport.hockey", "sci.space", "talk.religion.misc"}
    positions = [i for i, (g, s) in enumerate(zip(newsgroups.labels, newsgroups.splits)) if g in groups and s == "train"]
    chosen = np.sort(np.random.default_rng(7).choice(positions, size=300, replace=False))
    return newsgroups.subset(chosen)
