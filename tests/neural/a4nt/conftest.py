"""Fixtures of the A⁴NT tests: a two-class toy language whose classes differ in word choice, and a tiny model
folder trained on the real blog-age setting."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")

SHARED = ["the", "a", "my", "day", "was", "went", "to", "school", "work", "home", "and", "then", "we", "i", "."]
STYLE = {
    0: ["omg", "lol", "totally", "awesome", "like", "so"],
    1: ["indeed", "rather", "quite", "pleasant", "however", "thus"],
}


def toy_sentences(label: int, n: int, rng: np.random.Generator) -> list[list[str]]:
    """Sentences of 6-10 tokens: shared words with two or three words of the class's own style."""
    out = []
    for _ in range(n):
        words = list(rng.choice(SHARED, size=int(rng.integers(4, 8))))
        for _ in range(int(rng.integers(2, 4))):
            words.insert(int(rng.integers(len(words) + 1)), str(rng.choice(STYLE[label])))
        out.append(words)
    return out


@pytest.fixture(scope="module")
def toy():
    """(config, data, vocabulary) of the toy language: 200 training sentences per class, 100 validation."""
    from authorguard.neural.a4nt.config import A4NTConfig
    from authorguard.neural.a4nt.data import SettingData
    from authorguard.neural.a4nt.text import Vocabulary

    rng = np.random.default_rng(7)
    train = {c: toy_sentences(c, 200, rng) for c in (0, 1)}
    held = [(s, c) for c in (0, 1) for s in toy_sentences(c, 50, rng)]
    vocabulary = Vocabulary.build([s for c in train for s in train[c]], 100)
    data = SettingData(
        ["a", "b"],
        [[vocabulary.encode(s) for s in train[c]] for c in (0, 1)],
        [vocabulary.encode(s) for s, _ in held],
        [c for _, c in held],
        {},
    )
    config = A4NTConfig(
        embedding_dim=16,
        hidden_size=32,
        dropout=0.0,
        batch_size=32,
        pretrain_batch_size=32,
        classifier_steps=60,
        language_model_steps=80,
        autoencoder_steps=150,
        adversarial_steps=60,
        max_tokens=12,
        holdouts=(),
        checkpoint_every=20,
        generator_learning_rate=3e-3,
        discriminator_learning_rate=1e-3,
        pretrain_learning_rate=5e-3,
        classifier_learning_rate=5e-3,
    )
    return config, data, vocabulary


TINY = {
    "vocabulary_size": 1500,
    "max_sentences_per_class": 250,
    "validation_sentences": 100,
    "punkt_training_words": 30000,
    "embedding_dim": 16,
    "hidden_size": 24,
    "batch_size": 16,
    "pretrain_batch_size": 32,
    "classifier_steps": 15,
    "holdouts": ["cnn-8", "lstm-cnn-8"],
    "holdout_steps": 5,
    "language_model_steps": 8,
    "autoencoder_steps": 10,
    "adversarial_steps": 6,
    "checkpoint_every": 4,
    "max_tokens": 20,
}


@pytest.fixture(scope="session")
def blog_age_folder(tmp_path_factory):
    """A tiny model folder trained on the real blog-age setting through the CLI (every stage, cycml-lang)."""
    from typer.testing import CliRunner

    from authorguard.cli.app import app

    root = tmp_path_factory.mktemp("a4nt")
    config = root / "tiny.json"
    config.write_text(json.dumps(TINY), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["a4nt", "train", "--setting", "blog-age", "--config", str(config), "-o", str(root / "model")]
    )
    assert result.exit_code == 0, result.output
    return root / "model"


@pytest.fixture(scope="session")
def neutral_folder(blog_age_folder, tmp_path_factory):
    """A copy of the tiny blog-age folder with the neutral objective trained through the CLI."""
    import shutil

    from typer.testing import CliRunner

    from authorguard.cli.app import app

    root = tmp_path_factory.mktemp("a4nt-neutral")
    folder = root / "model"
    shutil.copytree(blog_age_folder, folder)
    config = root / "neutral.json"
    config.write_text(json.dumps({**TINY, "objective": "neutral"}), encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            "a4nt",
            "train",
            "--setting",
            "blog-age",
            "--config",
            str(config),
            "-o",
            str(folder),
            "--stage",
            "autoencoder",
            "--stage",
            "adversarial",
        ],
    )
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="session")
def documents():
    """Six blog-age test documents (their first 120 words) and their age classes."""
    from authorguard.neural.a4nt.config import A4NTConfig
    from authorguard.neural.a4nt.data import setting_corpus

    test = setting_corpus(A4NTConfig(setting="blog-age")).split("test")
    return [" ".join(t.split()[:120]) for t in test.texts[:6]], list(test.labels[:6])
