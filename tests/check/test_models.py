"""The check's count models attribute like the registered attackers they stand for, on real essays; the
many-candidates classifier ranks by cosine to each candidate's profile."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.check import features as F
from authorguard.check.models import MODELS, CosineCentroids


@pytest.fixture(scope="module")
def essays():
    """Pieces of 150 words (3 blocks) of 12 AMT writers: 6 to learn from and 3 to attribute each."""
    from authorguard.check.background import load_background

    pool = load_background("essay")
    blocks, train_runs, test_runs, train_labels, test_labels = [], [], [], [], []
    for author in sorted(pool.authors)[:12]:
        own = F.cut_blocks(pool.authors[author], 27 * F.BLOCK_WORDS)
        start = len(blocks)
        blocks.extend(own)
        runs = [list(range(start + i, start + i + 3)) for i in range(0, 27, 3)]
        train_runs += runs[:6]
        train_labels += [author] * 6
        test_runs += runs[6:]
        test_labels += [author] * 3
    counted = F.count_blocks(blocks)
    matrix = F.BlockMatrix(
        {f: m.astype(np.float32) for f, (m, _) in counted.items()}, {f: keys for f, (_, keys) in counted.items()}
    )
    texts = (
        [" ".join(blocks[i] for i in run) for run in train_runs],
        [" ".join(blocks[i] for i in run) for run in test_runs],
    )
    return matrix, (train_runs, train_labels), (test_runs, test_labels), texts


@pytest.mark.parametrize("name", ["char-ngrams", "function-words", "writeprints-text"])
def test_count_models_attribute_like_the_registered_attackers(essays, name):
    from authorguard.attacks.base import make_attacker
    from authorguard.data.release import Release

    matrix, (train_runs, train_labels), (test_runs, test_labels), (train_texts, test_texts) = essays
    model = MODELS[name](0).fit(matrix.pieces(train_runs, MODELS[name].families), train_labels, matrix.vocabulary)
    ours = model.classes_[model.scores(matrix.pieces(test_runs, MODELS[name].families)).argmax(1)]
    attacker = make_attacker(name, "svm", 0).fit(Release.texts_only(train_texts), train_labels)
    theirs = attacker.predict(Release.texts_only(test_texts))
    truth = np.asarray(test_labels)
    agreement = float((ours == theirs).mean())
    # the same features and classifier, counted in blocks: the same answers nearly always, and as accurate
    assert agreement >= 0.75, agreement
    assert abs(float((ours == truth).mean()) - float((theirs == truth).mean())) <= 0.12


def test_cosine_centroids_score_by_the_profile_nearest_in_angle():
    features = np.array([[1.0, 0.0], [2.0, 0.1], [0.0, 1.0], [0.1, 3.0]])
    model = CosineCentroids().fit(features, ["a", "a", "b", "b"])
    scores = model.decision_function(np.array([[5.0, 0.2], [0.2, 0.3]]))
    assert list(model.classes_[scores.argmax(1)]) == ["a", "b"]
    assert np.all(scores <= 1 + 1e-9) and np.all(scores >= -1 - 1e-9)
    import scipy.sparse as sp

    sparse = CosineCentroids().fit(sp.csr_matrix(features), ["a", "a", "b", "b"])
    assert np.allclose(sparse.decision_function(sp.csr_matrix([[5.0, 0.2], [0.2, 0.3]])), scores)


def test_a_check_beyond_the_svm_size_uses_the_centroids(habits_world, monkeypatch):
    from authorguard.check import CheckConfig, models, prepare

    known, mine, theirs, background = habits_world
    monkeypatch.setattr(models, "SVM_CANDIDATES", 6)
    session = prepare(mine, known, background=background, config=CheckConfig(sizes=(5, 10), attackers=("char-ngrams",)))
    fitted = {size: model for (_, size), (model, _) in session.fitted.items()}
    assert type(fitted[5].model_).__name__ == "GramLinearSVC" and isinstance(fitted[10].model_, CosineCentroids)
    assert all(r.rank == 1 for r in session.result.rankings)
    other = prepare(theirs, known, background=background, config=CheckConfig(sizes=(10,), attackers=("char-ngrams",)))
    assert other.result.rankings[0].rank > 1
    assert session.result.evidence  # the centroids' profiles are read as evidence too


def test_a_model_fitted_in_halves_scores_like_the_whole(essays):
    from authorguard.check.models import merge_parts

    matrix, (train_runs, train_labels), (test_runs, _), _ = essays
    families = MODELS["char-ngrams"].families
    train, test = matrix.pieces(train_runs, families), matrix.pieces(test_runs, families)
    whole = MODELS["char-ngrams"](0).fit(train, train_labels, matrix.vocabulary)
    halves = merge_parts(
        [MODELS["char-ngrams"](0).fit(train, train_labels, matrix.vocabulary, part=(k, 2)) for k in range(2)]
    )
    assert list(halves.classes_) == list(whole.classes_)
    a, b = whole.scores(test), halves.scores(test)
    # the same binary problems, solved apart: the same scores up to the solver's tolerance
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.999
    assert (a.argmax(1) == b.argmax(1)).mean() >= 0.95
