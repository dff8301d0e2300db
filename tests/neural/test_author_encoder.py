"""The author encoder: contrastive training on a few real bloggers, checkpoint resume, save / load, the packaged
model, retrieval scoring and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("peft")

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.neural.author_encoder.config import AuthorEncoderConfig
from authorguard.neural.author_encoder.episodes import AuthorPools, evaluation_authors, sample_batch
from authorguard.neural.author_encoder.model import AuthorEncoder, load_author_encoder
from authorguard.neural.author_encoder.retrieval import retrieval_scores
from authorguard.neural.author_encoder.trainer import contrastive_loss, train_author_encoder

TINY = {
    "max_tokens": 64,
    "embedding_dim": 32,
    "authors_per_batch": 6,
    "texts_per_episode": 2,
    "steps": 30,
    "learning_rate": 3e-3,
    "warmup_steps": 2,
    "checkpoint_every": 15,
    "min_texts_per_author": 4,
    "heldout_authors": 6,
    "seed": 0,
}


@pytest.fixture(scope="module")
def blogs():
    from authorguard import registry

    return registry.datasets.get("blogs")()


@pytest.fixture(scope="module")
def pools(blogs):
    """12 bloggers that no evaluation scenario uses: 8 posts each to train on, 6 further posts each held out."""
    banned = evaluation_authors("blogs", blogs)
    texts: dict[str, list[str]] = {}
    for author, text in zip(blogs.authors, blogs.texts):
        if author not in banned and len(text.split()) >= 30:
            texts.setdefault(author, []).append(text)
    keys = [k for k in sorted(texts) if len(texts[k]) >= 14][:12]
    return AuthorPools({k: texts[k][:8] for k in keys}, {k: texts[k][8:14] for k in keys}, {"blogs": len(banned)})


def _same_minus_different(encoder, heldout) -> float:
    keys = sorted(heldout)
    vectors = encoder.encode([t for k in keys for t in heldout[k][:6]]).reshape(len(keys), 6, -1)
    similarity = np.einsum("aid,bjd->abij", vectors, vectors)
    same = np.mean([similarity[a, a][~np.eye(6, dtype=bool)].mean() for a in range(len(keys))])
    different = np.mean([similarity[a, b].mean() for a in range(len(keys)) for b in range(len(keys)) if a != b])
    return float(same - different)


@pytest.fixture(scope="module")
def trained(pools, tmp_path_factory):
    folder = tmp_path_factory.mktemp("encoder")
    config = AuthorEncoderConfig(**TINY)
    result = train_author_encoder(config, folder, pools=pools, evaluate=False)
    return folder, config, result


def test_contrastive_loss_falls_and_authors_separate(trained, pools):
    import torch

    folder, config, result = trained
    from authorguard.neural.author_encoder.model import build_network

    untrained = AuthorEncoder(*build_network(config, seed=0), config)
    encoder = AuthorEncoder.load(result.folder)
    # a fixed batch of training authors, scored before and after training
    texts, n = sample_batch(pools.train, 6, 2, np.random.default_rng(99))

    def loss(model) -> float:
        batch = model.tokenize(texts)
        with torch.inference_mode():
            model.module.eval()
            return float(
                contrastive_loss(model.module(batch["input_ids"], batch["attention_mask"]), n, 2, config.temperature)
            )

    assert loss(encoder) < loss(untrained) - 0.1
    assert np.mean(result.losses[-6:]) < np.mean(result.losses[:6])
    # held-out texts of the trained authors: same-author texts closer than different-author texts, more so after
    gap_after = _same_minus_different(encoder, pools.heldout)
    assert gap_after > 0 and gap_after > _same_minus_different(untrained, pools.heldout)


def test_training_resumes_from_its_checkpoint(trained, pools):
    folder, config, result = trained
    longer = AuthorEncoderConfig(**{**TINY, "steps": 30})
    again = train_author_encoder(longer, folder, pools=pools, evaluate=False)
    assert again.resumed_at == 30 and again.losses == result.losses  # nothing left to do: same losses
    other = AuthorEncoderConfig(**{**TINY, "learning_rate": 1e-4})
    with pytest.raises(InputError, match="another config"):
        train_author_encoder(other, folder, pools=pools, evaluate=False)


def test_save_load_round_trip_and_provenance(trained):
    _, config, result = trained
    encoder = AuthorEncoder.load(result.folder)
    again = AuthorEncoder.load(result.folder)
    texts = ["I love writing about my day.", "The quarterly report is attached for review."]
    np.testing.assert_allclose(encoder.encode(texts), again.encode(texts), atol=1e-6)
    assert np.allclose(np.linalg.norm(encoder.encode(texts), axis=1), 1)
    provenance = json.loads((result.folder / "provenance.json").read_text())
    assert provenance["steps"] == 30 and provenance["config"]["embedding_dim"] == 32
    assert -1 <= encoder.author_similarity(texts[0], texts[1]) <= 1
    assert encoder.author_similarity(texts[0], [texts[0]]) == pytest.approx(1, abs=1e-5)


def test_an_incompatible_saved_model_fails_with_one_line(trained, tmp_path):
    import shutil

    _, _, result = trained
    copy = tmp_path / "copy"
    shutil.copytree(result.folder, copy)
    settings = json.loads((copy / "encoder.json").read_text())
    (copy / "encoder.json").write_text(json.dumps({**settings, "embedding_dim": 64}))  # the head holds 32
    with pytest.raises(InputError, match="cannot be loaded") as error:
        AuthorEncoder.load(copy)
    assert "\n" not in str(error.value) and str(copy) in str(error.value)


def test_retrieval_scores_are_perfect_for_an_oracle_and_chance_for_noise():
    pool = {f"a{i}": [f"author {i} text {j}" for j in range(8)] for i in range(20)}

    def oracle(texts):
        ids = [int(t.split()[1]) for t in texts]
        return np.eye(20)[ids]

    scores = retrieval_scores(pool, oracle, episode_sizes=(1, 4), seed=0)
    assert scores[1]["mrr"] == 1.0 and scores[4]["recall@8"] == 1.0
    noise = retrieval_scores(pool, lambda texts: np.random.default_rng(0).normal(size=(len(texts), 64)), seed=0)
    assert noise[4]["mrr"] < 0.5


def test_the_packaged_encoder_loads_with_its_provenance():
    encoder = load_author_encoder()
    assert encoder.provenance["command"].startswith("authorguard train author-encoder")
    assert encoder.provenance["retrieval"]["author-encoder"]["4"]["authors"] >= 100
    assert encoder.encode(["a short text"]).shape == (1, encoder.config.embedding_dim)


def test_bad_config_and_missing_files(tmp_path):
    from authorguard.utils.validation import dataclass_from_params

    with pytest.raises(InputError, match="unknown key 'stepz'"):
        dataclass_from_params(AuthorEncoderConfig, {"stepz": 3}, "enc.toml")
    with pytest.raises(InputError, match="two episodes"):
        AuthorEncoderConfig(min_texts_per_author=3, texts_per_episode=2)
    with pytest.raises(DataNotFoundError, match="missing"):
        AuthorEncoder.load(tmp_path)
    with pytest.raises(InputError, match="evaluation-only"):
        from authorguard.neural.author_encoder.episodes import author_pools

        author_pools(AuthorEncoderConfig(datasets=("amt",)))
