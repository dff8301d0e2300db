"""Which differences are real: each method's worst case with its interval and scale, compared with the original
on the same test documents by a paired test.

The worst case of a method setting is its strongest attack (the largest mean accuracy over every attacker x threat
model); its 95 % Wilson interval is over the attack's test documents. The paired comparison takes that attack's
per-document answers (run 0: with several runs the worst case is their mean, the paired test run 0's) and the
original's strongest attack's on the same documents (``test_digest`` equal):
the difference in accuracy with a paired-bootstrap interval, and the exact McNemar p-value; a difference is *real*
when p < 0.05. Results stored before the runner kept per-document answers get no paired test ("–").
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from authorguard.exceptions import InputError
from authorguard.experiments.results import REFERENCE, setting_label, with_classifier
from authorguard.metrics.statistics import mcnemar_exact, paired_bootstrap_interval, wilson_interval

SIGNIFICANCE = 0.05


def _strongest_attack(attacks: pd.DataFrame, metric: str) -> pd.DataFrame | None:
    """The rows (one per run) of the attack with the largest mean ``metric``; None without attacks."""
    best, rows = -np.inf, None
    for _, part in attacks.groupby(["scenario", "attacker", "threat_model", "classifier"], sort=True):
        value = part[metric].mean()
        if value > best:
            best, rows = value, part
    return rows


def _answers(rows: pd.DataFrame) -> tuple[np.ndarray, str] | None:
    """Run 0's per-document answers of an attack and the digest of its documents (None if not stored)."""
    if "correct" not in rows or "test_digest" not in rows:
        return None
    first = rows.sort_values("run").iloc[0]
    if not isinstance(first["correct"], str) or not first["correct"]:
        return None
    return np.frombuffer(first["correct"].encode(), dtype=np.uint8) == ord("1"), str(first["test_digest"])


def comparison_table(
    frame: pd.DataFrame, view: str, metric: str = "accuracy", classifier: str = "svm", seed: int = 0
) -> pd.DataFrame:
    """One row per method setting of ``view``: the scale its worst case was measured at (training and test
    documents of that attack; an attacker trained on a sample says so), the worst case with its 95 % interval and
    attack, and the paired difference from the original's worst case (points of ``metric``, 95 % interval,
    McNemar p, whether it is real). ``seed``: the bootstrap's."""
    part = frame[frame["view"] == view]
    if part.empty:
        raise InputError(f"the results have no view {view!r}")
    groups = list(part.groupby(["method", "params"], sort=False))
    strongest = {
        key: _strongest_attack(with_classifier(g[g["task"] == "attack"], classifier), metric) for key, g in groups
    }
    reference = next((strongest[key] for key, g in groups if (g["method_name"] == REFERENCE).any()), None)
    reference_answers = _answers(reference) if reference is not None else None
    rows = []
    for (method, params), group in groups:
        attack = strongest[(method, params)]
        if attack is None:
            continue
        worst = float(attack[metric].mean())
        first = attack.iloc[0]
        n_test, n_train = int(first["n_test"]), int(first["n_train"])
        attacks = group[(group["task"] == "attack") & (group["scenario"] == first["scenario"])]
        sampled = attacks[attacks["n_train"] < attacks["n_train"].max()]["attacker"].unique()
        scale = f"{n_train:,} train / {n_test:,} test"
        if len(sampled):
            scale += f" ({', '.join(sorted(sampled))} on a sample)"
        low, high = wilson_interval(worst, n_test)
        threat = first["threat_model"]
        row = {
            "method": method,
            "setting": setting_label(params) or "–",
            "scale (documents)": scale,
            f"worst case ({metric})": f"{worst:.3f}",
            "95 % CI": f"[{low:.3f}, {high:.3f}]",
            "attack": f"{first['attacker']} / {'any' if threat == 'none' else threat}",
            "Δ vs original": "–",
            "Δ 95 % CI": "–",
            "McNemar p": "–",
            "real difference": "–",
        }
        answers = _answers(attack)
        if (
            reference_answers is not None
            and answers is not None
            and answers[1] == reference_answers[1]
            and not (group["method_name"] == REFERENCE).any()
        ):
            mine, theirs = answers[0], reference_answers[0]
            p = mcnemar_exact(theirs, mine)
            d_low, d_high = paired_bootstrap_interval(theirs, mine, np.random.default_rng(seed))
            row["Δ vs original"] = f"{100 * (mine.mean() - theirs.mean()):+.1f} pt"
            row["Δ 95 % CI"] = f"[{100 * d_low:+.1f}, {100 * d_high:+.1f}]"
            row["McNemar p"] = f"{p:.2g}"
            row["real difference"] = "yes" if p < SIGNIFICANCE else "no"
        rows.append(row)
    return pd.DataFrame(rows)
