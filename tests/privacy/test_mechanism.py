"""The exponential mechanism: ratings, exact loss and sampler against brute force and statistics."""

from __future__ import annotations

import numpy as np
import pytest

from authorguard.privacy import mechanism as mechanism_module
from authorguard.privacy.accounting import improved_loss_per_word
from authorguard.privacy.calibration import epsilon_for_loss
from authorguard.privacy.mechanism import ExponentialMechanism
from authorguard.utils.random import GeneratorUniforms, SecureUniforms
from tests import reference


def _build(small_vectors, epsilon, s):
    words = list(small_vectors.words)
    return words, ExponentialMechanism.from_words(words, small_vectors, epsilon, s)


@pytest.mark.parametrize("s", [0.0, 0.3, 1.0])
def test_scaled_ratings_match_the_definition(small_vectors, s):
    words, mechanism = _build(small_vectors, 10.0, s)
    expected = 10.0 * reference.rating_matrix(words, mechanism.unit_vectors, s) / 2
    np.testing.assert_allclose(mechanism.scaled_ratings(range(len(words))), expected, atol=2e-5)


@pytest.mark.parametrize("dense_fraction", [10**9, 1])
def test_dense_and_inverted_index_bigram_counts_give_the_same_bits(small_vectors, monkeypatch, dense_fraction):
    """Every bigram counted by its dense row (fraction 1e9: held by >= 1 word) or none of them (fraction 1: held by
    all L words): the same ratings bit for bit, and the definition's."""
    words = list(small_vectors.words)
    default = ExponentialMechanism.from_words(words, small_vectors, 10.0, 0.3)
    monkeypatch.setattr(mechanism_module, "_DENSE_BIGRAM_FRACTION", dense_fraction)
    other = ExponentialMechanism.from_words(words, small_vectors, 10.0, 0.3)
    slots = other._index_arrays[-2]
    assert (slots >= 0).all() if dense_fraction > len(words) else (slots < 0).all()
    rows = np.arange(len(words))
    assert np.array_equal(other.scaled_ratings(rows), default.scaled_ratings(rows))
    expected = 10.0 * reference.rating_matrix(words, other.unit_vectors, 0.3) / 2
    np.testing.assert_allclose(other.scaled_ratings(rows), expected, atol=2e-5)


def test_quantised_vectors_give_exact_dot_products_close_to_the_raw_cosines(small_vectors):
    words, mechanism = _build(small_vectors, 10.0, 0.3)
    q = mechanism._quantized.astype(np.float64)
    assert np.array_equal(q, np.rint(q)) and np.abs(q).max() < 4096
    exact = q @ q.T  # integers far below 2^53: exact in float64
    # float32 BLAS on any row subset or order gives the same integers
    assert np.array_equal(mechanism._dot_products(np.arange(len(words))), exact)
    assert np.array_equal(mechanism._dot_products(np.array([5, 0, 3]))[:, ::-1], exact[[5, 0, 3]][:, ::-1])
    raw = small_vectors.vectors / np.linalg.norm(small_vectors.vectors, axis=1, keepdims=True)
    np.testing.assert_allclose(mechanism.unit_vectors @ mechanism.unit_vectors.T, raw @ raw.T, atol=1e-3)
    np.testing.assert_allclose(np.linalg.norm(mechanism.unit_vectors, axis=1), 1.0, atol=1e-6)


def test_word_without_bigrams_still_has_dice_one_with_itself(small_vectors):
    words, mechanism = _build(small_vectors, 10.0, 1.0)
    a = words.index("a")
    rho = reference.rating_matrix(words, mechanism.unit_vectors, 1.0)
    assert reference.dice("a", "a") == 1.0
    assert mechanism.scaled_ratings([a])[0, a] == pytest.approx(5.0 * rho[a, a], abs=1e-5)


@pytest.mark.parametrize("epsilon", [0.5, 5.0, 47.5, 120.0])
@pytest.mark.parametrize("s", [0.0, 0.3, 1.0])
def test_loss_per_word_equals_brute_force_over_every_triple(small_vectors, epsilon, s):
    words, mechanism = _build(small_vectors, epsilon, s)
    pi = reference.mechanism_matrix(words, mechanism.unit_vectors, epsilon, s)
    assert mechanism.loss_per_word() == pytest.approx(reference.tight_loss(pi), abs=2e-4)


@pytest.mark.parametrize("epsilon", [0.5, 5.0, 47.5, 120.0])
def test_tight_loss_is_below_improved_below_standard(small_vectors, epsilon):
    words, mechanism = _build(small_vectors, epsilon, 0.3)
    loss = mechanism.loss_per_word()
    assert 0 < loss <= improved_loss_per_word(epsilon, len(words)) + 1e-9 <= epsilon + 1e-9


def test_blocked_loss_equals_single_block(small_vectors, monkeypatch):
    words, mechanism = _build(small_vectors, 30.0, 0.3)
    whole = mechanism.loss_per_word()
    monkeypatch.setattr(mechanism_module, "_BLOCK_BUDGET_BYTES", 1)  # 16-row blocks: several blocks
    assert mechanism._block_rows() == 16 < len(words)
    assert mechanism.loss_per_word() == pytest.approx(whole, abs=1e-5)


def test_log_probabilities_are_normalised_rows_of_the_brute_force_mechanism(small_vectors):
    words, mechanism = _build(small_vectors, 20.0, 0.3)
    pi = reference.mechanism_matrix(words, mechanism.unit_vectors, 20.0, 0.3)
    log_p = mechanism.log_probabilities([0, 5, 9])
    np.testing.assert_allclose(np.exp(log_p).sum(axis=1), 1.0, rtol=1e-9)
    np.testing.assert_allclose(log_p, np.log(pi[[0, 5, 9]]), atol=1e-4)


