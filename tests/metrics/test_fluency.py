"""Fluency under the reference LM: scrambled words read worse; empty texts are counted, not scored."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from authorguard.metrics.fluency import fluency_scores


def test_scrambled_text_has_higher_perplexity(newsgroups_sample):
    texts = [t for t in newsgroups_sample.texts if len(t.split()) >= 30][:16]
    rng = np.random.default_rng(0)
    scrambled = [" ".join(rng.permutation(t.split())) for t in texts]
    original, shuffled = fluency_scores(texts), fluency_scores(scrambled + [""])
    assert shuffled["perplexity"] > 2 * original["perplexity"]
    assert shuffled["lm_empty"] == 1 and original["lm_empty"] == 0
    assert 0 < original["lm_tokens"] <= 128 * len(texts)
