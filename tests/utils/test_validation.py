"""Parameter validators and their messages."""

from __future__ import annotations

import pytest

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number, check_option, check_texts


def test_check_number_converts_and_accepts_bounds():
    assert check_number(3, "epsilon", "X") == 3.0 and isinstance(check_number(3, "epsilon", "X"), float)
    assert check_number(0.0, "s", "X", low=0.0, high=1.0, closed="both") == 0.0
    assert check_number(4.0, "n", "X", kind=int, low=1, closed="left") == 4


@pytest.mark.parametrize("value", [0, -1, float("inf"), float("nan"), True, "1", None])
def test_check_number_rejects(value):
    with pytest.raises(
        InputError, match=r"The 'epsilon' parameter of X must be a float in the range \(0, inf\)\. Got .* instead\."
    ):
        check_number(value, "epsilon", "X", low=0.0)


def test_check_number_integer_and_closed_intervals():
    with pytest.raises(InputError, match=r"must be an int in the range \[1, inf\)\. Got 1.5"):
        check_number(1.5, "n", "X", kind=int, low=1, closed="left")
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        check_number(1.0001, "s", "X", low=0.0, high=1.0, closed="both")


def test_check_option_and_texts():
    assert check_option("lemma", "morphology", "X", ("lemma", "orth")) == "lemma"
    with pytest.raises(InputError, match="must be one of 'lemma', 'orth'. Got 'x'"):
        check_option("x", "morphology", "X", ("lemma", "orth"))
    assert check_texts(iter(["a", b"caf\xc3\xa9"]), "X") == ["a", "café"]
    with pytest.raises(InputError, match="not a single str"):
        check_texts("abc", "X")
