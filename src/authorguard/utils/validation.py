"""Validators that return clean values and raise one-line errors in scikit-learn's wording."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import overload

from authorguard.exceptions import InputError

_INTERVALS = {"neither": "()", "left": "[)", "right": "(]", "both": "[]"}


@overload
def check_number(
    value: object,
    name: str,
    owner: str,
    *,
    kind: type[int],
    low: float | None = None,
    high: float | None = None,
    closed: str = "neither",
) -> int: ...


@overload
def check_number(
    value: object,
    name: str,
    owner: str,
    *,
    kind: type[float] = float,
    low: float | None = None,
    high: float | None = None,
    closed: str = "neither",
) -> float: ...


def check_number(
    value: object,
    name: str,
    owner: str,
    *,
    kind: type = float,
    low: float | None = None,
    high: float | None = None,
    closed: str = "neither",
) -> float | int:
    """Validate a real (``kind=float``) or integer (``kind=int``) parameter.

    Returns the value converted to ``kind``. Raises ``InputError`` (a ``ValueError``) with a message like
    "The 'epsilon' parameter of SynTF must be a float in the range (0, inf). Got -1 instead."
    """
    lo_s = "-inf" if low is None else f"{low:g}"
    hi_s = "inf" if high is None else f"{high:g}"
    brackets = _INTERVALS[closed]
    kind_name = "an int" if kind is int else "a float"
    message = (
        f"The {name!r} parameter of {owner} must be {kind_name} in the range "
        f"{brackets[0]}{lo_s}, {hi_s}{brackets[1]}. Got {value!r} instead."
    )
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise InputError(message)
    if kind is int and not float(value).is_integer():
        raise InputError(message)
    number = kind(value)
    if low is not None and (number < low or (number == low and closed in ("neither", "right"))):
        raise InputError(message)
    if high is not None and (number > high or (number == high and closed in ("neither", "left"))):
        raise InputError(message)
    return number


def check_option(value: object, name: str, owner: str, options: Sequence[str]) -> str:
    """Validate a string option against ``options``."""
    if not isinstance(value, str) or value not in options:
        raise InputError(
            f"The {name!r} parameter of {owner} must be one of {', '.join(map(repr, options))}. Got {value!r} instead."
        )
    return value


def check_texts(texts: Iterable[object], owner: str) -> list[str]:
    """Validate raw documents: an iterable of ``str`` (not a single string).

    Empty strings are allowed (methods document what they do with them); ``None``, bytes and other
    objects are rejected with the index of the offending document.
    """
    if isinstance(texts, (str, bytes)):
        raise InputError(f"{owner} expects an iterable of documents (str), not a single {type(texts).__name__}")
    checked = []
    for index, text in enumerate(texts):
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as error:
                raise InputError(
                    f"document {index} is not valid UTF-8 (byte {error.start}: {text[error.start : error.start + 1]!r})"
                ) from None
        if not isinstance(text, str):
            raise InputError(f"document {index} must be a str; got {type(text).__name__}")
        checked.append(text)
    return checked


def dataclass_from_params(cls, params: dict, source: str):
    """``cls(**params)`` for a dataclass, failing with one line that names an unknown key and the known ones."""
    import dataclasses

    known = [f.name for f in dataclasses.fields(cls) if f.init]
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise InputError(f"{source}: unknown key {unknown[0]!r} (known: {', '.join(known)})")
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in params.items()}
    return cls(**values)
