"""Term counts split over forked processes equal one CountVectorizer's, on real messages."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from authorguard.text import counting
from authorguard.text.analysis import TermAnalyzer


@pytest.fixture
def split_always(monkeypatch):
    monkeypatch.setattr(counting, "_PARALLEL_MIN_CHARACTERS", 0)


@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_parts_merge_to_one_vectorizers_counts(newsgroups_sample, split_always, n_jobs):
    texts = list(newsgroups_sample.texts)
    analyzer = TermAnalyzer("lower")
    reference = CountVectorizer(analyzer=analyzer)
    expected = reference.fit_transform(texts)
    counts, terms = counting.count_terms(texts, analyzer, n_jobs=n_jobs)
    assert terms == reference.get_feature_names_out().tolist()
    assert counts.dtype == np.int64 and counts.has_sorted_indices
    assert (counts != expected).nnz == 0


def test_a_fixed_vocabulary_is_counted_alike_in_parts(newsgroups_sample, split_always):
    texts = list(newsgroups_sample.texts)
    analyzer = TermAnalyzer("orth")
    vocabulary = {word: i for i, word in enumerate(["space", "NASA", "hockey", "God", "never-seen"])}
    expected = CountVectorizer(analyzer=analyzer, vocabulary=vocabulary).transform(texts)
    counts, terms = counting.count_terms(texts, analyzer, vocabulary=vocabulary, n_jobs=2)
    assert terms == [] and counts.shape == (len(texts), 5) and (counts != expected).nnz == 0
    assert counts[:, 4].nnz == 0 and counts.sum() > 0


def test_a_part_without_terms_is_kept_and_no_terms_at_all_is_an_error(split_always):
    analyzer = TermAnalyzer("lower")
    texts = ["the and of", "1993 42", "rockets fly", "moons orbit rockets"]
    counts, terms = counting.count_terms(texts, analyzer, n_jobs=2)  # the first part has no term
    assert terms == ["fly", "moons", "orbit", "rockets"] and counts.shape == (4, 4)
    assert counts[:2].nnz == 0 and counts[3].toarray().tolist() == [[0, 1, 1, 1]]
    with pytest.raises(ValueError, match="empty vocabulary"):
        counting.count_terms(["the", "and 42"], analyzer, n_jobs=2)
    with pytest.raises(ValueError, match="empty vocabulary"):
        counting.count_terms(["the", "and 42"], analyzer)


@pytest.mark.parametrize("split", [True, False])
def test_counting_started_early_gives_the_same_counts(newsgroups_sample, monkeypatch, split):
    if split:
        monkeypatch.setattr(counting, "_PARALLEL_MIN_CHARACTERS", 0)
    texts = list(newsgroups_sample.texts)
    analyzer = TermAnalyzer("orth")
    pending = counting.start_counting(texts, analyzer, n_jobs=2)
    counts, terms = pending.result()
    assert pending.result()[0] is counts  # collected once
    expected, expected_terms = counting.count_terms(texts, analyzer)
    assert terms == expected_terms and (counts != expected).nnz == 0
