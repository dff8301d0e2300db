"""The feature judge: its exported trees give scikit-learn's probabilities, it round-trips through its JSON file,
and a missing, corrupt or mismatched file fails in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.metrics.fidelity.judge.feature_judge import FILE_NAME, FeatureJudge, fit_feature_judge
from authorguard.metrics.fidelity.judge.features import FEATURES


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(400, len(FEATURES))).astype(np.float32)
    changed = matrix[:, 0] + 0.5 * matrix[:, 3] > 0.2
    labels = ["changed" if c else "faithful" for c in changed]
    return matrix, labels, fit_feature_judge(matrix, labels, trees=40, depth=2)


def test_the_exported_trees_give_sklearns_probabilities(fitted):
    from sklearn.ensemble import GradientBoostingClassifier

    matrix, labels, judge = fitted
    y = np.array([label == "changed" for label in labels])
    weight = np.where(y, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    model = GradientBoostingClassifier(n_estimators=40, max_depth=2, learning_rate=0.05, subsample=0.8, random_state=0)
    model.fit(matrix, y, sample_weight=weight)
    ours = judge.predict(matrix)
    np.testing.assert_allclose(ours[:, 2], model.predict_proba(matrix)[:, 1], atol=1e-5)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-6)
    assert (ours[:, 1] == 0).all()  # a generalisation is the rules' to name


def test_it_learns_the_rule_it_was_shown(fitted):
    matrix, labels, judge = fitted
    said = judge.predict(matrix)[:, 2] > 0.5
    assert np.mean(said == np.array([label == "changed" for label in labels])) > 0.9


def test_save_and_load_round_trip(fitted, tmp_path):
    matrix, _, judge = fitted
    judge.calibration = {"low": 0.3, "high": 0.6}
    loaded = FeatureJudge.load(judge.save(tmp_path))
    np.testing.assert_allclose(loaded.predict(matrix), judge.predict(matrix), atol=1e-6)
    assert loaded.calibration == {"low": 0.3, "high": 0.6}


def test_missing_corrupt_and_mismatched_files_fail_in_one_line(fitted, tmp_path):
    _, _, judge = fitted
    with pytest.raises(DataNotFoundError, match="no feature judge"):
        FeatureJudge.load(tmp_path / "nowhere")
    path = judge.save(tmp_path)
    path.write_text(path.read_text(encoding="utf-8")[:500], encoding="utf-8")
    with pytest.raises(InputError, match="corrupt feature judge") as error:
        FeatureJudge.load(tmp_path)
    assert "\n" not in str(error.value)
    saved = judge.to_dict() | {"features": ["something", "else"]}
    (tmp_path / FILE_NAME).write_text(json.dumps(saved), encoding="utf-8")
    with pytest.raises(InputError, match="other features"):
        FeatureJudge.load(tmp_path)
    saved = judge.to_dict()
    saved["trees"][0]["feature"][0] = len(FEATURES) + 5
    (tmp_path / FILE_NAME).write_text(json.dumps(saved), encoding="utf-8")
    with pytest.raises(InputError, match="corrupt"):
        FeatureJudge.load(tmp_path)


def test_bad_labels_and_shapes_are_refused(fitted):
    matrix, _, judge = fitted
    with pytest.raises(InputError, match="unknown labels"):
        fit_feature_judge(matrix[:4], ["faithful", "changed", "wrong", "changed"])
    with pytest.raises(InputError, match="both"):
        fit_feature_judge(matrix[:4], ["faithful"] * 4)
    with pytest.raises(InputError, match="features a pair"):
        judge.predict(matrix[:, :3])
