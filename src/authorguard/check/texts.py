"""The writer's texts: reading what a person points to (files, a folder, a JSONL), and cutting writing into
pieces of equal length so that every candidate is learnt from, and tested on, texts of one size."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from authorguard.exceptions import InputError

_WORD = re.compile(r"\S+")
_PIECES = re.compile(r"\S+\s*")


def word_count(text: str) -> int:
    """Whitespace-separated words."""
    return len(_WORD.findall(text))


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text of ``data``; a binary or non-UTF-8 file is one line naming ``source``."""
    if b"\x00" in data:
        raise InputError(f"{source} is a binary file, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{source} is not UTF-8 text (byte {error.start})") from None


def read_text_file(path: str | os.PathLike) -> str:
    """The text of one plain-text file; missing, binary, non-UTF-8 or empty files are one line each."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    text = decode_text(path.read_bytes(), str(path))
    if not text.strip():
        raise InputError(f"{path} is empty")
    return text


def jsonl_rows(path: Path, fields: Sequence[str]) -> Iterator[dict]:
    """The rows of a JSONL file that have a non-blank text in ``fields[-1]`` (blank lines and blank texts skipped);
    a line that is not a JSON object with all ``fields`` (the last a string) is one line naming it."""
    for number, line in enumerate(decode_text(path.read_bytes(), str(path)).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise InputError(f"{path}:{number} is not valid JSON") from None
        if not isinstance(row, dict) or any(f not in row for f in fields) or not isinstance(row[fields[-1]], str):
            raise InputError(
                f"{path}:{number} needs the field{'s' if len(fields) > 1 else ''} "
                + " and ".join(repr(f) for f in fields)
            )
        if row[fields[-1]].strip():
            yield row


def _jsonl_texts(path: Path, field: str) -> list[str]:
    return [row[field] for row in jsonl_rows(path, [field])]


def read_writing(paths: Iterable[str | os.PathLike], text_field: str = "text") -> list[str]:
    """Documents from plain-text files (one document each), JSONL files (one document a line, in ``text_field``)
    and folders (their ``.txt`` and ``.jsonl`` files, sorted); order kept. Nothing readable is one line."""
    texts: list[str] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            members = sorted(p for p in path.iterdir() if p.suffix.lower() in (".txt", ".jsonl") and p.is_file())
            if not members:
                raise InputError(f"folder {path} holds no .txt or .jsonl files")
        elif path.exists():
            members = [path]
        else:
            raise InputError(f"{path}: no such file or folder")
        for member in members:
            texts.extend(
                _jsonl_texts(member, text_field) if member.suffix.lower() == ".jsonl" else [read_text_file(member)]
            )
    if not texts:
        raise InputError("the known writing is empty")
    return texts


def cut_pieces(texts: Sequence[str], words: int, limit: int | None = None) -> list[str]:
    """``texts`` joined in order (a blank line between) and cut into pieces of ``words`` words, spacing and
    punctuation kept; a last piece shorter than half of ``words`` joins the one before. ``limit``: the most words
    used in all (the first ones)."""
    tokens = _PIECES.findall("\n\n".join(t.strip() for t in texts))
    if limit is not None:
        tokens = tokens[:limit]
    pieces = ["".join(tokens[i : i + words]).strip() for i in range(0, len(tokens), words)]
    if len(pieces) > 1 and word_count(pieces[-1]) < words / 2:
        last = pieces.pop()
        pieces[-1] = pieces[-1] + " " + last
    return [p for p in pieces if p]
