"""The author-embedding attacker: nearest centroid in the author encoder's space.

Each training document is embedded by the author encoder (:mod:`authorguard.neural.author_encoder`: the packaged
model, or one retrained under ``AUTHORGUARD_CACHE``, or ``encoder_path``), each author (class) is the normalised
mean of its documents' embeddings, and a test document goes to the most cosine-similar centroid. The encoder is
never trained on the attacked authors (they are excluded from its training data), so this attacker needs no
gradient step: it is the LUAR-style attacker of TAROT's evaluation. Long documents: the normalised mean of up to
``windows`` 128-word-piece windows. At most ``max_train_documents`` per class are embedded (a seeded sample).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from authorguard.attacks.base import Attacker
from authorguard.data.release import Release
from authorguard.utils.validation import check_number


class AuthorEmbeddingAttacker(Attacker):
    """Parameters: ``random_state`` (sample), ``windows`` (default 4), ``max_train_documents`` (per class, default
    200), ``encoder_path`` (a saved encoder folder; default: the trained or packaged one)."""

    name = "author-embedding"
    own_classifier = "neural"

    def __init__(
        self,
        random_state: int | None = None,
        windows: int = 4,
        max_train_documents: int = 200,
        encoder_path: str | None = None,
    ) -> None:
        self.random_state = random_state
        self.windows = check_number(windows, "windows", "the author-embedding attacker", kind=int, low=1, closed="left")
        self.max_train_documents = check_number(
            max_train_documents, "max_train_documents", "the author-embedding attacker", kind=int, low=1, closed="left"
        )
        self.encoder_path = encoder_path

    def _encoder(self):
        from authorguard.neural.author_encoder.model import shared_author_encoder

        if not hasattr(self, "encoder_"):
            self.encoder_ = shared_author_encoder(self.encoder_path)
        return self.encoder_

    def fit(self, release: Release, authors: Sequence[str]) -> AuthorEmbeddingAttacker:
        labels = np.asarray(authors, dtype=object)
        rng = np.random.default_rng(self.random_state)
        self.classes_ = np.array(sorted(set(labels)), dtype=object)
        keep: list[np.ndarray] = []
        for author in self.classes_:
            mine = np.flatnonzero(labels == author)
            keep.append(
                np.sort(rng.choice(mine, self.max_train_documents, replace=False))
                if len(mine) > self.max_train_documents
                else mine
            )
        kept = np.concatenate(keep)
        texts = release.rows(kept).document_texts()
        vectors = self._encoder().encode(texts, windows=self.windows)
        centroids = np.stack([vectors[labels[kept] == a].mean(0) for a in self.classes_])
        self.centroids_ = centroids / np.maximum(np.linalg.norm(centroids, axis=1, keepdims=True), 1e-12)
        return self

    def predict(self, release: Release) -> np.ndarray:
        return self.classes_[self.scores(release).argmax(1)]

    def scores(self, release: Release) -> np.ndarray:
        """Cosine of each document's embedding to each author's centroid (embeddings are unit length)."""
        vectors = self._encoder().encode(release.document_texts(), windows=self.windows)
        return np.asarray(vectors @ self.centroids_.T, dtype=float)
