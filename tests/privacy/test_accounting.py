"""The three bounds of SynTF's privacy report."""

from __future__ import annotations

import math

import pytest

from authorguard.privacy.accounting import (
    SynTFPrivacyReport,
    improved_epsilon,
    improved_loss_per_word,
    standard_epsilon,
)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 10.0, 47.5, 69.0])
@pytest.mark.parametrize("L", [2, 100, 30_000])
def test_improved_bound_matches_the_corollary_formula(epsilon, L):
    eta = (math.exp(-epsilon / 2) + L - 1) / (math.exp(epsilon / 2) + L - 1)
    assert improved_loss_per_word(epsilon, L) == pytest.approx(epsilon + math.log(eta), rel=1e-12)
    assert improved_epsilon(epsilon, 150, L) == pytest.approx(150 * (epsilon + math.log(eta)), rel=1e-12)


def test_improved_bound_is_stable_for_huge_epsilon():
    # e^{1000} overflows a float; the log-space form gives epsilon/2 + ln(L - 1) asymptotically
    assert improved_loss_per_word(2000.0, 30_000) == pytest.approx(1000.0 + math.log(29_999), rel=1e-12)


def test_single_word_vocabulary_costs_nothing():
    assert improved_loss_per_word(10.0, 1) == 0.0


def test_report_has_the_cli_keys_and_consistent_values():
    report = SynTFPrivacyReport.compute(47.5, 150, 30_000, 17.5)
    values = report.to_dict()
    assert values["standard_epsilon"] == standard_epsilon(47.5, 150) == 7125.0
    assert values["tight_epsilon"] == pytest.approx(17.5 * 150)
    assert values["loss_per_word"] == 17.5
    assert values["tight_epsilon"] < values["improved_epsilon"] < values["standard_epsilon"]


def test_report_without_mechanism_has_no_tight_value():
    assert SynTFPrivacyReport.compute(1.0, 10, 50).tight_epsilon is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"epsilon": -1.0, "n_words": 1, "vocabulary_size": 2},
            "'epsilon' parameter of SynTFPrivacyReport must be a float in the range \\(0, inf\\). Got -1.0",
        ),
        (
            {"epsilon": 1.0, "n_words": 0, "vocabulary_size": 2},
            "'n_words' parameter .* must be an int in the range \\[1, inf\\)",
        ),
        ({"epsilon": 1.0, "n_words": 1.5, "vocabulary_size": 2}, "'n_words' parameter"),
        ({"epsilon": 1.0, "n_words": 1, "vocabulary_size": 0}, "'vocabulary_size' parameter"),
    ],
)
def test_report_rejects_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SynTFPrivacyReport.compute(**kwargs)
