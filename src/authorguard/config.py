"""Where authorguard finds data and keeps its cache.

Resolved once, at the edge (CLI option or function argument, else environment, else default):

- data directory: ``AUTHORGUARD_DATA`` — local copies of corpora, laid out as ``<data>/<dataset>/<file>``
  (e.g. ``<data>/20news/20news-bydate.tar.gz``) and, optionally, an NLTK data folder ``<data>/nltk_data``.
- cache directory: ``AUTHORGUARD_CACHE``, default ``~/.cache/authorguard`` — downloads and derived vectors.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_ENV = "AUTHORGUARD_DATA"
CACHE_ENV = "AUTHORGUARD_CACHE"


def data_dir(explicit: str | os.PathLike | None = None) -> Path | None:
    """The data directory, or None when none is configured."""
    value = explicit if explicit is not None else os.environ.get(DATA_ENV)
    return Path(value).expanduser() if value else None


def cache_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The cache directory (created on demand by the code that writes to it)."""
    value = explicit if explicit is not None else os.environ.get(CACHE_ENV)
    if value:
        return Path(value).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "authorguard"
