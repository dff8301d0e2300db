"""Word vectors: the interface, GloVe's text format, the packaged GloVe default, sentence-encoder vectors."""

from authorguard.embeddings.base import WordVectors
from authorguard.embeddings.loading import DEFAULT_EMBEDDINGS, load_word_vectors

__all__ = ["DEFAULT_EMBEDDINGS", "WordVectors", "load_word_vectors"]
