"""The style loss of the neutral-target A⁴NT (beyond the paper; derivation in docs/neural.md).

The paper's generator Z_{x→y'} is pushed until the attribute classifier reads the *other* class y'. An attacker
retrained on such output reads the flip back: the output's style is a function of the source class. The neutral
generator instead is pushed until a classifier's posterior on its output equals the class prior π:

    L_neutral(z) = KL(π ‖ D(·|z)) = Σ_c π_c (log π_c − log D(c|z))  ≥ 0, zero iff D(·|z) = π,

for the frozen attribute classifier (the static attacker) and for an adversary retrained on the generator's own
output (the adapted attacker). Zero for every z under the Bayes-optimal adversary means the output carries no
information about the source class (I(Y; Z) = 0).
"""

from __future__ import annotations

import torch


def neutral_loss(log_probs: torch.Tensor, prior: torch.Tensor | None = None) -> torch.Tensor:
    """KL(prior ‖ posterior) per row, in nats, shape (B,).

    ``log_probs``: (B, C) class log-probabilities of a classifier on the generator's output (log-softmax);
    ``prior``: (C,) class probabilities (None: uniform, the balanced batches A⁴NT trains on). The minimum, 0, is
    reached where the posterior equals the prior; a confident posterior on any class, the source's or another's,
    costs more the more confident it is.
    """
    if log_probs.dim() != 2:
        raise ValueError(f"neutral_loss expects (batch, classes) log-probabilities, got shape {tuple(log_probs.shape)}")
    classes = log_probs.shape[1]
    if prior is None:
        prior = torch.full((classes,), 1.0 / classes, dtype=log_probs.dtype, device=log_probs.device)
    prior = prior.to(log_probs)
    if prior.shape != (classes,) or bool((prior <= 0).any()):
        raise ValueError(f"neutral_loss: the prior must be {classes} positive probabilities")
    prior = prior / prior.sum()
    return (prior * (prior.log() - log_probs)).sum(-1)


def pooled_log_probs(log_probs: torch.Tensor, window: int, prior: torch.Tensor | None = None) -> torch.Tensor:
    """The posterior of windows of ``window`` consecutive rows, as an attacker reading them together computes it
    when it treats the sentences as independent evidence (naive Bayes):

        log D(c | s_1..s_k) = log π_c + Σ_i (log D(c | s_i) − log π_c) − log Z,

    ``log_probs``: (B, C) sentence log-posteriors, B a multiple of ``window``; returns (B / window, C). A window of
    1 returns the input.
    """
    rows, classes = log_probs.shape
    if window < 1 or rows % window:
        raise ValueError(f"pooled_log_probs: {rows} rows do not form windows of {window}")
    log_prior = (
        torch.full((classes,), 1.0 / classes, dtype=log_probs.dtype, device=log_probs.device)
        if prior is None
        else (prior / prior.sum()).to(log_probs).log()
    )
    evidence = (log_probs - log_prior).reshape(rows // window, window, classes).sum(1)
    return torch.log_softmax(log_prior + evidence, dim=-1)


def window_neutral_loss(log_probs: torch.Tensor, window: int, prior: torch.Tensor | None = None) -> torch.Tensor:
    """KL(prior ‖ pooled posterior) per window of ``window`` consecutive rows (one source class each), shape
    (B / window,), in nats.

    Why: an attacker of a document adds the evidence of its ~100 sentences, so a small edge every sentence keeps
    becomes a large one per document, while the per-sentence loss of such an edge is tiny (a 0.58 posterior on the
    source class costs 0.013 nats). Pooled over 8 sentences the same edge costs 0.67 nats, and its gradient
    reaches each sentence undiminished by the others; edges that differ in sign between sentences cancel, as they
    do for the attacker. ``window`` 1 is :func:`neutral_loss`.
    """
    return neutral_loss(pooled_log_probs(log_probs, window, prior), prior)
