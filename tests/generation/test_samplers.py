"""The shared token samplers: their draws follow the distributions they state (statistical tests), and DP-Prompt's
clipped sampler never lets one token's probability change by more than e^ε_token between two inputs (brute force)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from authorguard.exceptions import InputError  # noqa: E402
from authorguard.generation.samplers import ClippedSampler, GreedySampler, NucleusSampler, draw  # noqa: E402
from authorguard.privacy.clipped_sampling import clipped_distribution, token_epsilon  # noqa: E402


def exact_nucleus(logits: np.ndarray, temperature: float, top_p: float) -> np.ndarray:
    """The nucleus distribution by sorting the whole row (the definition)."""
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    order = np.argsort(-p, kind="stable")
    before = np.cumsum(p[order]) - p[order]
    kept = np.zeros_like(p)
    kept[order[before < top_p]] = p[order[before < top_p]]
    return kept / kept.sum()


def empirical(sampler, logits: np.ndarray, n: int, seed: int) -> np.ndarray:
    rows = torch.tensor(np.repeat(logits[None], n, 0), dtype=torch.float32)
    ids = sampler(rows, torch.Generator().manual_seed(seed)).numpy()
    return np.bincount(ids, minlength=len(logits)) / n


def chi_square_ok(observed: np.ndarray, expected: np.ndarray, n: int) -> bool:
    from scipy.stats import chisquare

    support = expected > 0
    assert observed[~support].sum() == 0  # nothing outside the support, ever
    return chisquare(observed[support] * n, expected[support] * n).pvalue > 1e-3


@pytest.mark.parametrize("shortlist", [3, 256])  # 3: the nucleus is wider than the shortlist, the full sort decides
def test_nucleus_draws_follow_the_truncated_distribution(shortlist):
    logits = np.random.default_rng(0).normal(0, 2, 40).astype(np.float32)
    sampler = NucleusSampler(0.7, 0.9, shortlist=shortlist)
    expected = exact_nucleus(logits.astype(np.float64), 0.7, 0.9)
    assert chi_square_ok(empirical(sampler, logits, 40_000, 1), expected, 40_000)


def test_top_p_one_keeps_every_token_and_greedy_takes_the_largest():
    logits = np.random.default_rng(1).normal(0, 1, 12).astype(np.float32)
    expected = exact_nucleus(logits.astype(np.float64), 1.3, 1.0)
    assert (expected > 0).all()
    assert chi_square_ok(empirical(NucleusSampler(1.3, 1.0), logits, 40_000, 2), expected, 40_000)
    rows = torch.tensor(np.stack([logits, -logits]))
    assert GreedySampler()(rows, None).tolist() == [int(np.argmax(logits)), int(np.argmax(-logits))]


@pytest.mark.parametrize("relative", [False, True])
def test_the_clipped_sampler_draws_from_softmax_of_clipped_tempered_logits(relative):
    logits = np.random.default_rng(3).normal(0, 4, 30).astype(np.float32)
    low, high = (-3.0, 0.0) if relative else (-2.0, 1.5)
    sampler = ClippedSampler(low, high, 1.7, relative)
    expected = clipped_distribution(logits[None], low, high, 1.7, relative)[0]
    assert chi_square_ok(empirical(sampler, logits, 40_000, 4), expected, 40_000)


@pytest.mark.parametrize("relative", [False, True])
def test_no_token_probability_moves_by_more_than_e_to_the_token_epsilon(relative):
    """Brute force over many pairs of inputs (adversarial and random logits): max p_x(v)/p_x'(v) <= e^ε_token."""
    (low, high), temperature = ((-4.0, 0.0) if relative else (-1.0, 2.0)), 0.8
    sampler = ClippedSampler(low, high, temperature, relative)
    bound = token_epsilon(low, high, temperature)
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(300):
        pair = rng.normal(0, 6, (2, 25)).astype(np.float32)
        pair[0, 0], pair[1, 0] = 50.0, -50.0  # a token pushed to opposite ends of the range
        probs = torch.softmax(sampler.scores(torch.tensor(pair)), -1).double().numpy()
        worst = max(worst, float(np.max(np.abs(np.log(probs[0]) - np.log(probs[1])))))
    assert worst <= bound + 1e-9
    assert worst > 0.5 * bound  # the check bites: the bound is nearly reached by these pairs


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
def test_sampling_stays_on_the_device_of_the_logits_and_a_seed_repeats_it(device):
    """The batched engine samples where the logits are (a GPU's (B, V) logits are never copied to the CPU): the
    draws come back on that device, follow the nucleus, and the same seeded generator gives the same ids."""
    from authorguard.utils.weights import torch_generator

    logits = np.random.default_rng(4).normal(0, 2, 30).astype(np.float32)
    rows = torch.tensor(np.repeat(logits[None], 20_000, 0), device=device)
    sampler = NucleusSampler(0.7, 0.9)
    first = sampler(rows, torch_generator(5, device))
    assert first.device.type == device
    assert torch.equal(first, sampler(rows, torch_generator(5, device)))
    observed = np.bincount(first.cpu().numpy(), minlength=len(logits)) / 20_000
    assert chi_square_ok(observed, exact_nucleus(logits.astype(np.float64), 0.7, 0.9), 20_000)
    assert ClippedSampler(-5, 5, 1.0)(rows[:3], None).device.type == device  # the OS CSPRNG's uniforms move over


def test_draws_by_inverse_cdf_from_the_os_csprng_are_valid_and_not_constant():
    weights = torch.tensor([[0.0, 1.0, 0.0, 3.0]] * 2000)
    ids = draw(weights, None).numpy()
    assert set(np.unique(ids)) == {1, 3}
    assert 0.65 < np.mean(ids == 3) < 0.85


def test_bad_sampler_settings_are_one_line_errors():
    with pytest.raises(InputError, match="temperature"):
        NucleusSampler(0.0, 0.9)
    with pytest.raises(InputError, match="top_p"):
        NucleusSampler(1.0, 1.5)
    with pytest.raises(InputError, match="low < high"):
        ClippedSampler(1.0, 0.0, 1.0)
