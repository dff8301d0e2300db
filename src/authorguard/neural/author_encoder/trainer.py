"""Contrastive training of the author encoder: checkpointed, resumable, evaluated by retrieval at the end.

Layout of a training folder (default ``<AUTHORGUARD_CACHE>/models/author-encoder``): ``checkpoint.pt`` (the
trainable weights, optimiser, scheduler, sampler state, losses and the config; rewritten every
``checkpoint_every`` steps, atomically) and ``final/`` (the saved model, :mod:`.model`). A run whose folder holds a
checkpoint of the same config continues from it; a checkpoint of another config is an error naming it.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.author_encoder.config import AuthorEncoderConfig
from authorguard.neural.author_encoder.episodes import AuthorPools, author_pools, sample_batch
from authorguard.neural.author_encoder.model import AuthorEncoder, build_network, trained_cache
from authorguard.neural.author_encoder.retrieval import char_ngram_embedder, minilm_embedder, retrieval_scores
from authorguard.utils.weights import require_torch


@dataclass
class TrainResult:
    """What a run produced: the model folder, the loss per step, retrieval scores, wall time (s) of this call."""

    folder: Path
    losses: list = field(default_factory=list)
    retrieval: dict = field(default_factory=dict)
    seconds: float = 0.0
    resumed_at: int = 0
    data: dict = field(default_factory=dict)


def contrastive_loss(embeddings, n_authors: int, texts_per_episode: int, temperature: float):
    """Symmetric InfoNCE over episodes. ``embeddings``: (n_authors * 2 * k, d) unit text vectors ordered
    (author, episode, text); each author's first episode must pick its second among all authors' and vice versa."""
    torch = require_torch()
    episodes = embeddings.reshape(n_authors, 2, texts_per_episode, -1).mean(2)
    episodes = torch.nn.functional.normalize(episodes, dim=-1)
    logits = episodes[:, 0] @ episodes[:, 1].T / temperature
    target = torch.arange(n_authors)
    return 0.5 * (
        torch.nn.functional.cross_entropy(logits, target) + torch.nn.functional.cross_entropy(logits.T, target)
    )


def _scheduler(optimizer, config: AuthorEncoderConfig):
    torch = require_torch()

    def factor(step: int) -> float:
        if step < config.warmup_steps:
            return (step + 1) / (config.warmup_steps + 1)
        return max(0.0, (config.steps - step) / max(1, config.steps - config.warmup_steps))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def train_author_encoder(
    config: AuthorEncoderConfig,
    folder: str | Path | None = None,
    *,
    corpora: dict | None = None,
    pools: AuthorPools | None = None,
    evaluate: bool = True,
    command: str = "",
    progress: Callable[[int, int, float], None] | None = None,
) -> TrainResult:
    """Train (or continue training) and save to ``folder/final``; returns the losses and retrieval scores."""
    torch = require_torch()
    started = time.perf_counter()
    folder = Path(folder) if folder is not None else trained_cache()
    folder.mkdir(parents=True, exist_ok=True)
    pools = pools or author_pools(config, corpora)
    module, tokenizer = build_network(config, seed=config.seed)
    trainable = [p for p in module.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=config.learning_rate, weight_decay=config.weight_decay)
    scheduler = _scheduler(optimizer, config)
    rng = np.random.default_rng(config.seed)
    losses: list[float] = []
    checkpoint_file = folder / "checkpoint.pt"
    if checkpoint_file.is_file():
        state = torch.load(checkpoint_file, weights_only=False)
        if state.get("config") != config.to_dict():
            raise InputError(
                f"author encoder: {checkpoint_file} was trained with another config; delete it or pass the same config"
            )
        module.load_state_dict(state["trainable"], strict=False)
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        rng.bit_generator.state = state["sampler"]
        torch.set_rng_state(state["torch_rng"])
        losses = list(state["losses"])
    else:
        torch.manual_seed(config.seed)
    resumed_at = len(losses)
    module.train()
    for step in range(resumed_at, config.steps):
        texts, n_authors = sample_batch(pools.train, config.authors_per_batch, config.texts_per_episode, rng)
        batch = tokenizer(texts, truncation=True, max_length=config.max_tokens, padding=True, return_tensors="pt")
        loss = contrastive_loss(
            module(batch["input_ids"], batch["attention_mask"]), n_authors, config.texts_per_episode, config.temperature
        )
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.detach()))
        if progress is not None:
            progress(step + 1, config.steps, losses[-1])
        if (step + 1) % config.checkpoint_every == 0 or step + 1 == config.steps:
            _save_checkpoint(checkpoint_file, module, optimizer, scheduler, rng, losses, config)
    encoder = AuthorEncoder(module, tokenizer, config)
    result = TrainResult(folder / "final", losses, {}, 0.0, resumed_at, pools.summary())
    if evaluate:
        result.retrieval = compare_retrieval(encoder, pools.heldout, seed=config.seed)
    result.seconds = time.perf_counter() - started
    encoder.save(result.folder, provenance(config, result, command))
    return result


def _save_checkpoint(path: Path, module, optimizer, scheduler, rng, losses, config) -> None:
    torch = require_torch()
    trainable = {k: v for k, v in module.state_dict().items() if "lora_" in k or k.startswith("projection.")}
    state = {
        "trainable": trainable,
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "sampler": rng.bit_generator.state,
        "torch_rng": torch.get_rng_state(),
        "losses": losses,
        "config": config.to_dict(),
    }
    partial = path.with_suffix(".partial")
    torch.save(state, partial)
    os.replace(partial, path)  # a run killed mid-write leaves the previous checkpoint intact


def compare_retrieval(encoder: AuthorEncoder, heldout: dict, seed: int = 0) -> dict:
    """Retrieval on the held-out authors: the trained encoder beside untrained MiniLM and character n-grams."""
    fit_texts = [t for texts in heldout.values() for t in texts]
    embedders = {
        "author-encoder": lambda texts: encoder.encode(texts),
        "minilm (untrained)": minilm_embedder(),
        "char 1-4-gram tf-idf": char_ngram_embedder(fit_texts),
    }
    return {
        name: {str(size): scores for size, scores in retrieval_scores(heldout, embed, seed=seed).items()}
        for name, embed in embedders.items()
    }


def provenance(config: AuthorEncoderConfig, result: TrainResult, command: str) -> dict:
    """What a user needs to trust or redo the model: command, data, seed, losses, scores, machine."""
    import torch
    import transformers

    losses = result.losses
    return {
        "command": command,
        "config": config.to_dict(),
        "data": result.data,
        "steps": len(losses),
        "loss_first_10": float(np.mean(losses[:10])) if losses else None,
        "loss_last_10": float(np.mean(losses[-10:])) if losses else None,
        "retrieval": result.retrieval,
        "seconds_this_call": round(result.seconds, 1),
        "resumed_at_step": result.resumed_at,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__} (threads "
        f"{torch.get_num_threads()})",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_json(path: Path, obj: dict) -> None:
    path.write_text(json.dumps(obj, indent=2), encoding="utf-8")
