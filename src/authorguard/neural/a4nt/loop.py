"""The loop every A⁴NT training stage shares: resumable steps with deterministic per-step seeds, checkpoint files,
batches drawn from the setting's sentences, gradient steps, and the training device.

Every step draws its batch from ``numpy.random.default_rng([seed, stage, step])`` and seeds torch the same way, so
a stage resumed from a checkpoint continues exactly as an uninterrupted run would (on the same device: a GPU draws
other Gumbel noise and sums in another order than the CPU, so a folder trained there is not bit-identical to one
trained here). Files are stored as CPU tensors' state and load on either device.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from authorguard.exceptions import InputError
from authorguard.neural.a4nt.config import A4NTConfig
from authorguard.neural.a4nt.data import SettingData

Report = Callable[[str, int, int, dict], None]


def quiet(stage: str, step: int, total: int, record: dict) -> None:
    return None


def on_cpu(obj):
    """``obj`` with every tensor in it (nested dicts, lists, tuples) moved to the CPU."""
    import torch

    if isinstance(obj, torch.Tensor):
        return obj.cpu()
    if isinstance(obj, dict):
        return {k: on_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(on_cpu(v) for v in obj)
    return obj


def device_name() -> str:
    """Where the stage ran (torch's default device), recorded in its file."""
    import torch

    return str(torch.get_default_device())


def save_file(obj, path: Path) -> None:
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    torch.save(on_cpu(obj), partial)
    os.replace(partial, path)


def load_file(path: Path) -> dict:
    import torch

    from authorguard.utils.weights import first_line

    try:
        return torch.load(path, map_location="cpu", weights_only=False)
    except Exception as error:  # torch raises many kinds for a truncated or foreign file
        raise InputError(f"A4NT model file {path} cannot be read: {first_line(error, 160)}") from None


def noise_generator(rng: np.random.Generator):
    """A torch generator on the default device (a GPU's sampling needs a generator of its own device), seeded from
    the step's ``rng``."""
    import torch

    return torch.Generator(device=torch.get_default_device()).manual_seed(int(rng.integers(2**62)))


def differentiable_eval(*networks) -> None:
    """Frozen networks that gradients pass through (the attribute classifier, the language models): evaluation mode
    (no dropout), except their single-layer LSTMs, set to training mode — cuDNN computes an LSTM's backward pass in
    training mode only, and a one-layer LSTM (no inter-layer dropout) computes the same either way. Called at each
    step, since scoring (:func:`sentence_scores`) puts a network back in evaluation mode."""
    import torch

    for network in networks:
        if network is None:
            continue
        network.eval()
        for module in network.modules():
            if isinstance(module, torch.nn.RNNBase) and (module.num_layers == 1 or module.dropout == 0):
                module.train()


def stage_seed(config: A4NTConfig, stage: str, step: int) -> list[int]:
    return [config.seed, zlib.crc32(stage.encode()), step]


def run_steps(
    stage: str,
    checkpoint: Path,
    modules: dict,
    optimizers: dict,
    steps: int,
    step_fn,
    config: A4NTConfig,
    report: Report,
    extra: dict | None = None,
) -> tuple[list[dict], dict]:
    """Run ``step_fn(step, rng, extra) -> record`` for steps not done yet; checkpoint every
    ``config.checkpoint_every`` steps; a step that sets ``extra["stop"]`` ends the stage. Returns (history of
    records, extra state)."""
    import torch

    history, start, extra = [], 0, dict(extra or {})
    if checkpoint.exists():  # (a stage stopped early leaves no checkpoint: its file is written at once)
        state = load_file(checkpoint)
        for name, module in modules.items():
            module.load_state_dict(state["modules"][name])
        for name, optimizer in optimizers.items():
            optimizer.load_state_dict(state["optimizers"][name])
        history, start, extra = state["history"], state["step"], state["extra"]
    for module in modules.values():
        module.train()
    for step in range(start, steps):
        seed = stage_seed(config, stage, step)
        torch.manual_seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        record = step_fn(step, np.random.default_rng(seed), extra)
        history.append(record)
        report(stage, step + 1, steps, record)
        if extra.get("stop"):  # the step ended the stage (early stopping)
            break
        if (step + 1) % config.checkpoint_every == 0 and step + 1 < steps:
            save_file(
                {
                    "modules": {k: m.state_dict() for k, m in modules.items()},
                    "optimizers": {k: o.state_dict() for k, o in optimizers.items()},
                    "history": history,
                    "step": step + 1,
                    "extra": extra,
                },
                checkpoint,
            )
    for module in modules.values():
        module.eval()
    return history, extra


def balanced_batch(data: SettingData, size: int, rng: np.random.Generator) -> tuple[list[list[int]], list[int]]:
    """``size`` training sentences, classes in turn (balanced), each class's drawn uniformly."""
    sentences, labels = [], []
    for i in range(size):
        label = i % len(data.classes)
        pool = data.train[label]
        sentences.append(pool[int(rng.integers(len(pool)))])
        labels.append(label)
    return sentences, labels


def class_batch(data: SettingData, label: int, size: int, rng: np.random.Generator) -> list[list[int]]:
    pool = data.train[label]
    return [pool[int(i)] for i in rng.integers(len(pool), size=size)]


def clip_step(optimizer, parameters, loss) -> None:
    import torch

    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, 5.0)
    optimizer.step()


def training_device(device: str = "cpu"):
    """``device`` as a ``torch.device``, which is also the context (``with training_device("cuda"): ...``) that
    makes it torch's default device, so networks and batches are made there: ``cpu``, ``cuda``, ``cuda:N`` or
    ``auto`` (a GPU when torch sees one). An unknown or absent device is refused with a one-line error."""
    import torch

    name = str(device).strip().lower()
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        resolved = torch.device(name)
    except RuntimeError:
        resolved = None
    if resolved is None or resolved.type not in ("cpu", "cuda"):
        raise InputError(f"unknown device {device!r} (cpu, cuda, cuda:N or auto)")
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise InputError(f"device {device!r}: torch sees no CUDA GPU here (use cpu or auto)")
    return resolved
