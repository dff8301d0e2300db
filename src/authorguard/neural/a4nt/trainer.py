"""The training stages of an A⁴NT model folder, in order, each resumable from its last checkpoint.

``data`` (sentences, vocabulary, Punkt: :mod:`.folder`) -> ``classifiers`` (the attribute classifier A and the
holdouts: :mod:`.classifiers`) -> ``language-models`` (one per class: :mod:`.language_models`) -> ``autoencoder``
(:mod:`.autoencoder`) -> ``adversarial`` (:mod:`.adversarial`). The loop they share (seeds, checkpoints, batches,
device) is :mod:`.loop`. ``train_a4nt(..., device="cuda")`` runs the stages on a GPU: networks and batches are made
on torch's default device, set for the run.
"""

from __future__ import annotations

import os
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.adversarial import train_adversarial
from authorguard.neural.a4nt.autoencoder import pretrain_autoencoder
from authorguard.neural.a4nt.classifiers import train_classifier
from authorguard.neural.a4nt.config import A4NTConfig
from authorguard.neural.a4nt.folder import prepare_folder
from authorguard.neural.a4nt.language_models import train_language_model
from authorguard.neural.a4nt.loop import Report, quiet, training_device

STAGES = ("data", "classifiers", "language-models", "autoencoder", "adversarial")


def train_a4nt(
    config: A4NTConfig,
    folder: str | os.PathLike,
    stages: tuple[str, ...] = STAGES,
    report: Report = quiet,
    device: str = "cpu",
) -> dict:
    """Run ``stages`` (in the fixed order, skipping what is already trained) on ``device`` (see
    :func:`training_device`); returns what each produced."""
    unknown = [s for s in stages if s not in STAGES]
    if unknown:
        raise InputError(f"unknown A4NT stage {unknown[0]!r} (stages: {', '.join(STAGES)})")
    with training_device(device):
        return _train_stages(config, Path(folder), stages, report)


def _train_stages(config: A4NTConfig, folder: Path, stages: tuple[str, ...], report: Report) -> dict:
    data, vocabulary = prepare_folder(config, folder, report)
    produced: dict[str, list[str]] = {"data": [str(folder / "sentences.json.gz")]}
    if "classifiers" in stages:
        produced["classifiers"] = [str(train_classifier(config, folder, data, vocabulary, None, report))]
        produced["classifiers"] += [
            str(train_classifier(config, folder, data, vocabulary, h, report)) for h in config.holdouts
        ]
    if "language-models" in stages:
        produced["language-models"] = [
            str(train_language_model(config, folder, data, vocabulary, c, report)) for c in range(len(data.classes))
        ]
    if "autoencoder" in stages:
        produced["autoencoder"] = [str(pretrain_autoencoder(config, folder, data, vocabulary, report))]
        if config.objective == "neutral":
            produced["autoencoder"].append(
                str(pretrain_autoencoder(config, folder, data, vocabulary, report, neutral=True))
            )
    if "adversarial" in stages:
        produced["adversarial"] = [str(train_adversarial(config, folder, data, vocabulary, report))]
    return produced
