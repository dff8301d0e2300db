"""What every rule of the judge's pairs shares: the context it draws on and a table-driven word swap."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class PairContext:
    """What a rule may draw on: a seeded generator and names seen in the corpus, by entity label."""

    rng: np.random.Generator
    names: dict[str, list[str]] = field(default_factory=dict)


Rule = Callable[[str, object, PairContext], "str | None"]


def _swap_table(text: str, table: dict[str, str], rng: np.random.Generator, every: bool = False) -> str | None:
    """One (or ``every``) whole-word occurrence of a table key (either case of its first letter) replaced by its
    value, with the case of the first letter kept; None when no key occurs."""
    found = []
    for key, value in table.items():
        for match in re.finditer(
            rf"(?<![\w'])({re.escape(key)}|{re.escape(key[:1].upper() + key[1:])})(?![\w'])", text
        ):
            found.append((match.start(), match.end(), match.group(0), value))
    if not found:
        return None
    chosen = found if every else [found[int(rng.integers(len(found)))]]
    out = text
    for start, end, written, value in sorted(chosen, key=lambda item: -item[0]):
        if any(s < end and start < e for s, e, _, _ in chosen if (s, e) != (start, end) and s > start):
            continue
        replacement = value[:1].upper() + value[1:] if written[:1].isupper() and value[:1].islower() else value
        out = out[:start] + replacement + out[end:]
    return out if out != text else None


def _inverse(table: dict[str, str]) -> dict[str, str]:
    return {value: key for key, value in table.items()}


def _common(word: str, top: int) -> bool:
    """Whether ``word`` is among the ``top`` words the most authors use (the shipped table)."""
    from authorguard.text.vocabulary import word_ranks

    return word_ranks().get(word.lower(), top + 1) <= top
