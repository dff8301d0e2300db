"""The likelihood + stylometry detector: scrambled text is recognised, identical text is not."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from authorguard.attacks.lm_detector import FEATURES, LikelihoodStyleDetector, stylometric_features
from authorguard.data.release import Release


def _scrambled(texts, seed=0):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.permutation(t.split())) for t in texts]


@pytest.fixture(scope="module")
def halves(newsgroups_sample):
    texts = [t for t in newsgroups_sample.texts if len(t.split()) >= 20]
    return texts[:30], texts[30:50]


def test_scrambled_words_are_detected(halves):
    train, test = halves
    # 32 tokens a text: scrambled word order shows in the first sentence's likelihood already
    detector = LikelihoodStyleDetector(random_state=0, max_tokens=32)
    scores = detector.evaluate(
        Release.from_texts(train),
        Release.from_texts(_scrambled(train)),
        Release.from_texts(test),
        Release.from_texts(_scrambled(test, 1)),
    )
    assert scores["f1_macro"] > 0.9 and scores["n_test"] == 2 * len(test)
    assert detector.features(test[:2]).shape == (2, len(FEATURES))


def test_an_identical_release_is_not_detected(halves):
    train, test = halves
    scores = LikelihoodStyleDetector(random_state=0, max_tokens=32).evaluate(
        *(Release.from_texts(t) for t in (train, train, test, test))
    )
    assert scores["accuracy"] == pytest.approx(0.5)  # both versions are the same text: one prediction for both


def test_stylometric_features_of_an_empty_text_are_finite():
    values = stylometric_features("", frozenset({"the"}))
    assert len(values) == 10 and np.isfinite(values).all()
