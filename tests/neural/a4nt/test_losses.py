"""The neutral objective's style loss on hand-made classifier outputs."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from authorguard.neural.a4nt.losses import neutral_loss, pooled_log_probs, window_neutral_loss  # noqa: E402


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


def test_a_window_of_one_is_the_sentence_loss():
    rows = _log([0.9, 0.1], [0.3, 0.7], [0.5, 0.5], [0.58, 0.42])
    assert window_neutral_loss(rows, 1).tolist() == pytest.approx(neutral_loss(rows).tolist(), rel=1e-12)


def test_pooling_adds_the_sentences_evidence_as_naive_bayes_does():
    # two sentences at 0.8 and 0.6 for class 0: odds 4 and 1.5 multiply to 6, a pooled posterior of 6/7
    pooled = pooled_log_probs(_log([0.8, 0.2], [0.6, 0.4]), 2).exp()
    assert pooled[0].tolist() == pytest.approx([6 / 7, 1 / 7], rel=1e-12)
    # with a prior, each sentence's evidence is its posterior over the prior, counted once
    prior = torch.tensor([0.75, 0.25], dtype=torch.float64)
    pooled = pooled_log_probs(_log([0.75, 0.25], [0.9, 0.1]), 2, prior).exp()
    assert pooled[0].tolist() == pytest.approx([0.9, 0.1], rel=1e-12)


def test_a_small_edge_every_sentence_keeps_costs_more_the_longer_the_window_and_opposite_edges_cancel():
    edge = _log(*[[0.58, 0.42]] * 16)
    costs = [window_neutral_loss(edge, k).mean().item() for k in (1, 8, 16)]
    assert costs[0] == pytest.approx(0.012967, abs=1e-6)  # the per-sentence loss barely sees it
    assert costs[1] == pytest.approx(0.67083, abs=1e-5)  # docs/neural.md: 0.67 nats over 8 sentences
    assert costs[0] < costs[1] < costs[2]
    mixed = _log(*[[0.58, 0.42], [0.42, 0.58]] * 8)
    assert window_neutral_loss(mixed, 16).item() == pytest.approx(0.0, abs=1e-12)
    assert window_neutral_loss(mixed, 1).mean().item() == pytest.approx(costs[0])


def test_the_pooled_gradient_on_a_consistent_edge_is_larger_than_the_per_sentence_one():
    logits = torch.full((8, 2), 0.0, dtype=torch.float64)
    logits[:, 0] = math.log(0.58 / 0.42)
    logits.requires_grad_(True)
    window_neutral_loss(torch.log_softmax(logits, -1), 8).sum().backward()
    pooled = logits.grad[:, 0].clone()
    logits.grad = None
    neutral_loss(torch.log_softmax(logits, -1)).sum().backward()
    assert bool((pooled > 0).all())  # every sentence is pushed away from the source class
    assert bool((pooled > 4 * logits.grad[:, 0]).all())


def test_rows_that_do_not_fill_windows_are_refused():
    with pytest.raises(ValueError, match="windows of 2"):
        window_neutral_loss(_log([0.5, 0.5], [0.5, 0.5], [0.5, 0.5]), 2)
