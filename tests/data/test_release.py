"""Releases: reverse vectorisation round trip and column alignment."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer

from authorguard.data.release import Release
from authorguard.exceptions import InputError


def test_reverse_vectorisation_reproduces_the_counts(newsgroups_sample):
    vectorizer = CountVectorizer()
    counts = vectorizer.fit_transform(newsgroups_sample.texts[:50])
    release = Release(counts, vectorizer.get_feature_names_out())
    again = CountVectorizer(vocabulary=vectorizer.vocabulary_).transform(release.reverse_texts())
    assert (again != counts).nnz == 0


def test_alignment_drops_unknown_and_zero_fills_missing_words():
    release = Release(sp.csr_matrix([[1, 2, 3]]), ("a", "b", "c"))
    assert release.aligned_to(("c", "z", "a")).toarray().tolist() == [[3, 0, 1]]
    assert release.aligned_to(("a", "b", "c")) is release.counts
    assert release.rows(np.array([True])).counts.shape == (1, 3)


def test_columns_must_match_vocabulary():
    with pytest.raises(InputError, match="2 columns but 3 vocabulary words"):
        Release(sp.csr_matrix(np.ones((1, 2))), ("a", "b", "c"))


def test_stack_joins_documents_over_the_union_of_vocabularies():
    import scipy.sparse as sp

    from authorguard.data.release import Release

    first = Release(sp.csr_matrix([[1, 0], [0, 2]]), ("cat", "dog"))
    second = Release(sp.csr_matrix([[3, 1]]), ("dog", "eel"))
    both = Release.stack([first, second])
    assert both.vocabulary == ("cat", "dog", "eel")
    assert both.counts.toarray().tolist() == [[1, 0, 0], [0, 2, 0], [0, 3, 1]]
