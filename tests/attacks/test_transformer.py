"""The transformer attributor: fine-tuned MiniLM beats chance on three real 20 Newsgroups authors."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")

from authorguard.attacks.transformer import TransformerAttacker
from authorguard.data.release import Release
from authorguard.exceptions import InputError


@pytest.fixture(scope="module")
def three_authors(top_author_split):
    return top_author_split(3, 25, 15)


def test_fine_tuned_attributor_beats_chance(three_authors):
    (train_texts, train_authors), (test_texts, test_authors) = three_authors
    attacker = TransformerAttacker(random_state=0, epochs=4, max_tokens=96, max_windows=2, learning_rate=1e-4)
    scores = attacker.evaluate(
        Release.from_texts(train_texts), train_authors, Release.from_texts(test_texts), test_authors
    )
    # chance is 1/3 (sd ~0.07 on 45 test documents); the training loss must fall too
    assert scores["accuracy"] > 0.55
    losses = attacker.model_.losses_
    assert np.mean(losses[-4:]) < np.mean(losses[:4])
    log_probs = attacker.model_.predict_log_proba(test_texts[:3])
    assert log_probs.shape == (3, 3) and np.allclose(np.exp(log_probs).sum(1), 1, atol=0.2)  # mean of window log-probs


def test_bad_options_and_input_fail_with_one_line():
    with pytest.raises(InputError, match="max_tokens"):
        TransformerAttacker(max_tokens=4)
    with pytest.raises(TypeError):
        TransformerAttacker(classifier="svm")  # it brings its own model
    with pytest.raises(InputError, match="fewer than 2 authors"):
        TransformerAttacker(epochs=1).fit(Release.from_texts(["a text", "another"]), ["x", "x"])
