"""The obfuscation detector on real messages: dropout is detected, an identical release is not."""

from __future__ import annotations

import pytest

from authorguard.attacks.detector import CharNgramDetector
from authorguard.data.release import Release
from authorguard.exceptions import InputError
from authorguard.methods.perturbation import WordDropout


@pytest.fixture(scope="module")
def halves(newsgroups_sample):
    texts = list(newsgroups_sample.texts)
    return texts[:200], texts[200:]


def _release(texts):
    return Release.from_texts(texts)


def test_heavy_dropout_is_detected(halves):
    train, test = halves
    dropped = WordDropout(rate=0.5, random_state=0)
    scores = CharNgramDetector(random_state=0).evaluate(
        _release(train), _release(dropped.obfuscate(train)), _release(test), _release(dropped.obfuscate(test))
    )
    assert scores["accuracy"] > 0.7  # chance is 0.5 with sd 0.025 on these 400 test texts


def test_an_unchanged_release_is_chance(halves):
    train, test = halves
    scores = CharNgramDetector(random_state=0).evaluate(
        _release(train), _release(train), _release(test), _release(test)
    )
    # the two versions of each test document are the same text: whatever it predicts, one of the two is wrong
    assert scores["accuracy"] == pytest.approx(0.5)


def test_training_is_capped_and_mismatched_versions_fail(halves):
    train, _ = halves
    detector = CharNgramDetector(max_train_documents=50, random_state=0).fit(_release(train), _release(train))
    assert detector.model_.named_steps["clf"].coef_.shape[0] == 1
    with pytest.raises(InputError, match="200 original but 199 released"):
        CharNgramDetector().fit(_release(train), _release(train[:199]))
