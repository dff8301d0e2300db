"""The feature judge: gradient-boosted trees (scikit-learn's ``GradientBoostingClassifier``) over
:data:`~.features.FEATURES`, deciding changed vs not, stored as one JSON file of its trees — small enough to ship,
read without pickle and without scikit-learn.

``FeatureJudge.predict(matrix)`` -> (n, 3) probabilities over :data:`LABELS` (the trees decide ``changed``; the rest
is ``faithful``: a generalisation is the rules' to name); ``passage_probabilities(rules, sources, outputs)`` reads
the features of each pair first. A saved judge (:data:`FILE_NAME`) holds the feature names it was fitted on (a file
fitted on other features is refused), the trees, the calibrated thresholds and its provenance.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from authorguard.exceptions import DataNotFoundError, InputError
from authorguard.metrics.fidelity.judge.features import FEATURES, feature_matrix

LABELS = ("faithful", "generalised", "changed")
FILE_NAME = "feature-judge.json"
_TREE_KEYS = ("feature", "threshold", "left", "right", "value")
#: the most sentences a side that a pair is read whole (the judge's training pairs have one or two)
WHOLE_SENTENCES = 2


@dataclass
class FeatureJudge:
    """log-odds(changed) = ``baseline`` + ``rate`` × Σ tree(x); each tree a dict of equal-length arrays
    (:data:`_TREE_KEYS`; ``left`` = -1 at a leaf; a row goes left when ``x[feature] <= threshold``)."""

    baseline: float
    rate: float
    trees: list[dict]
    calibration: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)

    def log_odds(self, matrix: np.ndarray) -> np.ndarray:
        """(n, F) features -> (n,) log-odds of changed."""
        if matrix.ndim != 2 or matrix.shape[1] != len(FEATURES):
            raise InputError(f"feature judge: expected {len(FEATURES)} features a pair; got shape {matrix.shape}")
        total = np.full(len(matrix), self.baseline, dtype=np.float64)
        rows = np.arange(len(matrix))
        for tree in self.trees:
            node = np.zeros(len(matrix), dtype=np.int64)
            while True:
                inner = tree["left"][node] >= 0
                if not inner.any():
                    break
                goes_left = matrix[rows, tree["feature"][node]] <= tree["threshold"][node]
                step = np.where(goes_left, tree["left"][node], tree["right"][node])
                node = np.where(inner, step, node)
            total += self.rate * tree["value"][node]
        return total

    def predict(self, matrix: np.ndarray) -> np.ndarray:
        """(n, F) features -> (n, 3) probabilities of faithful, generalised (always 0), changed."""
        changed = 1.0 / (1.0 + np.exp(-self.log_odds(matrix)))
        return np.stack([1 - changed, np.zeros_like(changed), changed], axis=1).astype(np.float32)

    def passage_probabilities(
        self, rules: Sequence, sources: Sequence[str], outputs: Sequence[str], score_rules: Callable
    ) -> np.ndarray:
        """Each passage pair's probabilities, (n, 3), of its worst sentence: a pair of at most
        :data:`WHOLE_SENTENCES` sentences a side is read whole, with its rule score; a longer one is cut into (input
        span, output sentence) pairs
        (:func:`.verdict.aligned_sentences`), each scored by the rules and read alone — the judge was fitted on
        pairs of one or two sentences, and a passage's length is no evidence of a change."""
        from authorguard.metrics.fidelity.judge.verdict import aligned_sentences, split_sentences

        if not sources:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        spans: list[tuple[str, str]] = []
        owners: list[int] = []
        whole: dict[int, int] = {}  # span index -> passage whose own rule score serves
        for k, (source, output) in enumerate(zip(sources, outputs)):
            short = max(len(split_sentences(source)), len(split_sentences(output))) <= WHOLE_SENTENCES
            pairs = [(source, output)] if short else aligned_sentences(source, output)
            if short:
                whole[len(spans)] = k
            spans.extend(pairs)
            owners.extend([k] * len(pairs))
        span_rules = _rule_scores(rules, spans, whole, score_rules)
        found = self.predict(feature_matrix(span_rules, [a for a, _ in spans], [b for _, b in spans]))
        out = np.zeros((len(sources), len(LABELS)), dtype=np.float32)
        worst = np.full(len(sources), -1.0)
        for row, owner in zip(found, owners):
            if row[2] > worst[owner]:
                worst[owner], out[owner] = row[2], row
        return out

    def to_dict(self) -> dict:
        trees = [{k: np.asarray(t[k]).tolist() for k in _TREE_KEYS} for t in self.trees]
        return {
            "features": list(FEATURES),
            "baseline": self.baseline,
            "rate": self.rate,
            "trees": trees,
            "calibration": self.calibration,
            "provenance": self.provenance,
        }

    def save(self, folder: str | Path) -> Path:
        path = Path(folder) / FILE_NAME
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), separators=(",", ":")), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> FeatureJudge:
        """Read a saved judge (a folder holding :data:`FILE_NAME`, or the file); a missing, corrupt or mismatched
        file fails in one line naming it."""
        path = Path(path)
        path = path / FILE_NAME if path.is_dir() else path
        if not path.is_file():
            raise DataNotFoundError(f"no feature judge at {path}")
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
            trees = [_tree(t) for t in saved["trees"]]
            judge = cls(
                float(saved["baseline"]), float(saved["rate"]), trees, saved["calibration"], saved["provenance"]
            )
            features = tuple(saved["features"])
        except (ValueError, KeyError, TypeError, IndexError) as error:
            raise InputError(f"corrupt feature judge {path}: {type(error).__name__}: {error}") from None
        if features != FEATURES:
            raise InputError(f"feature judge {path} was fitted on other features than this version reads")
        return judge


