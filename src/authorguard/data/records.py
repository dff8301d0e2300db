"""A corpus from your own file: one record per document with its text, author, label and split."""

from __future__ import annotations

import os

from authorguard.data.corpus import Corpus
from authorguard.data.io import read_records
from authorguard.exceptions import InputError

SPLITS = ("train", "test")


def load_records_corpus(
    path: str | os.PathLike,
    *,
    text_field: str = "text",
    id_field: str = "id",
    author_field: str = "author",
    label_field: str | None = "label",
    split_field: str | None = "split",
    name: str | None = None,
) -> Corpus:
    """Read a JSONL, CSV or Parquet file into a :class:`Corpus`.

    Every record needs the text, author, label and split fields (author or label may be null: such documents
    take no part in the attack or the utility task); split must be ``"train"`` or ``"test"``. A file without
    labels or splits: ``label_field=None`` (no labels) and ``split_field=None`` (every document in ``"train"``).
    """
    extra = tuple(field for field in (author_field, label_field, split_field) if field is not None)
    records = read_records(path, text_field=text_field, id_field=id_field, extra_fields=extra)
    splits = records.fields[split_field] if split_field is not None else ["train"] * len(records.texts)
    for position, split in enumerate(splits):
        if split not in SPLITS:
            raise InputError(
                f"{path}: record {position}: field {split_field!r} must be 'train' or 'test', got {split!r}"
            )
    return Corpus(
        ids=tuple(str(i) for i in records.ids),
        texts=tuple(records.texts),
        authors=tuple(records.fields[author_field]),
        labels=tuple(records.fields[label_field]) if label_field is not None else (None,) * len(records.texts),
        splits=tuple(splits),
        name=name or os.path.basename(str(path)),
    )
