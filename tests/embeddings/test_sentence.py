"""Static word vectors from all-MiniLM-L6-v2 (the ``minilm`` extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="needs the 'minilm' extra")

from authorguard.embeddings import sentence


def test_each_word_embedded_alone_is_a_unit_vector_and_cached(tmp_path, monkeypatch):
    vectors = sentence.load_minilm_static(["Hockey", "ice", "banana"], cache_dir=tmp_path)
    assert vectors.words == ("hockey", "ice", "banana") and vectors.vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors.vectors, axis=1), 1.0, rtol=1e-5)
    cos = vectors.vectors @ vectors.vectors.T
    assert cos[0, 1] > cos[0, 2]  # hockey is closer to ice than to banana

    def no_model(*args, **kwargs):
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(sentence, "load_sentence_encoder", no_model)
    again = sentence.load_minilm_static(["banana", "hockey"], cache_dir=tmp_path)
    np.testing.assert_array_equal(again.vectors, vectors.vectors[[2, 0]])


def test_minilm_static_works_as_syntf_embeddings(tmp_path, monkeypatch):
    from authorguard.methods.syntf import SynTF

    monkeypatch.setenv("AUTHORGUARD_CACHE", str(tmp_path))
    model = SynTF(n_words=5, embeddings="minilm-static", random_state=0).fit(["Hockey players skate on ice", "bananas"])
    assert model.embeddings_name_ == "minilm-static"
    assert set(model.vocabulary_) == {"hockey", "player", "skate", "ice", "banana"}
    assert model.transform(["hockey"]).sum() == 5
