"""Which documents, attackers and methods an assessment measures within its time budget.

Costs are seconds on the 2-core machine the defaults were measured on (docs/results/assess.md): a rewriting
method costs a fixed set-up plus a rate per 100 words of every document it rewrites (the harness rewrites train and
test documents: the augmented and adversarial attackers learn from rewritten text); an attacker costs a rate per
document per threat model. The rates were fitted to the cells of one assessment (20 Newsgroups, 260 documents) and
to the methods timed alone on samples of the three corpora, and checked on the other two assessments; the plan is
an estimate, and the report gives the measured seconds of every cell beside it.
"""

from __future__ import annotations

import importlib.util
from dataclasses import asdict, dataclass, field

import numpy as np

from authorguard.assess.profile import MIN_DOCUMENTS_PER_AUTHOR

#: the attackers an audit runs, strongest first by what the benchmark measured (docs/results/text-benchmark.md,
#: docs/neural.md): (name, seconds per 100 words of every document per fit, needs the neural extra)
ATTACKERS = (("char-ngrams", 0.0004, False), ("writeprints-text", 0.002, False), ("function-words", 0.0002, False),
             ("author-embedding", 0.002, True))
#: seconds per 100 words of each document in the content sample (METEOR, ROUGE, MiniLM), and per cell (detector)
CONTENT_SECONDS_PER_100_WORDS = 0.02
CELL_SECONDS = 5.0
THREAT_MODELS = ("static", "augmented", "adversarial")
#: documents an audit keeps before it keeps a method (when the corpus has them): ~30 test documents, a 95 % interval
#: of about ±0.17 — fewer and every method is within the noise of every other
TARGET_DOCUMENTS = 100


@dataclass(frozen=True)
class Candidate:
    """A method setting an assessment may evaluate, with its cost model.

    ``setup_seconds``: once per run; ``seconds_per_100_words``: per document rewritten (per 100 words; ``per_document``
    makes it a flat rate per document, for methods whose output length is fixed); ``needs``: a Python module the
    method needs installed; ``labelled_only``: evaluated only with a label field (its release is a bag of words,
    judged by the task it keeps)."""

    method: str
    params: dict = field(default_factory=dict)
    label: str = ""
    setup_seconds: float = 0.0
    seconds_per_100_words: float = 0.0
    per_document: bool = False
    needs: str | None = None
    labelled_only: bool = False

    @property
    def name(self) -> str:
        return self.label or self.method

    def seconds(self, documents: int, mean_words: float) -> float:
        rate = self.seconds_per_100_words * (1.0 if self.per_document else mean_words / 100.0)
        return self.setup_seconds + rate * documents


#: the default methods, cheapest first (rates measured on the 2-core machine: see the module docstring)
CANDIDATES = (
    Candidate("synonyms", {"rate": 0.3}, "synonyms 0.3", 1.0, 0.01),
    Candidate("synonyms", {"rate": 0.6}, "synonyms 0.6", 1.0, 0.01),
    Candidate("dropout", {"rate": 0.3}, "dropout 0.3", 0.0, 0.001),
    # SynTF's set-up is the privacy accounting of its public (GloVe) vocabulary: ~240 s before its first cell, once
    Candidate("syntf", {}, "SynTF vectors", 240.0, 0.01, labelled_only=True),
    # dp-prompt writes a fixed 128 tokens from a prompt cut to 512: 0.35 s a document in batches of 64, up to ~1.5 s
    # for long inputs in small batches
    Candidate("dp-prompt", {"epsilon": 10_000.0}, "dp-prompt ε=10,000", 10.0, 0.5, per_document=True, needs="torch"),
    Candidate("dp-prompt", {"epsilon": 3_000.0}, "dp-prompt ε=3,000", 10.0, 0.5, per_document=True, needs="torch"),
    # tarot samples 4 rewrites a chunk and samples again for chunks without a valid one: 2.0 s per 100 words timed
    # alone on 32 blog posts, 4.2 in the blog assessment's cell (more retries on short posts)
    Candidate("tarot", {}, "tarot", 10.0, 4.0, needs="torch"),
)


def installed(module: str | None) -> bool:
    return module is None or importlib.util.find_spec(module) is not None


@dataclass
class Plan:
    """What the assessment measures: ``documents`` (positions in the usable corpus), the methods and attackers, the
    estimated seconds, and what was left out and why."""

    documents: list[int]
    authors: int
    per_author_cap: int | None
    methods: list[Candidate]
    attackers: list[str]
    estimated_seconds: float
    left_out: dict[str, str]
    #: the estimate of each cell (``original`` and every method), seconds
    cell_estimates: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        values = asdict(self)
        values["documents"] = len(self.documents)
        values["methods"] = [m.name for m in self.methods]
        return values


