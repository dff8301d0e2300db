"""The ``classifiers`` stage: the attribute classifier A and the holdout classifiers, trained on real sentences, and
the sentence scores every user of a classifier reads (the monitor, the model's evaluation, the LSTM attacker)."""

from __future__ import annotations

import time
import zlib
from pathlib import Path

import numpy as np

from authorguard.neural.a4nt.config import A4NTConfig
from authorguard.neural.a4nt.data import SettingData, pad_batch
from authorguard.neural.a4nt.folder import classifier_spec
from authorguard.neural.a4nt.loop import Report, balanced_batch, clip_step, device_name, quiet, run_steps, save_file
from authorguard.neural.a4nt.text import Vocabulary


def sentence_scores(model, sentences: list[list[int]], batch_size: int = 256):
    """Class log-probabilities of each sentence, (N, C) numpy; empty sentences read as one ``<unk>``."""
    import torch

    outputs = []
    model.eval()
    with torch.no_grad():
        for start in range(0, len(sentences), batch_size):
            chunk = [s or [Vocabulary.unk] for s in sentences[start : start + batch_size]]
            ids, mask = pad_batch(chunk)
            outputs.append(torch.log_softmax(model(ids, mask), dim=-1).cpu().numpy())
    return np.concatenate(outputs) if outputs else np.zeros((0, 0))


def train_classifier(
    config: A4NTConfig,
    folder: Path,
    data: SettingData,
    vocabulary: Vocabulary,
    holdout: str | None = None,
    report: Report = quiet,
) -> Path:
    """Train the attribute classifier (``holdout`` None) or one holdout classifier on real sentences; stores
    its validation sentence accuracy and macro F1."""
    import torch

    from authorguard.metrics.classification import classification_scores
    from authorguard.neural.a4nt.networks import build_classifier

    name = "classifier" if holdout is None else f"holdout-{holdout}"
    path = folder / ("classifier.pt" if holdout is None else f"holdouts/{holdout}.pt")
    if path.exists():
        return path
    spec = classifier_spec(config, vocabulary, len(data.classes), holdout)
    torch.manual_seed(zlib.crc32(name.encode()) + config.seed)
    model = build_classifier(spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.classifier_learning_rate)
    steps = config.classifier_steps if holdout is None else config.holdout_steps

    def step(_, rng, extra):
        sentences, labels = balanced_batch(data, config.pretrain_batch_size, rng)
        ids, mask = pad_batch(sentences)
        loss = torch.nn.functional.cross_entropy(model(ids, mask), torch.tensor(labels))
        clip_step(optimizer, model.parameters(), loss)
        return {"loss": loss.item()}

    started = time.perf_counter()
    history, _ = run_steps(
        name,
        path.with_name(path.name + ".checkpoint"),
        {"model": model},
        {"optimizer": optimizer},
        steps,
        step,
        config,
        report,
    )
    predicted = sentence_scores(model, data.validation).argmax(1) if data.validation else []
    metrics = classification_scores(data.validation_labels, list(predicted)) if data.validation else {}
    save_file(
        {
            "spec": spec,
            "state": model.state_dict(),
            "history": history,
            "validation": metrics,
            "seconds": time.perf_counter() - started,
            "device": device_name(),
        },
        path,
    )
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path
