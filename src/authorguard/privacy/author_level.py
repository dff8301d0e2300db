"""Central differential privacy with the author as the privacy unit: the Gaussian mechanism on a corpus's summed
statistics, each author's contribution bounded first, and the accounting by OpenDP.

A data owner holds the whole corpus (a trusted curator). Neighbouring corpora differ by **one author and everything
they wrote**. Before anything is counted each author's contribution is bounded (:class:`AuthorBound`): at most
``max_documents`` of their documents (chosen by a seeded hash, so the choice is mergeable across shards), each
counted up to ``max_words`` words, and their term vector clipped to L2 norm ``clip``. Then one author moves

- the class-conditional term sums (one vector over labels x vocabulary) by at most ``clip`` in L2;
- the class-conditional sums over clusters of words (labels x clusters, the author's term counts summed by a public
  clustering of the vocabulary, then bounded the same way) by at most ``clip`` in L2;
- the class sizes (documents per label) by at most ``max_documents`` in L2 (all their documents in one label);
- the length histogram (documents per length bin) by at most ``max_documents`` in L2.

Each of the four :data:`RELEASES` is released by the Gaussian mechanism. OpenDP states the privacy unit (a
transformation from "authors added or removed" to each statistic's L2 distance, with the sensitivity above as its
stability), composes them under zero-concentrated DP and converts the composition to (ε, δ)-DP
(:func:`measurement`, :func:`epsilon_of`); :func:`calibrate` finds the noise scales that spend a given ε. Why OpenDP
over a hand-written accountant: its composition and zCDP → (ε, δ) conversion are maintained and reviewed;
``tests/privacy/test_author_level.py`` checks them against an independent computation (the Gaussian mechanism's
exact privacy profile). The noise itself comes from OpenDP's sampler (``secure``: a CSPRNG, for releases), or from
a seeded numpy generator with the same distribution (reproducible research runs).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: the statistics released, and the share of the privacy budget (in zCDP's rho) each spends by default
RELEASES = ("terms", "clusters", "classes", "lengths")
BUDGET_SHARES = {"terms": 0.45, "clusters": 0.45, "classes": 0.05, "lengths": 0.05}
#: the privacy unit as OpenDP's metric names it
UNIT = "authors added or removed"


@dataclass(frozen=True)
class AuthorBound:
    """How much of one author is counted: at most ``max_documents`` documents, each up to ``max_words`` words, and
    their summed term vector (each document's term counts scaled to unit L2 norm, then summed) clipped to L2 norm
    ``clip``."""

    max_documents: int = 10
    max_words: int = 500
    clip: float = 1.0

    def __post_init__(self) -> None:
        check_number(self.max_documents, "max_documents", "author bound", kind=int, low=1, closed="left")
        check_number(self.max_words, "max_words", "author bound", kind=int, low=1, closed="left")
        check_number(self.clip, "clip", "author bound", low=0.0, closed="neither")
        for name in ("max_documents", "max_words"):  # 500.0 is accepted as 500: kept as the int
            object.__setattr__(self, name, int(getattr(self, name)))

    def sensitivities(self) -> dict[str, float]:
        """The L2 distance one author can move each statistic of :data:`RELEASES` by."""
        documents = float(self.max_documents)
        return {"terms": float(self.clip), "clusters": float(self.clip), "classes": documents, "lengths": documents}


def chosen_documents(authors: Sequence[object], ids: Sequence[object], max_documents: int, seed: int) -> np.ndarray:
    """Positions of the documents counted: per author the ``max_documents`` whose keyed hash of (seed, author, id)
    is smallest — a deterministic sample that is the same however the input is ordered or split."""
    keys = np.array(
        [
            int.from_bytes(hashlib.blake2b(f"{seed}\x00{a}\x00{i}".encode(), digest_size=8).digest(), "little")
            for a, i in zip(authors, ids)
        ],
        dtype=np.uint64,
    )
    author_codes = np.unique(np.asarray([str(a) for a in authors], dtype=object), return_inverse=True)[1]
    order = np.lexsort((keys, author_codes))
    rank = np.empty(len(order), dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(author_codes[order])) + 1]
    for begin, end in zip(starts, np.r_[starts[1:], len(order)]):
        rank[order[begin:end]] = np.arange(end - begin)
    return np.flatnonzero(rank < max_documents)


def _opendp():
    import opendp.prelude as dp

    # user transformations express the privacy unit; their stability is the bound this module enforces
    dp.enable_features("contrib", "honest-but-curious")
    return dp


def _release(dp, name: str, size: int, sensitivity: float, scale: float):
    """OpenDP's measurement of one statistic: authors -> its vector (stability ``sensitivity`` per author) ->
    the Gaussian mechanism at ``scale``, in zCDP."""
    aggregates = dp.user_domain("AuthorAggregates", lambda value: isinstance(value, Mapping))
    vectors = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=int(size))
    pick = dp.t.make_user_transformation(
        aggregates,
        dp.user_distance(UNIT),
        vectors,
        dp.l2_distance(T=float),
        function=lambda value: [float(v) for v in np.asarray(value[name], dtype=float).ravel()],
        stability_map=lambda authors: float(authors) * sensitivity,
    )
    return pick >> dp.m.make_gaussian(vectors, dp.l2_distance(T=float), scale=float(scale))


def measurement(sizes: Mapping[str, int], scales: Mapping[str, float], bound: AuthorBound):
    """The composed zCDP measurement of the releases: input a mapping release name -> its summed vector,
    output the list of noisy vectors in :data:`RELEASES` order; ``measurement(...).map(1)`` is rho for one author."""
    dp = _opendp()
    sensitivities = bound.sensitivities()
    return dp.c.make_composition(
        [_release(dp, name, sizes[name], sensitivities[name], scales[name]) for name in RELEASES]
    )


def epsilon_of(sizes: Mapping[str, int], scales: Mapping[str, float], bound: AuthorBound, delta: float) -> float:
    """ε of the composed release at ``delta``, for one author added or removed (OpenDP's zCDP -> (ε, δ))."""
    dp = _opendp()
    approximate = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(measurement(sizes, scales, bound)), float(delta))
    return float(approximate.map(1)[0])


def scales_for(rho: float, bound: AuthorBound, shares: Mapping[str, float] = BUDGET_SHARES) -> dict[str, float]:
    """The Gaussian scales that spend ``rho`` (zCDP), each release its share: sigma = sensitivity / sqrt(2 rho_i)."""
    sensitivities = bound.sensitivities()
    return {name: sensitivities[name] / math.sqrt(2.0 * rho * shares[name]) for name in RELEASES}


def calibrate(
    epsilon: float,
    delta: float,
    bound: AuthorBound,
    sizes: Mapping[str, int],
    shares: Mapping[str, float] = BUDGET_SHARES,
) -> tuple[dict[str, float], float]:
    """(scales, the ε they spend): the largest total rho whose composition OpenDP accounts at most ``epsilon`` at
    ``delta`` (bisection on rho, 60 steps), split by ``shares``."""
    check_number(epsilon, "epsilon", "author-level release", low=0.0, closed="neither")
    check_number(delta, "delta", "author-level release", low=0.0, high=1.0, closed="neither")
    if set(shares) != set(RELEASES) or not math.isclose(sum(shares.values()), 1.0):
        raise InputError(f"budget shares must name {', '.join(RELEASES)} and sum to 1, got {dict(shares)}")
    low, high = 0.0, max(1.0, float(epsilon))  # rho <= epsilon always suffices as an upper end
    while epsilon_of(sizes, scales_for(high, bound, shares), bound, delta) <= epsilon:
        high *= 2.0
    for _ in range(60):
        middle = (low + high) / 2.0
        if middle > 0 and epsilon_of(sizes, scales_for(middle, bound, shares), bound, delta) <= epsilon:
            low = middle
        else:
            high = middle
    if low <= 0.0:
        raise InputError(f"no noise scale spends at most epsilon = {epsilon} at delta = {delta}")
    scales = scales_for(low, bound, shares)
    return scales, epsilon_of(sizes, scales, bound, delta)


def add_noise(
    aggregates: Mapping[str, np.ndarray],
    scales: Mapping[str, float],
    bound: AuthorBound,
    rng: np.random.Generator | None,
) -> dict[str, np.ndarray]:
    """Each release's vector plus Gaussian noise at its scale: from OpenDP's measurement (``rng`` None: its CSPRNG)
    or from ``rng`` (the same distribution, reproducible). The shapes of ``aggregates`` are kept."""
    if rng is None:
        sizes = {name: int(np.asarray(aggregates[name]).size) for name in RELEASES}
        noisy = measurement(sizes, scales, bound)({name: aggregates[name] for name in RELEASES})
        return {
            name: np.asarray(values, dtype=float).reshape(np.shape(aggregates[name]))
            for name, values in zip(RELEASES, noisy)
        }
    return {
        name: np.asarray(aggregates[name], dtype=float) + rng.normal(0.0, scales[name], np.shape(aggregates[name]))
        for name in RELEASES
    }


@dataclass(frozen=True)
class AuthorLevelReport:
    """What an author-level release costs: (``epsilon``, ``delta``)-DP for one author and everything they wrote
    (``unit``), the contribution bound, each release's Gaussian scale, the accounting library and its version."""

    epsilon: float
    delta: float
    rho: float
    bound: dict
    scales: dict
    unit: str = "author"
    mechanism: str = (
        "Gaussian mechanism on the class-conditional term and word-cluster sums, class sizes and length histogram"
    )
    accounting: str = "zCDP composition, converted to (epsilon, delta)-DP"
    library: str = "opendp"
    library_version: str = ""
    secure_random: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def report(
    scales: Mapping[str, float], bound: AuthorBound, sizes: Mapping[str, int], delta: float, secure: bool
) -> AuthorLevelReport:
    """The report of a release at ``scales``: its ε at ``delta`` and rho, by OpenDP."""
    from importlib.metadata import version

    return AuthorLevelReport(
        epsilon=epsilon_of(sizes, scales, bound, delta),
        delta=float(delta),
        rho=float(measurement(sizes, scales, bound).map(1)),
        bound=asdict(bound),
        scales={name: float(scales[name]) for name in RELEASES},
        library_version=version("opendp"),
        secure_random=secure,
    )
