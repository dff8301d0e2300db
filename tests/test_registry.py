"""The registries: every entry resolves, typos get a suggestion."""

from __future__ import annotations

import pytest

from authorguard import registry
from authorguard.exceptions import AuthorguardError


@pytest.mark.parametrize(
    "table", [registry.methods, registry.datasets, registry.embeddings, registry.attackers, registry.tasks]
)
def test_every_registered_entry_imports(table):
    for name in table:
        if name == "minilm-static":
            pytest.importorskip("sentence_transformers")
        if name == "presidio":
            pytest.importorskip("presidio_analyzer")
        assert callable(table.get(name)), name
        assert table.describe(name)


def test_unknown_name_suggests_the_closest():
    with pytest.raises(AuthorguardError, match="unknown method 'syntfs'; did you mean 'syntf'\\?"):
        registry.methods.get("syntfs")


def test_registering_twice_under_another_target_is_refused():
    table = registry.Registry("thing")
    table.register("x", "json:dumps")
    table.register("x", "json:dumps")
    with pytest.raises(AuthorguardError, match="already registered"):
        table.register("x", "json:loads")
    with pytest.raises(AuthorguardError, match="module:attribute"):
        table.register("y", "json.loads")


def test_registered_methods_implement_one_interface_and_clone():
    from sklearn.base import clone

    from authorguard.base import TextObfuscator, VectorMechanism

    for name in registry.methods:
        cls = registry.methods.get(name)
        assert issubclass(cls, (VectorMechanism, TextObfuscator)), name
        method = cls()
        assert clone(method).get_params() == method.get_params()


@pytest.mark.parametrize("name", registry.attackers.names())
def test_every_attacker_attributes_separable_authors(name):
    import numpy as np
    import scipy.sparse as sp

    from authorguard.attacks.base import attacker_classifiers, make_attacker
    from authorguard.data.release import Release

    # each author has a favourite word of a distinct length, so word, style and function-word features all
    # separate them (the four are function words: a function-word attacker reads nothing else)
    words = ("of", "the", "into", "between")
    release = Release(sp.csr_matrix(np.repeat(np.eye(4), 6, axis=0) * 8 + 1), words)
    authors = np.repeat(list("wxyz"), 6)
    # attackers that bring their own (neural) model get enough steps for 24 tiny documents
    options = {
        "transformer": {"epochs": 20, "learning_rate": 3e-4, "max_tokens": 32},
        "lstm": {"steps": 100, "width": 32, "embedding_dim": 16},
        "cnn": {"steps": 100, "width": 32, "embedding_dim": 16},
    }.get(name, {})
    for classifier in attacker_classifiers(name, ("nb", "svm")):
        attacker = make_attacker(name, classifier, 0, options)
        assert attacker.evaluate(release, authors, release, authors)["accuracy"] == 1.0, (name, classifier)
