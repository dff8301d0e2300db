"""Word vectors: the interface, GloVe's text format, the packaged GloVe default, sentence-encoder vectors."""

from authorguard.embeddings.base import WordVectors, load_word_vectors

__all__ = ["WordVectors", "load_word_vectors"]
