"""Resolving an embeddings specification (a registered name, a GloVe text file or ready vectors) to
:class:`~authorguard.embeddings.base.WordVectors`. Kept apart from the interface so that the loaders import the
interface and this resolver imports the loaders, never the other way round."""

from __future__ import annotations

import os
from collections.abc import Iterable

from authorguard import registry
from authorguard.embeddings.base import WordVectors
from authorguard.embeddings.glove import load_glove_text
from authorguard.exceptions import InputError

DEFAULT_EMBEDDINGS = "glove-6b-50d"


def load_word_vectors(
    spec: str | os.PathLike | WordVectors | None = None, vocabulary: Iterable[str] | None = None
) -> WordVectors:
    """Resolve an embeddings specification.

    Parameters
    ----------
    spec : str, path, WordVectors or None
        A registered name (``"glove-6b-50d"``, the default; ``"minilm-static"``), a GloVe text file
        (``.txt`` or ``.txt.gz``), or ready ``WordVectors``.
    vocabulary : iterable of str, optional
        Load only these words (case-folded for uncased vectors). None loads everything.
    """
    if isinstance(spec, WordVectors):
        return spec if vocabulary is None else spec.restrict(vocabulary)
    spec = DEFAULT_EMBEDDINGS if spec is None else spec
    if isinstance(spec, str) and spec in registry.embeddings:
        return registry.embeddings.get(spec)(vocabulary=vocabulary)
    path = os.fspath(spec)
    if os.path.exists(path):
        return load_glove_text(path, vocabulary=vocabulary)
    raise InputError(
        f"embeddings {spec!r} is neither a registered name ({', '.join(registry.embeddings.names())}) nor an existing "
        "file"
    )
