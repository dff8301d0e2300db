"""Corpora, their loaders, and record I/O (JSONL, CSV, Parquet)."""

from authorguard.data.corpus import Corpus

__all__ = ["Corpus", "load_dataset"]


def load_dataset(name: str, **options) -> Corpus:
    """Load a registered dataset by name (see ``authorguard.registry.datasets``)."""
    from authorguard import registry

    return registry.datasets.get(name)(**options)
