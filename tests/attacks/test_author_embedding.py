"""The author-embedding attacker (nearest centroid in the packaged author encoder's space) on real authors."""

from __future__ import annotations

import pytest

pytest.importorskip("peft")

from authorguard.attacks.author_embedding import AuthorEmbeddingAttacker
from authorguard.data.release import Release
from authorguard.exceptions import DataNotFoundError, InputError


def test_nearest_centroid_beats_chance_on_unseen_authors(top_author_split):
    # the 20news Top-10 authors are excluded from the encoder's training data
    (train_texts, train_authors), (test_texts, test_authors) = top_author_split(4, 20, 15, seed=1)
    attacker = AuthorEmbeddingAttacker(random_state=0, windows=2)
    scores = attacker.evaluate(
        Release.from_texts(train_texts), train_authors, Release.from_texts(test_texts), test_authors
    )
    assert scores["accuracy"] > 0.45  # chance 0.25, sd ~0.06 on 60 documents
    assert attacker.centroids_.shape == (4, attacker.encoder_.config.embedding_dim)


def test_bad_options_and_missing_encoder(tmp_path):
    with pytest.raises(InputError, match="windows"):
        AuthorEmbeddingAttacker(windows=0)
    attacker = AuthorEmbeddingAttacker(encoder_path=str(tmp_path))
    with pytest.raises(DataNotFoundError, match="missing adapter_model.safetensors"):
        attacker.fit(Release.from_texts(["one text", "two texts"]), ["a", "b"])
