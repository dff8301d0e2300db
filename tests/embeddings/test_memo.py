"""The embedding memo: the same vectors as the encoder, each text encoded once, the oldest forgotten."""

from __future__ import annotations

import numpy as np

from authorguard.embeddings.memo import EmbeddingMemo


class _CountingEncoder:
    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([[len(t), t.count("a"), sum(map(ord, t)) % 97] for t in texts], dtype=float)


def test_a_text_is_encoded_once_and_every_answer_equals_the_encoders():
    encoder = _CountingEncoder()
    memo = EmbeddingMemo(encoder)
    first = ["a cat", "the dog", "a cat", "banana"]
    assert np.array_equal(memo.encode(first), _CountingEncoder()(first))
    assert encoder.calls == [["a cat", "the dog", "banana"]]  # the repeat inside one call is encoded once
    second = ["banana", "an apple", "the dog"]
    assert np.array_equal(memo.encode(second), _CountingEncoder()(second))
    assert encoder.calls[-1] == ["an apple"] and memo.computed == 4


def test_past_its_capacity_the_memo_forgets_the_least_recently_used_text():
    encoder = _CountingEncoder()
    memo = EmbeddingMemo(encoder, capacity=2)
    memo.encode(["one"])
    memo.encode(["two"])
    memo.encode(["one"])  # "one" is now the most recent
    memo.encode(["three"])  # "two" goes
    memo.encode(["one", "two"])
    assert encoder.calls == [["one"], ["two"], ["three"], ["two"]]
    assert memo.encode([]).shape[0] == 0
