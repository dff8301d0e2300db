"""The ``autoencoder`` stage: each target decoder reconstructs its own class's sentences through the shared encoder
(the paper's pre-training, and its autoencoder baseline), or one neutral decoder reconstructs every class's."""

from __future__ import annotations

import time
import zlib
from pathlib import Path

import numpy as np

from authorguard.neural.a4nt.config import AUTOENCODER, NEUTRAL_AUTOENCODER, A4NTConfig, generator_file
from authorguard.neural.a4nt.data import SettingData, pad_batch
from authorguard.neural.a4nt.folder import generator_spec
from authorguard.neural.a4nt.loop import Report, class_batch, clip_step, device_name, quiet, run_steps, save_file
from authorguard.neural.a4nt.text import Vocabulary


def reconstruction_meteor(model, data: SettingData, vocabulary: Vocabulary, sentences: int, decoder=None) -> float:
    """Mean METEOR of the greedy reconstructions of the first ``sentences`` validation sentences, each through
    the decoder of its own class (``decoder`` set: that one decoder for all)."""
    import torch

    from authorguard.metrics.content import meteor
    from authorguard.neural.a4nt.text import detokenize

    scores = []
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for label in range(len(data.classes)):
            mine = [s for s, c in zip(data.validation, data.validation_labels) if c == label][
                : max(1, sentences // len(data.classes))
            ]
            for start in range(0, len(mine), 256):
                chunk = mine[start : start + 256]
                out = model.generate(
                    *pad_batch(chunk), label if decoder is None else decoder, max(map(len, chunk)) + 5, "greedy"
                )
                for original, row, words in zip(chunk, out["tokens"], out["words"]):
                    scores.append(
                        meteor(
                            detokenize(vocabulary.decode(original)), detokenize(vocabulary.decode(row[words].tolist()))
                        )
                    )
    model.train(was_training)
    return float(np.mean(scores)) if scores else float("nan")


def _reconstruction_loss(model, data: SettingData, per_class: int, rng, neutral: bool):
    """Mean over the classes of the per-token negative log-likelihood of reconstructing a batch of each class's
    sentences (through its own decoder, or the one neutral decoder)."""
    import torch

    losses = []
    for label in range(len(data.classes)):
        sentences = class_batch(data, label, per_class, rng)
        source, source_mask = pad_batch(sentences)
        target, target_mask = pad_batch(sentences, append_end=True)
        nll = model.target_nll(source, source_mask, target, target_mask, 0 if neutral else label)
        losses.append(nll.sum() / target_mask.sum())
    return torch.stack(losses).mean()


def _keep_best(extra: dict, model, step: int, score: float, patience: int) -> None:
    """Record a validation METEOR in EXTRA's curve, keep the best weights, and ask to stop after PATIENCE
    measurements without a gain."""
    import copy

    extra.setdefault("curve", []).append({"step": step, "meteor": score})
    if score > extra.get("best_meteor", -1.0):
        extra.update(best_meteor=score, best_step=step, best_state=copy.deepcopy(model.state_dict()), since_best=0)
    else:
        extra["since_best"] += 1
        extra["stop"] = extra["since_best"] >= patience


def pretrain_autoencoder(
    config: A4NTConfig,
    folder: Path,
    data: SettingData,
    vocabulary: Vocabulary,
    report: Report = quiet,
    neutral: bool = False,
) -> Path:
    """Each target decoder learns to reconstruct its own class's sentences through the shared encoder; with
    ``neutral``, one decoder learns to reconstruct every class's sentences (``neutral-autoencoder.pt``, the
    neutral objective's starting point). With ``config.autoencoder_eval_every`` the best weights by validation
    METEOR are kept and training stops after ``autoencoder_patience`` measurements without a gain; the curve is
    stored (``curve``: step, METEOR)."""
    import torch

    from authorguard.neural.a4nt.networks import StyleTransfer

    name = NEUTRAL_AUTOENCODER if neutral else AUTOENCODER
    path = folder / generator_file(name)
    if path.exists():
        return path
    spec = generator_spec(config, vocabulary, 1 if neutral else len(data.classes))
    torch.manual_seed(zlib.crc32(name.encode()) + config.seed)
    model = StyleTransfer(**spec)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.pretrain_learning_rate)
    per_class = max(1, config.pretrain_batch_size // len(data.classes))
    every = config.autoencoder_eval_every if data.validation else 0

    def step(index, rng, extra):
        loss = _reconstruction_loss(model, data, per_class, rng, neutral)
        clip_step(optimizer, model.parameters(), loss)
        record = {"loss": loss.item()}
        if every and ((index + 1) % every == 0 or index + 1 == config.autoencoder_steps):
            score = reconstruction_meteor(
                model, data, vocabulary, config.autoencoder_eval_sentences, 0 if neutral else None
            )
            record["validation_meteor"] = score
            _keep_best(extra, model, index + 1, score, config.autoencoder_patience)
        return record

    started = time.perf_counter()
    history, extra = run_steps(
        name,
        path.with_name(path.name + ".checkpoint"),
        {"model": model},
        {"optimizer": optimizer},
        config.autoencoder_steps,
        step,
        config,
        report,
    )
    if "best_state" in extra:
        model.load_state_dict(extra["best_state"])
    save_file(
        {
            "spec": spec,
            "state": model.state_dict(),
            "history": history,
            "seconds": time.perf_counter() - started,
            "device": device_name(),
            "curve": extra.get("curve", []),
            "best_step": extra.get("best_step"),
            "stopped_early": bool(extra.get("stop")),
        },
        path,
    )
    path.with_name(path.name + ".checkpoint").unlink(missing_ok=True)
    return path
