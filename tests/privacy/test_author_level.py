"""The author-level Gaussian release: OpenDP's accounting against an independent computation (the exact privacy
profile of composed Gaussian mechanisms), the calibration, the noise's distribution (seeded and OpenDP's CSPRNG
sampler), and the bound: however much an author wrote, adding them moves each statistic no more than the stated
sensitivity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("opendp")

from authorguard.exceptions import InputError
from authorguard.privacy.author_level import (
    RELEASES,
    AuthorBound,
    add_noise,
    calibrate,
    epsilon_of,
    measurement,
    report,
)
from tests.reference import gaussian_dp_epsilon

SIZES = {"terms": 40, "clusters": 8, "classes": 3, "lengths": 5}


@pytest.mark.parametrize(
    "scales",
    [
        {"terms": 1.3, "clusters": 1.3, "classes": 37.0, "lengths": 37.0},
        {"terms": 4.5, "clusters": 2.0, "classes": 90.0, "lengths": 150.0},
    ],
)
def test_opendp_accounting_matches_an_independent_computation(scales):
    bound = AuthorBound(max_documents=10, max_words=500, clip=1.0)
    sensitivity = bound.sensitivities()
    rho = sum(sensitivity[n] ** 2 / (2 * scales[n] ** 2) for n in RELEASES)
    assert measurement(SIZES, scales, bound).map(1) == pytest.approx(rho, rel=1e-9)  # zCDP composes additively
    delta = 1e-5
    found = epsilon_of(SIZES, scales, bound, delta)
    tight = gaussian_dp_epsilon(math.sqrt(2 * rho), delta)  # mu-GDP with mu = sqrt(sum (sensitivity / scale)^2)
    classic = rho + 2 * math.sqrt(rho * math.log(1 / delta))  # Bun & Steinke's simple conversion
    assert tight <= found <= classic  # never below the truth, never looser than the textbook bound
    assert found <= 1.25 * tight  # and close to the truth


def test_calibration_spends_the_asked_epsilon_and_no_more():
    bound = AuthorBound(max_documents=5, clip=2.0)
    for epsilon in (0.5, 1.0, 4.0, 8.0):
        scales, spent = calibrate(epsilon, 1e-5, bound, SIZES)
        assert 0.999 * epsilon <= spent <= epsilon
        # the noise grows with the sensitivity: the terms' scale is clip-proportional, the others k-proportional
        assert scales["classes"] / scales["lengths"] == pytest.approx(1.0)
        assert scales["terms"] / scales["classes"] == pytest.approx(2.0 / 5.0 * math.sqrt(0.05 / 0.45))
        assert scales["terms"] == pytest.approx(scales["clusters"])
    more, _ = calibrate(1.0, 1e-5, bound, SIZES)
    less, _ = calibrate(4.0, 1e-5, bound, SIZES)
    assert more["terms"] > less["terms"]
    with pytest.raises(InputError, match="epsilon"):
        calibrate(0.0, 1e-5, bound, SIZES)
    with pytest.raises(InputError, match="delta"):
        calibrate(1.0, 1.5, bound, SIZES)


def test_the_noise_has_the_stated_scale_seeded_and_from_opendps_sampler():
    bound = AuthorBound()
    scales = {"terms": 1.7, "clusters": 1.0, "classes": 20.0, "lengths": 5.0}
    zeros = {
        "terms": np.zeros((10, 2_000)),
        "clusters": np.zeros((10, 5)),
        "classes": np.zeros(3),
        "lengths": np.zeros(4),
    }
    seeded = add_noise(zeros, scales, bound, np.random.default_rng(3))
    assert seeded["terms"].shape == (10, 2_000)
    assert stats.kstest(seeded["terms"].ravel() / 1.7, "norm").pvalue > 1e-3
    again = add_noise(zeros, scales, bound, np.random.default_rng(3))
    assert np.array_equal(again["terms"], seeded["terms"])  # a seed reproduces the draw
    small = {"terms": np.zeros(3_000), "clusters": np.zeros(5), "classes": np.zeros(3), "lengths": np.zeros(4)}
    secure = add_noise(small, scales, bound, None)  # OpenDP's CSPRNG sampler
    assert stats.kstest(secure["terms"] / 1.7, "norm").pvalue > 1e-3
    assert not np.array_equal(secure["terms"], add_noise(small, scales, bound, None)["terms"])


def test_the_report_names_the_unit_the_bound_and_the_library():
    bound = AuthorBound(max_documents=4, max_words=100, clip=1.0)
    scales, spent = calibrate(2.0, 1e-6, bound, SIZES)
    found = report(scales, bound, SIZES, 1e-6, secure=False).to_dict()
    assert found["unit"] == "author" and found["library"] == "opendp" and found["library_version"]
    assert found["epsilon"] == pytest.approx(spent) and found["delta"] == 1e-6
    assert found["bound"] == {"max_documents": 4, "max_words": 100, "clip": 1.0}


def test_a_bound_that_cannot_bound_is_refused():
    for bad in ({"max_documents": 0}, {"max_words": 0}, {"clip": 0.0}):
        with pytest.raises(InputError):
            AuthorBound(**bad)
