"""The neutral objective's style loss on hand-made classifier outputs."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from authorguard.neural.a4nt.losses import neutral_loss  # noqa: E402


def _log(*rows):
    return torch.tensor(rows, dtype=torch.float64).log()


def test_the_prior_is_the_minimum_and_the_loss_is_never_negative():
    values = neutral_loss(_log([0.5, 0.5], [0.9, 0.1], [0.1, 0.9], [0.999, 0.001]))
    assert values[0].item() == pytest.approx(0.0, abs=1e-12)
    assert bool((values >= 0).all())
    # 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1), by hand
    assert values[1].item() == pytest.approx(0.5 * math.log(0.5 / 0.9) + 0.5 * math.log(0.5 / 0.1), rel=1e-12)
    # a confident reading of the *other* class costs as much as of the source's: flipping is not rewarded
    assert values[1].item() == pytest.approx(values[2].item())
    assert values[3] > values[1]


def test_a_non_uniform_prior_is_its_own_minimum():
    prior = torch.tensor([0.7, 0.2, 0.1], dtype=torch.float64)
    values = neutral_loss(_log([0.7, 0.2, 0.1], [1 / 3, 1 / 3, 1 / 3]), prior)
    assert values[0].item() == pytest.approx(0.0, abs=1e-12)
    assert values[1].item() > 0


def test_gradient_steps_move_a_posterior_to_the_prior():
    logits = torch.tensor([[3.0, -1.0], [-2.0, 2.5]], requires_grad=True)
    optimizer = torch.optim.SGD([logits], lr=0.5)
    before = neutral_loss(torch.log_softmax(logits, -1)).sum().item()
    for _ in range(200):
        optimizer.zero_grad()
        neutral_loss(torch.log_softmax(logits, -1)).sum().backward()
        optimizer.step()
    assert neutral_loss(torch.log_softmax(logits, -1)).sum().item() < 1e-3 < before
    assert torch.softmax(logits, -1).detach().numpy() == pytest.approx(0.5, abs=0.02)


def test_bad_shapes_and_priors_are_refused():
    with pytest.raises(ValueError, match="batch, classes"):
        neutral_loss(torch.zeros(3))
    with pytest.raises(ValueError, match="prior"):
        neutral_loss(_log([0.5, 0.5]), torch.tensor([1.0, 0.0]))
