"""Author-level DP-SGD on a causal language model's LoRA adapter.

Each step draws every author with probability q (Poisson sampling: the subsampled Gaussian's analysis needs it),
computes the drawn authors' posts' per-post gradients in one backward pass per micro-batch (Opacus's
``GradSampleModule``), sums them into one gradient per author (the mean over that author's posts), and hands those
to Opacus's ``DPOptimizer`` as its per-sample gradients: it clips each to ``clip``, adds Gaussian noise of deviation
``noise_multiplier * clip`` to their sum and divides by the expected number of drawn authors. The unit clipped is
the author, so the accountant's ε (:mod:`authorguard.privacy.dp_sgd`) is ε per author.

The training log (authors drawn a step, the loss of their posts before noise) is a diagnostic for the curator who
holds the corpus: it is not covered by the guarantee and is never part of a release.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

import numpy as np

from authorguard.neural.dp_text.config import DPTextConfig
from authorguard.neural.dp_text.data import AuthorExamples, padded


@dataclass
class TrainingLog:
    """Per step: the authors drawn and the mean training loss of their posts (nats a token; NaN for a step that
    drew nobody); and the noise multiplier and sampling rate the accountant was given."""

    noise_multiplier: float
    sample_rate: float
    drawn: list[int] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)


def sampling_rate(config: DPTextConfig, n_authors: int) -> float:
    """q: the probability each author is drawn at a step (``authors_per_step`` expected, at most every author)."""
    return min(1.0, config.authors_per_step / n_authors)


def with_lora(model, config: DPTextConfig, seed: int | None):
    """``model`` with a fresh LoRA adapter on ``config.lora_targets``: only the adapter is trained. ``seed``: its
    initial matrices (drawn from torch's global generator, so drawn under a fork of it; None: fresh entropy)."""
    import torch
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(
        r=config.lora_rank,
        lora_alpha=config.lora_alpha,
        lora_dropout=0.0,
        target_modules=list(config.lora_targets),
        task_type="CAUSAL_LM",
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(secrets.randbits(63) if seed is None else seed)
        return get_peft_model(model, lora)


def post_losses(module, input_ids, attention_mask):
    """(posts,) each post's mean next-token loss (nats), padding left out."""
    import torch

    logits = module(input_ids=input_ids, attention_mask=attention_mask).logits[:, :-1]
    targets, kept = input_ids[:, 1:], attention_mask[:, 1:].to(logits.dtype)
    tokens = torch.nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1), reduction="none"
    ).view(targets.shape)
    return (tokens * kept).sum(1) / kept.sum(1).clamp(min=1.0)


def author_gradients(module, params, examples: AuthorExamples, drawn: np.ndarray, config, pad_id: int, device):
    """(per-author gradients: one tensor (authors, *shape) per parameter, the mean loss of their posts): each drawn
    author's gradient of the mean loss over their posts."""
    import torch

    positions = examples.posts_of(drawn)
    row_of = {int(a): r for r, a in enumerate(drawn)}
    rows = np.asarray([row_of[int(a)] for a in examples.author_of[positions]], dtype=np.int64)
    weights = 1.0 / np.bincount(rows, minlength=len(drawn))[rows]
    sums = [torch.zeros((len(drawn), *p.shape), device=device, dtype=p.dtype) for p in params]
    total = 0.0
    for start in range(0, len(positions), config.micro_batch):
        chunk = slice(start, start + config.micro_batch)
        input_ids, mask = padded([examples.token_ids[i] for i in positions[chunk]], pad_id)
        losses = post_losses(module, input_ids.to(device), mask.to(device))
        (losses * torch.as_tensor(weights[chunk], device=device, dtype=losses.dtype)).sum().backward()
        index = torch.as_tensor(rows[chunk], device=device)
        for summed, p in zip(sums, params):
            summed.index_add_(0, index, p.grad_sample.to(summed.dtype))
            p.grad_sample, p.grad = None, None
        total += float(losses.detach().sum())
    return sums, total / max(len(positions), 1)


def train(
    model, examples: AuthorExamples, config: DPTextConfig, noise_multiplier: float, pad_id: int, seed: int | None
):
    """Fine-tune ``model``'s trainable parameters (its adapter) in place for ``config.steps`` author-level DP-SGD
    steps. ``seed``: the draws of authors and the noise, for a reproducible research run — the guarantee holds only
    while it is secret (whoever knows it recomputes both); None: both seeded from the operating system's entropy,
    never written, and Opacus's noise hardened against floating-point attacks (``secure_mode``). Returns the
    :class:`TrainingLog` (the curator's: not part of a release)."""
    import torch
    from opacus import GradSampleModule
    from opacus.optimizers import DPOptimizer

    device = next(model.parameters()).device
    params = [p for p in model.parameters() if p.requires_grad]
    sample_rate = sampling_rate(config, examples.n_authors)
    draw_seed, noise_seed = (seed, seed) if seed is not None else (secrets.randbits(128), secrets.randbits(63))
    optimizer = DPOptimizer(
        torch.optim.Adam(params, lr=config.learning_rate),
        noise_multiplier=noise_multiplier,
        max_grad_norm=config.clip,
        expected_batch_size=sample_rate * examples.n_authors,
        loss_reduction="mean",
        generator=torch.Generator(device=device).manual_seed(noise_seed),
        secure_mode=seed is None,
    )
    module = GradSampleModule(model, batch_first=True, loss_reduction="sum")
    draws = np.random.default_rng(draw_seed)
    log = TrainingLog(noise_multiplier, sample_rate)
    model.train()
    for _ in range(config.steps):
        drawn = np.flatnonzero(draws.random(examples.n_authors) < sample_rate)
        if drawn.size:
            sums, loss = author_gradients(module, params, examples, drawn, config, pad_id, device)
        else:  # nobody drawn: the step is the noise alone, as the analysis assumes
            sums, loss = [torch.zeros((0, *p.shape), device=device, dtype=p.dtype) for p in params], float("nan")
        for p, summed in zip(params, sums):
            p.grad_sample = summed
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        log.drawn.append(int(drawn.size))
        log.losses.append(loss)
    module.cleanup()  # the hooks off: the model samples as a plain model
    model.eval()
    return log