def _rule_scores(rules: Sequence, spans: list[tuple[str, str]], whole: dict[int, int], score_rules: Callable) -> list:
    """The rule score of each span: the passage's own where the span is the passage, else the rules' reading of
    the span alone (parsed once, in one batch)."""
    todo = [i for i in range(len(spans)) if i not in whole]
    scored = score_rules([spans[i][0] for i in todo], [spans[i][1] for i in todo]) if todo else []
    by_span = dict(zip(todo, scored))
    return [rules[whole[i]] if i in whole else by_span[i] for i in range(len(spans))]


def _tree(saved: dict) -> dict:
    tree = {
        "feature": np.asarray(saved["feature"], dtype=np.int64),
        "threshold": np.asarray(saved["threshold"], dtype=np.float64),
        "left": np.asarray(saved["left"], dtype=np.int64),
        "right": np.asarray(saved["right"], dtype=np.int64),
        "value": np.asarray(saved["value"], dtype=np.float64),
    }
    size = len(tree["left"])
    if any(len(v) != size for v in tree.values()) or tree["left"].max(initial=-1) >= size:
        raise ValueError("a tree's arrays disagree")
    if (tree["feature"][tree["left"] >= 0] >= len(FEATURES)).any():
        raise ValueError("a tree reads a feature this version does not have")
    return tree


def fit_feature_judge(
    matrix: np.ndarray, labels: Sequence[str], trees: int = 300, depth: int = 3, rate: float = 0.05, seed: int = 0
) -> FeatureJudge:
    """Fit changed vs not on (n, F) features and labels in :data:`LABELS`; classes weighted to balance."""
    from sklearn.ensemble import GradientBoostingClassifier

    unknown = sorted(set(labels) - set(LABELS))
    if unknown:
        raise InputError(f"feature judge: unknown labels {unknown} (known: {', '.join(LABELS)})")
    y = np.array([label == "changed" for label in labels])
    if y.all() or not y.any():
        raise InputError("feature judge: the labels need both changed and not-changed pairs")
    weight = np.where(y, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    model = GradientBoostingClassifier(
        n_estimators=trees, max_depth=depth, learning_rate=rate, subsample=0.8, random_state=seed
    )
    model.fit(matrix, y, sample_weight=weight)
    exported = [
        {
            "feature": np.maximum(t.tree_.feature, 0),
            "threshold": t.tree_.threshold,
            "left": t.tree_.children_left,
            "right": t.tree_.children_right,
            "value": t.tree_.value[:, 0, 0],
        }
        for t in model.estimators_[:, 0]
    ]
    # the prior's log-odds, read through the public API: the decision minus the trees' sum at one row
    first = matrix[:1]
    trees_sum = sum(t.predict(first)[0] for t in model.estimators_[:, 0])
    baseline = float(model.decision_function(first)[0] - rate * trees_sum)
    return FeatureJudge(baseline=baseline, rate=rate, trees=exported)