def _cell_estimates(methods: list[Candidate], attackers: list[tuple[str, float, bool]], documents: int,
                    mean_words: float) -> dict[str, float]:
    """Seconds of each cell: ``original`` (every attacker once, content metrics) and each method (its rewriting,
    every attacker under every threat model, content metrics)."""
    hundreds = mean_words / 100.0
    attack = sum(rate for _, rate, _ in attackers) * hundreds * documents
    common = CONTENT_SECONDS_PER_100_WORDS * hundreds * min(documents, 300) + CELL_SECONDS
    cells = {"original": attack + common}
    for method in methods:
        cells[method.name] = method.seconds(documents, mean_words) + len(THREAT_MODELS) * attack + common
    return cells


def _estimate(methods: list[Candidate], attackers: list[tuple[str, float, bool]], documents: int, mean_words: float) -> float:
    """Seconds for the methods' rewriting, every attacker under every threat model, and the content metrics."""
    return sum(_cell_estimates(methods, attackers, documents, mean_words).values())


def _cap_documents(authors: np.ndarray, cap: int, rng: np.random.Generator) -> list[int]:
    """At most ``cap`` documents of each author, chosen at random, in corpus order."""
    chosen = []
    for author in sorted(set(authors.tolist()), key=str):
        members = np.flatnonzero(authors == author)
        chosen.extend(members if len(members) <= cap else rng.choice(members, cap, replace=False))
    return sorted(int(i) for i in chosen)


def plan_assessment(authors: list, mean_words: float, budget_seconds: float, *, labelled: bool, seed: int = 0,
                    max_authors: int = 50, candidates: tuple[Candidate, ...] = CANDIDATES,
                    attackers: tuple[tuple[str, float, bool], ...] = ATTACKERS) -> Plan:
    """Plan an assessment of the usable documents written by ``authors`` within ``budget_seconds``.

    Keeps the ``max_authors`` most prolific authors, every installed attacker and method, and as many documents per
    author as the budget allows; when fewer than :data:`TARGET_DOCUMENTS` (or every usable document, if fewer) would
    fit, the most expensive method is left out, then the next, and the costliest attacker last. Deterministic given
    ``seed``."""
    rng = np.random.default_rng(seed)
    authors = np.asarray(authors, dtype=object)
    left_out: dict[str, str] = {}
    counts = {a: int((authors == a).sum()) for a in set(authors.tolist())}
    ranked = sorted(counts, key=lambda a: (-counts[a], str(a)))
    if len(ranked) > max_authors:
        left_out["authors"] = f"{len(ranked) - max_authors} less prolific authors (an audit keeps the {max_authors} most prolific)"
        ranked = ranked[:max_authors]
    kept = np.flatnonzero(np.isin(authors, np.array(ranked, dtype=object)))
    chosen_attackers, attackers = attackers, [a for a in attackers if installed("torch") or not a[2]]
    for name, _, neural in chosen_attackers:
        if neural and not installed("torch"):
            left_out[name] = "needs the neural extra (pip install 'authorguard[neural]')"
    methods = []
    for candidate in candidates:
        if candidate.labelled_only and not labelled:
            left_out[candidate.name] = "releases vectors: judged only by a labelled task (--label-field)"
        elif not installed(candidate.needs):
            left_out[candidate.name] = "needs the neural extra (pip install 'authorguard[neural]')"
        else:
            methods.append(candidate)
    available = sum(counts[a] for a in ranked)
    minimum = min(available, max(len(ranked) * MIN_DOCUMENTS_PER_AUTHOR, TARGET_DOCUMENTS))
    while True:
        # the largest per-author cap whose estimate fits and that keeps at least ``minimum`` documents
        caps = range(max(counts[a] for a in ranked), MIN_DOCUMENTS_PER_AUTHOR - 1, -1)
        for cap in caps:
            documents = sum(min(counts[a], cap) for a in ranked)
            if documents < minimum:
                continue
            if _estimate(methods, attackers, documents, mean_words) <= budget_seconds:
                break
        else:
            cap, documents = None, minimum
        if cap is not None or (not methods and len(attackers) <= 1):
            break
        if methods:  # the most expensive method at the smallest size goes first
            dropped = max(methods, key=lambda m: m.seconds(minimum, mean_words))
            methods.remove(dropped)
            left_out[dropped.name] = "does not fit the time budget (--budget-minutes)"
        else:
            dropped_attacker = max(attackers, key=lambda a: a[1])
            attackers.remove(dropped_attacker)
            left_out[dropped_attacker[0]] = "does not fit the time budget (--budget-minutes)"
    if cap is None:  # nothing left to drop: the smallest audit, over budget (the report shows the estimate)
        cap = next(c for c in range(MIN_DOCUMENTS_PER_AUTHOR, max(counts[a] for a in ranked) + 1)
                   if sum(min(counts[a], c) for a in ranked) >= minimum)
    chosen = kept[_cap_documents(authors[kept], cap, rng)]
    per_author_cap = cap if cap < max(counts[a] for a in ranked) else None
    cells = _cell_estimates(methods, attackers, len(chosen), mean_words)
    return Plan(sorted(int(i) for i in chosen), len(ranked), per_author_cap, methods, [a[0] for a in attackers],
                sum(cells.values()), left_out, {k: round(v, 1) for k, v in cells.items()})

