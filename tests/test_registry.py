"""The registries: every entry resolves, typos get a suggestion."""

from __future__ import annotations

import pytest

from authorguard import registry
from authorguard.exceptions import AuthorguardError


@pytest.mark.parametrize("table", [registry.methods, registry.datasets, registry.embeddings])
def test_every_registered_entry_imports(table):
    for name in table:
        if name == "minilm-static":
            pytest.importorskip("sentence_transformers")
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


def test_registered_methods_are_vector_mechanisms():
    from authorguard.base import VectorMechanism

    for name in registry.methods:
        assert issubclass(registry.methods.get(name), VectorMechanism)
