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
