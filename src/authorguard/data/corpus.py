"""The in-memory corpus every method, attacker and task consumes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from authorguard.exceptions import InputError

_BUILT_IN_COLUMNS = {"ids", "texts", "authors", "author", "labels", "label", "splits", "split"}


@dataclass(frozen=True)
class Corpus:
    """Documents with their ids and metadata, all of length n_documents.

    Attributes
    ----------
    ids : tuple of str
        Unique document ids.
    texts : tuple of str
    authors : tuple of str or None
        Author id of each document (e.g. a normalised e-mail address); None where unknown.
    labels : tuple of str or None
        Task label of each document (e.g. the newsgroup).
    splits : tuple of str
        ``"train"`` or ``"test"`` (or ``"all"`` for unsplit corpora).
    name : str
    attributes : dict of str -> tuple
        Further label columns, one value per document (e.g. ``gender``, ``age_group``, ``topic``); a task or a
        scenario names the column it uses (:meth:`column`).
    """

    ids: tuple[str, ...]
    texts: tuple[str, ...]
    # None: unknown for every document (authors, labels) or unsplit ("all"), made a tuple by __post_init__; mypy
    # cannot type a field whose argument is wider than its value after __post_init__, hence the ignores
    authors: tuple[str | None, ...] = None  # type: ignore[assignment]
    labels: tuple[str | None, ...] = None  # type: ignore[assignment]
    splits: tuple[str, ...] = None  # type: ignore[assignment]
    name: str = "corpus"
    metadata: dict = field(default_factory=dict, compare=False)
    attributes: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.ids)
        for attribute, default in (("authors", None), ("labels", None), ("splits", "all")):
            value = getattr(self, attribute)
            object.__setattr__(self, attribute, tuple([default] * n) if value is None else tuple(value))
        object.__setattr__(self, "ids", tuple(self.ids))
        object.__setattr__(self, "texts", tuple(self.texts))
        for attribute in ("texts", "authors", "labels", "splits"):
            if len(getattr(self, attribute)) != n:
                raise InputError(
                    f"corpus {self.name!r}: {attribute} has {len(getattr(self, attribute))} entries, ids has {n}"
                )
        attributes = {str(k): tuple(v) for k, v in dict(self.attributes).items()}
        for key, values in attributes.items():
            if key in _BUILT_IN_COLUMNS:
                raise InputError(f"corpus {self.name!r}: attribute {key!r} shadows a built-in column")
            if len(values) != n:
                raise InputError(f"corpus {self.name!r}: attribute {key!r} has {len(values)} entries, ids has {n}")
        object.__setattr__(self, "attributes", attributes)
        if len(set(self.ids)) != n:
            seen: set[str] = set()
            for duplicate in self.ids:
                if duplicate in seen:
                    break
                seen.add(duplicate)
            raise InputError(f"corpus {self.name!r}: duplicate document id {duplicate!r}")

    def __len__(self) -> int:
        return len(self.ids)

    def subset(self, mask: Sequence[bool] | np.ndarray) -> Corpus:
        """The documents where ``mask`` is true (or at the given integer positions)."""
        index = np.asarray(mask)
        positions = np.flatnonzero(index) if index.dtype == bool else index.astype(int)
        pick = lambda values: tuple(values[i] for i in positions)  # noqa: E731
        return Corpus(
            pick(self.ids),
            pick(self.texts),
            pick(self.authors),
            pick(self.labels),
            pick(self.splits),
            self.name,
            dict(self.metadata),
            {key: pick(values) for key, values in self.attributes.items()},
        )

    @property
    def columns(self) -> list[str]:
        """Every label column: ``authors``, ``labels``, ``splits`` and the attributes."""
        return ["authors", "labels", "splits", *self.attributes]

    def column(self, name: str) -> tuple:
        """The values of one label column, one per document; an unknown name is an error naming the known ones."""
        if name in ("authors", "author"):
            return self.authors
        if name in ("labels", "label"):
            return self.labels
        if name in ("splits", "split"):
            return self.splits
        if name not in self.attributes:
            raise InputError(f"corpus {self.name!r} has no column {name!r} (columns: {', '.join(self.columns)})")
        return self.attributes[name]

    def split(self, name: str) -> Corpus:
        """The documents of one split."""
        return self.subset(np.array([s == name for s in self.splits], dtype=bool))


def describe(corpus: Corpus, top: int = 10) -> dict:
    """Counts a user checks before an experiment: documents, authors, words per document, splits, and per label
    column its number of distinct values and its ``top`` most frequent ones; ``metadata`` counts (e.g. what the
    loader left out) are passed on."""
    words = np.array([len(text.split()) for text in corpus.texts], dtype=np.int64)
    columns = {}
    for name in corpus.columns:
        counts = Counter(value for value in corpus.column(name) if value is not None)
        columns[name] = {
            "distinct": len(counts),
            "missing": sum(value is None for value in corpus.column(name)),
            "top": dict(counts.most_common(top)),
        }
    counted = {key: value for key, value in corpus.metadata.items() if isinstance(value, (int, float, str))}
    return {
        "name": corpus.name,
        "documents": len(corpus),
        "authors": len({a for a in corpus.authors if a is not None}),
        "words_mean": float(words.mean()) if len(words) else 0.0,
        "words_median": float(np.median(words)) if len(words) else 0.0,
        "splits": dict(Counter(corpus.splits)),
        "columns": columns,
        "metadata": counted,
    }


def export_sample(corpus: Corpus, output, *, authors: int, per_author: int) -> dict:
    """Write the ``authors`` most prolific authors of ``corpus`` (those with at least ``per_author`` non-blank
    documents; ties by name) with their first ``per_author`` documents: records to a .jsonl / .csv / .parquet file,
    or one ``AUTHOR-N.txt`` per document to a folder. Returns ``{"documents": n, "authors": k}``."""
    import re
    from pathlib import Path

    from authorguard.data.io import atomic_write, file_format, write_records_file

    by_author: dict[str, list[int]] = {}
    for index, (author, text) in enumerate(zip(corpus.authors, corpus.texts)):
        if author is not None and text.strip():
            by_author.setdefault(str(author), []).append(index)
    eligible = sorted(
        (a for a, docs in by_author.items() if len(docs) >= per_author), key=lambda a: (-len(by_author[a]), a)
    )
    if not eligible:
        raise InputError(f"{corpus.name}: no author has {per_author} documents (lower --per-author)")
    chosen = eligible[:authors]
    picked = [i for a in chosen for i in by_author[a][:per_author]]
    output = Path(output)
    if output.suffix:
        file_format(output)  # an unknown extension fails in one line
        columns = ["labels", "splits", *corpus.attributes]
        rows = [
            {
                "id": str(corpus.ids[i]),
                "text": corpus.texts[i],
                "author": str(corpus.authors[i]),
                **{
                    ("label" if c == "labels" else "split" if c == "splits" else c): corpus.column(c)[i]
                    for c in columns
                },
            }
            for i in picked
        ]
        write_records_file(output, rows)
    else:
        output.mkdir(parents=True, exist_ok=True)
        for author in chosen:
            stem = re.sub(r"[^A-Za-z0-9._-]+", "_", author)[:60]
            for n, i in enumerate(by_author[author][:per_author], 1):
                with atomic_write(output / f"{stem}-{n:03d}.txt") as handle:
                    handle.write(corpus.texts[i])
    return {"documents": len(picked), "authors": len(chosen)}
