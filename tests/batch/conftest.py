"""Fixtures for batch runs: real messages as JSONL, and a small public vocabulary so that workers load fast."""

from __future__ import annotations

import json

import pytest

from tests.conftest import SMALL_WORDS


@pytest.fixture(scope="session")
def messages(newsgroups):
    """400 real test-split messages: (id, text)."""
    test = newsgroups.split("test")
    return list(zip(test.ids[:400], test.texts[:400]))


@pytest.fixture
def jsonl_input(tmp_path, messages):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in messages), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def method_config(tmp_path_factory):
    """SynTF on a public 24-word vocabulary, n = 20 (the method loads in well under a second)."""
    folder = tmp_path_factory.mktemp("config")
    words = folder / "words.txt"
    words.write_text("\n".join(SMALL_WORDS), encoding="utf-8")
    config = folder / "syntf.toml"
    config.write_text(f'epsilon = 30.0\nn_words = 20\nvocabulary = "{words}"\n', encoding="utf-8")
    return config
