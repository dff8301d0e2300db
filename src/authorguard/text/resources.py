"""NLTK resources (stop words, WordNet), found through the data directory or ``NLTK_DATA``.

authorguard never downloads NLTK data behind the user's back: a missing resource is a one-line error
that says where it was looked for and how to get it.
"""

from __future__ import annotations

import functools
import os

import nltk

from authorguard import config
from authorguard.exceptions import DataNotFoundError


def _register_data_dir() -> None:
    root = config.data_dir()
    if root is not None:
        candidate = str(root / "nltk_data")
        if os.path.isdir(candidate) and candidate not in nltk.data.path:
            nltk.data.path.append(candidate)


def _require(resource: str, package: str) -> None:
    _register_data_dir()
    for candidate in (resource, f"{resource}.zip"):
        try:
            nltk.data.find(candidate)
            return
        except LookupError:
            continue
    else:
        raise DataNotFoundError(
            f"NLTK resource {package!r} not found (searched NLTK_DATA, {config.DATA_ENV}/nltk_data and NLTK's defaults); "
            f"install it with: python -m nltk.downloader {package}"
        ) from None


@functools.cache
def english_stop_words() -> frozenset[str]:
    """NLTK's English stop-word list (lower case)."""
    _require("corpora/stopwords", "stopwords")
    from nltk.corpus import stopwords

    return frozenset(stopwords.words("english"))


@functools.cache
def wordnet():
    """The NLTK WordNet corpus reader (WordNet 3.0)."""
    _require("corpora/wordnet", "wordnet")
    from nltk.corpus import wordnet as wn

    wn.ensure_loaded()
    return wn
