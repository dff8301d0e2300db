"""Seeds, per-record streams and the secure uniform source."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from authorguard.utils.random import GeneratorUniforms, SecureUniforms, as_generator, record_generator, uniform_source


def test_as_generator_resolves_seeds_and_passes_generators_through():
    generator = np.random.default_rng(1)
    assert as_generator(generator) is generator
    assert as_generator(5).random() == np.random.default_rng(5).random()
    with pytest.raises(TypeError, match="random_state must be an int"):
        as_generator("5")


def test_record_streams_depend_only_on_seed_and_id():
    assert record_generator(7, "msg-1").random() == record_generator(7, "msg-1").random()
    assert record_generator(7, "msg-1").random() != record_generator(7, "msg-2").random()
    assert record_generator(7, "msg-1").random() != record_generator(8, "msg-1").random()
    assert record_generator(7, 1).random() != record_generator(7, "1").random()  # ids keep their type


def test_secure_uniforms_are_uniform_on_the_unit_interval():
    draws = SecureUniforms().uniforms(100_000)
    assert draws.dtype == np.float64 and draws.min() >= 0.0 and draws.max() < 1.0
    assert stats.kstest(draws, "uniform").pvalue > 1e-3
    assert len(np.unique(draws)) == len(draws)  # 53 random bits each


def test_uniform_source_selection():
    assert isinstance(uniform_source(3), GeneratorUniforms)
    assert isinstance(uniform_source(3, secure=True), SecureUniforms)
    assert np.array_equal(uniform_source(3).uniforms(4), np.random.default_rng(3).random(4))


def test_int_seed_passes_ints_through_and_draws_from_generators():
    import numpy as np

    from authorguard.utils.random import int_seed

    assert int_seed(None) is None and int_seed(7) == 7 and int_seed(np.int64(7)) == 7
    assert int_seed(np.random.default_rng(1)) == int_seed(np.random.default_rng(1))
    assert int_seed(np.random.default_rng(1)) != int_seed(np.random.default_rng(2))
