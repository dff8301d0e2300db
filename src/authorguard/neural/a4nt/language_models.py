"""The ``language-models`` stage: one word-level language model per class (the generators' language loss)."""

from __future__ import annotations

import time
import zlib
from pathlib import Path
from typing import TypedDict

from authorguard.neural.a4nt.config import A4NTConfig
from authorguard.neural.a4nt.data import SettingData, pad_batch
from authorguard.neural.a4nt.loop import Report, class_batch, clip_step, device_name, quiet, run_steps, save_file
from authorguard.neural.a4nt.text import Vocabulary


class LanguageModelSpec(TypedDict):
    """The arguments of :class:`~authorguard.neural.a4nt.networks.LanguageModel`, stored with its weights."""

    vocab_size: int
    embedding_dim: int
    hidden_size: int
    dropout: float


def train_language_model(
    config: A4NTConfig, folder: Path, data: SettingData, vocabulary: Vocabulary, label: int, report: Report = quiet
) -> Path:
    """Train class ``label``'s word-level language model; stores its validation perplexity on that class."""
    import torch

    from authorguard.neural.a4nt.networks import LanguageModel

    name = f"language-model-{label}"
    path = folder / f"language-models/{label}.pt"
    if path.exists():
        return path
    spec: LanguageModelSpec = {
        "vocab_size": len(vocabulary),
        "embedding_dim": config.embedding_dim,
        "hidden_size": config.hidden_size,
        "dropout": config.dropout,
    }
    torch.manual_seed(zlib.crc32(name.encode()) + config.seed)
    model = LanguageModel(**spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.pretrain_learning_rate)

    def step(_, rng, extra):
        ids, mask = pad_batch(class_batch(data, label, config.pretrain_batch_size, rng), append_end=True)
        loss = model.token_nll(ids, mask).sum() / mask.sum()
        clip_step(optimizer, model.parameters(), loss)
        return {"loss": loss.item()}

    started = time.perf_counter()
    history, _ = run_steps(
        name,
        path.with_name(path.name + ".checkpoint"),
        {"model": model},
        {"optimizer": optimizer},
        config.language_model_steps,
        step,
        config,
        report,
    )
    mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label]
    perplexity = None
    if mine:
        with torch.no_grad():
            ids, mask = pad_batch(mine[:1000], append_end=True)
            perplexity = float(torch.exp(model.token_nll(ids, mask).sum() / mask.sum()))
    save_file(
        {
            "spec": spec,
            "state": model.state_dict(),
            "history": history,
            "validation_perplexity": perplexity,
            "seconds": time.perf_counter() - started,
            "device": device_name(),
        },
        path,
    )
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path
