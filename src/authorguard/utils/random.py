"""Explicit randomness: seeds, generators, per-record streams and a cryptographically secure source.

Every stochastic component takes ``random_state`` (``int``, ``numpy.random.Generator`` or ``None``) and
resolves it here. Samplers consume *uniform variates* from a :class:`UniformSource`, so the same sampling
code runs on a seeded ``numpy.random.Generator`` (reproducible research) or on the operating system's
CSPRNG (production releases).
"""

from __future__ import annotations

import hashlib
import os
from typing import Protocol

import numpy as np

RandomState = int | np.random.Generator | None

_TWO_POW_MINUS_53 = 1.0 / (1 << 53)


def as_generator(random_state: RandomState) -> np.random.Generator:
    """Resolve ``random_state`` into a ``numpy.random.Generator`` (a Generator is returned as is)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return np.random.default_rng(random_state)
    raise TypeError(f"random_state must be an int, a numpy.random.Generator or None; got {type(random_state).__name__}")


def int_seed(random_state: RandomState) -> int | None:
    """An integer seed for libraries that take one (torch): ``random_state`` itself when it is None or an int, else
    a draw from the numpy Generator (so a Generator still makes the call reproducible)."""
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    return int(as_generator(random_state).integers(2**62))


def record_generator(seed: int, record_id: object) -> np.random.Generator:
    """A generator for one record, derived from (run seed, record id).

    Runs that derive each record's randomness this way give identical output whatever the batching,
    ordering or number of workers.
    """
    digest = hashlib.sha256(repr(record_id).encode("utf-8")).digest()
    entropy = [int(seed)] + [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 32, 4)]
    return np.random.default_rng(np.random.SeedSequence(entropy))


class UniformSource(Protocol):
    """Anything that returns independent uniform variates on [0, 1) as float64."""

    def uniforms(self, size: int) -> np.ndarray: ...


class GeneratorUniforms:
    """Uniforms from a ``numpy.random.Generator`` (PCG64 by default): fast and reproducible."""

    def __init__(self, generator: np.random.Generator) -> None:
        self.generator = generator

    def uniforms(self, size: int) -> np.ndarray:
        return self.generator.random(size)


class SecureUniforms:
    """Uniforms from the operating system's CSPRNG (``os.urandom``), 53 random bits each.

    Use for production releases: the draws cannot be predicted from earlier outputs or a leaked seed.
    Not reproducible by design.
    """

    def uniforms(self, size: int) -> np.ndarray:
        words = np.frombuffer(os.urandom(8 * size), dtype=np.uint64)
        return (words >> np.uint64(11)).astype(np.float64) * _TWO_POW_MINUS_53


class RecordUniforms:
    """Uniforms for a batch of records, each record's from its own stream derived from (seed, record id).

    ``uniforms(size)`` splits ``size`` evenly over the records, in order: a record's variates do not depend on
    which other records share its batch, on the batch order or on the worker, so sharded, resumed and parallel
    runs release identical output for the same seed.
    """

    def __init__(self, seed: int, record_ids) -> None:
        self.seed = int(seed)
        self.record_ids = list(record_ids)

    def uniforms(self, size: int) -> np.ndarray:
        if not self.record_ids:
            if size:
                raise ValueError("no records to draw uniforms for")
            return np.empty(0)
        per_record, remainder = divmod(size, len(self.record_ids))
        if remainder:
            raise ValueError(f"{size} uniforms do not split evenly over {len(self.record_ids)} records")
        return np.concatenate([record_generator(self.seed, rid).random(per_record) for rid in self.record_ids])


def uniform_source(random_state: RandomState = None, secure: bool = False) -> UniformSource:
    """The uniform source for a component: secure, or a generator resolved from ``random_state``."""
    if secure:
        return SecureUniforms()
    return GeneratorUniforms(as_generator(random_state))
