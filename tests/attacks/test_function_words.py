"""The function-word attacker: the Federalist check, what it reads, bad parameters."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard import registry
from authorguard.attacks.function_words import FunctionWordAttacker
from authorguard.data.release import Release
from authorguard.exceptions import InputError


@pytest.mark.parametrize("classifier", ["svm", "nb"])
def test_the_disputed_federalist_papers_go_to_madison(classifier):
    papers = registry.datasets.get("federalist")()
    train = [
        i
        for i, (a, s) in enumerate(zip(papers.authors, papers.splits))
        if s == "train" and a in ("hamilton", "madison")
    ]
    test = [i for i, s in enumerate(papers.splits) if s == "test"]
    release = Release.from_texts(papers.texts)
    authors = np.array(papers.authors, dtype=object)
    predicted = (
        FunctionWordAttacker(classifier, random_state=0)
        .fit(release.rows(train), authors[train])
        .predict(release.rows(test))
    )
    # Mosteller & Wallace gave all 12 to Madison; trained on 51 Hamilton and 14 Madison papers, function words
    # must give most of them to Madison (topic-word attackers give most to Hamilton)
    assert list(predicted).count("madison") >= 9


def test_a_release_without_function_words_leaves_nothing_to_read():
    with_words = Release.from_texts(["upon the hill of the king", "whilst by the river and a mill"] * 5)
    stripped = Release(with_words.counts, with_words.vocabulary)  # vectors over content words: no stop words
    attacker = FunctionWordAttacker("nb").fit(with_words, ["a", "b"] * 5)
    assert set(attacker.predict(with_words)) == {"a", "b"}
    assert not attacker.features(stripped).any()


def test_bad_parameters():
    release = Release.from_texts(["upon the hill", "by the river"])
    with pytest.raises(InputError, match="'n_words' parameter of FunctionWordAttacker"):
        FunctionWordAttacker(n_words=0).fit(release, ["a", "b"])
