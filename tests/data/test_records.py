"""A corpus from the user's own records file."""

from __future__ import annotations

import json

import pytest

from authorguard.data import load_dataset
from authorguard.exceptions import InputError


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_round_trip_with_null_authors(tmp_path):
    rows = [
        {"id": "d1", "text": "hello", "author": "ann", "label": "x", "split": "train"},
        {"id": "d2", "text": "bye", "author": None, "label": "y", "split": "test"},
    ]
    corpus = load_dataset("records", path=write(tmp_path / "c.jsonl", rows))
    assert corpus.ids == ("d1", "d2") and corpus.texts == ("hello", "bye")
    assert corpus.authors == ("ann", None) and corpus.labels == ("x", "y") and corpus.splits == ("train", "test")


def test_missing_column_and_bad_split_are_named(tmp_path):
    with pytest.raises(InputError, match=r"record 0 .*has no 'author' field|line 1 has no 'author' field"):
        load_dataset("records", path=write(tmp_path / "a.jsonl", [{"text": "t", "label": "x", "split": "train"}]))
    with pytest.raises(InputError, match=r"field 'split' must be 'train' or 'test', got 'dev'"):
        load_dataset(
            "records", path=write(tmp_path / "b.jsonl", [{"text": "t", "author": "a", "label": "x", "split": "dev"}])
        )
