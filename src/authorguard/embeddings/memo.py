"""A process's memory of the embeddings it has computed, so that the same text is embedded once.

An experiment embeds the same texts again and again: the original training documents under every method's static
threat model, a release's test documents under every threat model. A memo in front of an encoder computes only the
texts it has not seen (in one batch, in their first order) and returns every text's vector from memory; it forgets
the oldest entries past ``capacity`` texts (30,000 MiniLM vectors ≈ 46 MB).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np


class EmbeddingMemo:
    """``encode(texts)`` -> array of shape (len(texts), dim), as ``encoder(unseen_texts)`` would give, remembered.

    ``encoder``: a function from a list of texts to an array of shape (n_texts, dim); deterministic (the memo
    assumes the same text gives the same vector). ``capacity``: texts remembered at most (least recent forgotten).
    """

    def __init__(self, encoder: Callable[[list[str]], np.ndarray], capacity: int = 30_000) -> None:
        self.encoder = encoder
        self.capacity = capacity
        self._vectors: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self.computed = 0  # texts the encoder was asked for, for tests and benchmarks

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest() for text in texts]
        unseen: dict[bytes, str] = {}
        for key, text in zip(keys, texts):
            if key not in self._vectors and key not in unseen:
                unseen[key] = text
        if unseen:
            vectors = np.asarray(self.encoder(list(unseen.values())))
            self.computed += len(unseen)
            for key, vector in zip(unseen, vectors):
                self._vectors[key] = vector
        found = [self._vectors[key] for key in keys]
        for key in keys:
            self._vectors.move_to_end(key)
        while len(self._vectors) > max(self.capacity, len(keys)):
            self._vectors.popitem(last=False)
        if not found:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(found)
