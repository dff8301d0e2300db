"""Reading a person's writing (files, folders, JSONL) and cutting it into pieces."""

from __future__ import annotations

import json

import pytest

from authorguard.check.background import Background, read_background
from authorguard.check.texts import cut_pieces, read_text_file, read_writing, word_count
from authorguard.exceptions import InputError


def test_pieces_keep_every_word_in_order_and_respect_the_limit():
    words = [f"w{i}," for i in range(1030)]
    text = " ".join(words)
    pieces = cut_pieces([" ".join(words[:400]), " ".join(words[400:])], 100)
    assert " ".join(pieces).split() == words
    assert all(word_count(p) in (100, 130) for p in pieces)  # the short last piece joins the one before
    assert sum(word_count(p) for p in cut_pieces([text], 100, limit=250)) == 250
    assert cut_pieces(["one two three"], 100) == ["one two three"]


def test_reads_files_folders_and_jsonl(tmp_path):
    (tmp_path / "a.txt").write_text("first document")
    (tmp_path / "b.jsonl").write_text(json.dumps({"text": "second"}) + "\n\n" + json.dumps({"text": "third"}) + "\n")
    (tmp_path / "ignored.csv").write_text("x")
    assert read_writing([tmp_path]) == ["first document", "second", "third"]
    assert read_writing([tmp_path / "b.jsonl", tmp_path / "a.txt"]) == ["second", "third", "first document"]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: d / "missing", "no such file or folder"),
        (lambda d: (d / "empty").mkdir() or d / "empty", "holds no .txt or .jsonl files"),
        (lambda d: (d / "bin.txt").write_bytes(b"\x89PNG\x00\x01") and d / "bin.txt", "is a binary file"),
        (lambda d: (d / "latin.txt").write_bytes("caf\xe9".encode("latin-1")) and d / "latin.txt", "is not UTF-8"),
        (lambda d: (d / "blank.txt").write_text("  \n") and d / "blank.txt", "is empty"),
        (lambda d: (d / "bad.jsonl").write_text("{not json\n") and d / "bad.jsonl", "is not valid JSON"),
        (lambda d: (d / "field.jsonl").write_text('{"body": "x"}\n') and d / "field.jsonl", "needs the field 'text'"),
    ],
)
def test_bad_writing_is_one_line(tmp_path, make, message):
    with pytest.raises(InputError, match=message):
        read_writing([make(tmp_path)])


def test_a_text_file_must_exist(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_text_file(tmp_path / "nope.txt")


def test_own_background(tmp_path):
    path = tmp_path / "others.jsonl"
    path.write_text(
        "\n".join(
            json.dumps(r)
            for r in [{"author": "x", "text": "one"}, {"author": 2, "text": "two"}, {"author": "x", "text": "three"}]
        )
    )
    background = read_background(str(path))
    assert background.authors == {"x": ["one", "three"], "2": ["two"]} and len(background.without(["x"])) == 1
    path.write_text(json.dumps({"author": "x", "text": "one"}))
    with pytest.raises(InputError, match="a background needs two at least"):
        read_background(str(path))
    with pytest.raises(InputError, match="has no authors"):
        Background({}, "own", "nothing")