def _chi_square_p(observed_words, expected_probabilities):
    counts = np.bincount(observed_words, minlength=len(expected_probabilities))
    return reference.chi_square_pvalue(counts, expected_probabilities)


@pytest.mark.parametrize("source_name", ["numpy", "secure"])
def test_sampler_fits_the_analytic_distribution(small_vectors, source_name):
    words, mechanism = _build(small_vectors, 12.0, 0.3)
    v = words.index("cat")
    pi = reference.mechanism_matrix(words, mechanism.unit_vectors, 12.0, 0.3)
    source = GeneratorUniforms(np.random.default_rng(3)) if source_name == "numpy" else SecureUniforms()
    draws = mechanism.sample(np.full(40_000, v), source.uniforms(40_000))
    assert _chi_square_p(draws, pi[v]) > 1e-3
    # the test has power: the same draws are rejected against a neighbouring word's row
    assert _chi_square_p(draws, pi[words.index("dog")]) < 1e-6


def test_sampling_many_rows_at_once_keeps_each_row_distribution(small_vectors, monkeypatch):
    words, mechanism = _build(small_vectors, 12.0, 0.3)
    monkeypatch.setattr(mechanism_module, "_BLOCK_BUDGET_BYTES", 1)  # rows spread over several blocks
    pi = reference.mechanism_matrix(words, mechanism.unit_vectors, 12.0, 0.3)
    rng = np.random.default_rng(5)
    sources = rng.integers(0, len(words), size=60_000)
    draws = mechanism.sample(sources, rng.random(60_000))
    for v in (0, 7, len(words) - 1):
        assert _chi_square_p(draws[sources == v], pi[v]) > 1e-3


def test_sample_is_a_deterministic_function_of_the_uniforms(small_vectors):
    _, mechanism = _build(small_vectors, 12.0, 0.3)
    sources = np.array([3, 1, 3, 0, 2])
    uniforms = np.array([0.0, 0.5, 0.999999, 0.25, 0.75])
    first = mechanism.sample(sources, uniforms)
    assert np.array_equal(first, mechanism.sample(sources, uniforms))
    # each draw depends only on its own (source, uniform): order does not matter
    order = np.array([4, 2, 0, 3, 1])
    assert np.array_equal(mechanism.sample(sources[order], uniforms[order]), first[order])


def test_epsilon_for_loss_hits_the_target(small_vectors):
    _, mechanism = _build(small_vectors, 1.0, 0.3)
    epsilon = epsilon_for_loss(mechanism, 8.0)
    assert mechanism.with_epsilon(epsilon).loss_per_word() == pytest.approx(8.0, abs=1e-2)
    assert epsilon > 8.0  # the tight loss is below epsilon


@pytest.mark.parametrize("epsilon", [0, -1, float("inf"), float("nan"), "3"])
def test_mechanism_rejects_bad_epsilon(small_vectors, epsilon):
    with pytest.raises(
        ValueError, match="'epsilon' parameter of ExponentialMechanism must be a float in the range \\(0, inf\\)"
    ):
        ExponentialMechanism.from_words(list(small_vectors.words), small_vectors, epsilon, 0.3)


def test_a_draw_does_not_depend_on_the_other_rows_sampled_with_it(small_vectors):
    # BLAS products round differently with other block shapes and thread counts; the sampler must not
    _, mechanism = _build(small_vectors, 40.0, 0.3)
    rng = np.random.default_rng(8)
    sources = rng.integers(0, mechanism.vocabulary_size, size=5000)
    uniforms = rng.random(5000)
    together = mechanism.sample(sources, uniforms)
    one_by_one = np.array([mechanism.sample(sources[i : i + 1], uniforms[i : i + 1])[0] for i in range(0, 5000, 50)])
    assert np.array_equal(together[::50], one_by_one)


def test_one_pass_release_gives_the_same_draws_and_the_exact_loss(small_vectors, monkeypatch):
    _, mechanism = _build(small_vectors, 30.0, 0.3)
    rng = np.random.default_rng(9)
    sources = rng.integers(0, mechanism.vocabulary_size // 2, size=3000)  # rows without draws too
    uniforms = rng.random(3000)
    alone = mechanism.sample(sources, uniforms)
    loss = mechanism.loss_per_word()
    monkeypatch.setattr(mechanism_module, "_BLOCK_BUDGET_BYTES", 1)  # several blocks
    done = []
    together, fused_loss = mechanism.sample(sources, uniforms, with_loss=True, on_block=done.append)
    assert np.array_equal(together, alone)
    assert fused_loss == loss
    assert sum(done) == mechanism.vocabulary_size and len(done) > 1


def test_sampling_leaves_openmp_nesting_off_for_torch(small_vectors):
    # numba's OpenMP layer turns nesting on in the libgomp torch shares; left on, generation after a SynTF cell ran
    # 10-20x slower (nested MKL teams inside torch's attention kernel)
    import ctypes

    try:
        gomp = ctypes.CDLL("libgomp.so.1")
    except OSError:
        pytest.skip("no GNU OpenMP runtime")
    words, mechanism = _build(small_vectors, 12.0, 0.3)
    gomp.omp_set_max_active_levels(8)
    mechanism.sample(np.zeros(100, dtype=np.int64), GeneratorUniforms(np.random.default_rng(0)).uniforms(100))
    assert gomp.omp_get_max_active_levels() == 1
    gomp.omp_set_max_active_levels(8)
    mechanism.scaled_ratings([0, 1])
    assert gomp.omp_get_max_active_levels() == 1
