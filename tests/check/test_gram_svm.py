"""The Gram-matrix SVM solves LinearSVC's problem: the same weights and decision values to the solver's tolerance,
the same ranking of candidates; the hybrid sparse product equals scipy's."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.svm import LinearSVC

from authorguard.check.gram_svm import GramLinearSVC, sparse_product


@pytest.fixture(scope="module")
def pieces(newsgroups_sample):
    """Character 1-4-gram tf-idf of 300 real 20 Newsgroups posts, labelled by their group (many features, few
    rows)."""
    texts, labels = newsgroups_sample.texts, newsgroups_sample.labels
    features = TfidfVectorizer(analyzer="char", ngram_range=(1, 4), sublinear_tf=True, min_df=2).fit_transform(texts)
    return features, np.asarray(labels)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_the_same_model_as_linear_svc(pieces, n_classes):
    features, labels = pieces
    keep = np.isin(labels, np.unique(labels)[:n_classes])
    features, labels = features[keep], labels[keep]
    train, test = slice(0, features.shape[0] * 2 // 3), slice(features.shape[0] * 2 // 3, None)
    reference = LinearSVC(C=1.0, random_state=0).fit(features[train], labels[train])
    mine = GramLinearSVC(C=1.0, seed=3).fit(features[train], labels[train])
    assert list(mine.classes_) == list(reference.classes_)
    assert mine.coef_.shape == reference.coef_.shape and mine.intercept_.shape == reference.intercept_.shape
    np.testing.assert_allclose(mine.coef_, reference.coef_, atol=1e-3)
    ours, theirs = mine.decision_function(features[test]), reference.decision_function(features[test])
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, atol=1e-3)
    # the rankings agree wherever liblinear's own top two are further apart than its tolerance
    if ours.ndim == 2:
        ordered = np.sort(theirs, axis=1)
        clear = ordered[:, -1] - ordered[:, -2] > 1e-3
        assert (ours.argmax(1) == theirs.argmax(1))[clear].all()
    assert mine.n_iter_ < 1000  # converged, not stopped


def test_one_class_is_refused():
    with pytest.raises(ValueError, match="two classes"):
        GramLinearSVC().fit(np.eye(3), ["a", "a", "a"])


def test_the_sparse_product_equals_scipys():
    rng = np.random.default_rng(0)
    # 40 columns dense on both sides (the BLAS path), the rest sparse (the compiled loop)
    left = sp.hstack([rng.random((300, 40)), sp.random(300, 1960, density=0.05, random_state=1)], format="csr")
    right = sp.vstack([rng.random((40, 50)), sp.random(1960, 50, density=0.1, random_state=2)], format="csr")
    np.testing.assert_allclose(sparse_product(left, right), (left @ right).toarray(), rtol=1e-5, atol=1e-5)
