"""The author-embedding attacker (nearest centroid in the packaged author encoder's space) on real authors."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("peft")

from authorguard.attacks.author_embedding import AuthorEmbeddingAttacker  # noqa: E402
from authorguard.data.release import Release  # noqa: E402
from authorguard.exceptions import DataNotFoundError, InputError  # noqa: E402
from authorguard.experiments.scenarios import AuthorshipScenario  # noqa: E402


def test_nearest_centroid_beats_chance_on_unseen_authors(newsgroups):
    # the 20news Top-10 authors are excluded from the encoder's training data
    selected = AuthorshipScenario(4).select(newsgroups)
    rng = np.random.default_rng(1)
    train, test = [], []
    for author in sorted(set(selected.authors)):
        mine = rng.permutation([i for i, a in enumerate(selected.authors) if a == author])
        train.extend(mine[:20])
        test.extend(mine[20:35])
    texts, authors = np.array(selected.texts, dtype=object), np.array(selected.authors, dtype=object)
    attacker = AuthorEmbeddingAttacker(random_state=0, windows=2)
    scores = attacker.evaluate(Release.from_texts(list(texts[train])), authors[train], Release.from_texts(list(texts[test])), authors[test])
    assert scores["accuracy"] > 0.45  # chance 0.25, sd ~0.06 on 60 documents
    assert attacker.centroids_.shape == (4, attacker.encoder_.config.embedding_dim)


def test_bad_options_and_missing_encoder(tmp_path):
    with pytest.raises(InputError, match="windows"):
        AuthorEmbeddingAttacker(windows=0)
    attacker = AuthorEmbeddingAttacker(encoder_path=str(tmp_path))
    with pytest.raises(DataNotFoundError, match="missing adapter_model.safetensors"):
        attacker.fit(Release.from_texts(["one text", "two texts"]), ["a", "b"])
