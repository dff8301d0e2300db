"""Which documents, attackers and methods an assessment measures within its time budget.

Costs are seconds on the 2-core machine the defaults were measured on (docs/results/assess.md): a rewriting
method costs a fixed set-up plus, for every document it rewrites, a rate per document and a rate per 100 words it
reads (the harness rewrites train and test documents: the augmented and adversarial attackers learn from rewritten
text); an attacker costs a rate per 100 words of every document per threat model. The rates were fitted to the
cells of one assessment (20 Newsgroups, 260 documents) and to the methods timed alone on samples of the three
corpora, and checked on the other two assessments; the plan is an estimate, and the report gives the measured
seconds of every cell beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from authorguard.assess.profile import MIN_DOCUMENTS_PER_AUTHOR
from authorguard.utils.extras import method_problems

#: the attackers an audit runs, strongest first by what the benchmark measured (docs/results/text-benchmark.md,
#: docs/neural.md): (name, seconds per 100 words of every document per fit); what each needs installed is the
#: registry's (``authorguard attackers``)
ATTACKERS = (
    ("char-ngrams", 0.0004),
    ("writeprints-text", 0.002),
    ("function-words", 0.0002),
    ("author-embedding", 0.002),
    ("meaning", 0.003),
)
#: seconds per 100 words of each document in the content sample (METEOR, ROUGE, MiniLM), and per cell (detector)
CONTENT_SECONDS_PER_100_WORDS = 0.02
CELL_SECONDS = 5.0
THREAT_MODELS = ("static", "augmented", "adversarial")
#: documents an audit keeps before it keeps a method (when the corpus has them): ~30 test documents, a 95 % interval
#: of about ±0.17 — fewer and every method is within the noise of every other
TARGET_DOCUMENTS = 100
#: seconds of a run that the plan does not model (loading data, the report): taken off the budget first
OVERHEAD_SECONDS = 30.0


@dataclass(frozen=True)
class Candidate:
    """A method setting an assessment may evaluate, with its cost model.

    ``setup_seconds``: once per run; per document rewritten, ``seconds_per_document`` plus ``seconds_per_100_words``
    for every 100 words it reads (at most ``words_read`` words of a document: None reads them all); what the method
    needs installed (an extra, SmolLM2's weights) is the registry's; ``labelled_only``: evaluated only with a label
    field (its release
    is a bag of words, judged by the task it keeps); ``floor``: a style-free view released as it is — measured to
    show how much of the identifiability is content (docs/results/bottleneck.md), never recommended."""

    method: str
    params: dict = field(default_factory=dict)
    label: str = ""
    setup_seconds: float = 0.0
    seconds_per_100_words: float = 0.0
    seconds_per_document: float = 0.0
    words_read: int | None = None
    labelled_only: bool = False
    floor: bool = False

    @property
    def name(self) -> str:
        return self.label or self.method

    def seconds(self, documents: int, words: np.ndarray) -> float:
        """Seconds to rewrite ``documents`` documents whose lengths (words each) are distributed like ``words``."""
        read = np.asarray(words, dtype=float)
        if self.words_read is not None:
            read = np.minimum(read, self.words_read)
        mean_read = float(read.mean()) if read.size else 0.0
        return self.setup_seconds + documents * (
            self.seconds_per_document + self.seconds_per_100_words * mean_read / 100.0
        )


#: seconds the bottleneck takes per 100 words it reads on 2 cores: 126 s for 48 paragraphs of 90 words
#: (benchmarks/bottleneck_throughput.py, docs/results/bottleneck.md "Speed")
BOTTLENECK_SECONDS_PER_100_WORDS = 2.9
#: the default methods, floors first, then by family (rates measured on the 2-core machine: see the module docstring)
CANDIDATES = (
    # the floors: each view costs a tokenisation (and a WordNet lookup per word for the canonical one)
    Candidate("view:content", {}, "content floor", 0.0, 0.002, floor=True),
    Candidate("view:canonical", {}, "canonical floor", 0.0, 0.004, floor=True),
    Candidate("view:roles", {}, "roles floor", 0.0, 0.003, floor=True),
    # normalise: the faithful baseline (docs/results/faithful.md); its rules take 0.7 s for 1,000 posts, the cell's
    # cost is the fidelity meter's parse of the content sample, as for every text method
    Candidate("normalise", {}, "normalise", 1.0, 0.002),
    # generalise: names and rare words made less specific, never false; spaCy's tagger and recogniser at
    # ~6,000 words/s on 2 cores (docs/results/generalise.md), the meter's parse as for every text method
    Candidate("generalise", {"level": "names"}, "generalise names", 2.0, 0.02),
    Candidate("generalise", {"level": "withheld-5000"}, "generalise withheld-5000", 2.0, 0.02),
    Candidate("synonyms", {"rate": 0.3}, "synonyms 0.3", 1.0, 0.01),
    Candidate("synonyms", {"rate": 0.6}, "synonyms 0.6", 1.0, 0.01),
    Candidate("dropout", {"rate": 0.3}, "dropout 0.3", 0.0, 0.001),
    # SynTF's set-up is the privacy accounting of its public (GloVe) vocabulary: ~240 s before its first cell, once
    Candidate("syntf", {}, "SynTF vectors", 240.0, 0.01, labelled_only=True),
    # dp-prompt writes a fixed 128 tokens from a prompt cut to 512 tokens (~380 words), in batches of 64 padded to
    # the longest prompt: 0.3 s a document plus 0.25 s per 100 words read. Fitted to its cells (attackers included):
    # 73 Federalist papers, every prompt cut, 69-108 s (1.25 s a document planned); 260 blog posts (median 43
    # words) 101-121 s. A flat 0.5 s a document had planned 102 s for 130 news articles of ~500 words that took
    # 768 s on a shared CPU: the budget check during measurement, not the rate, is what holds such a run.
    Candidate(
        "dp-prompt",
        {"epsilon": 10_000.0},
        "dp-prompt ε=10,000",
        10.0,
        0.25,
        0.3,
        words_read=380,
    ),
    Candidate(
        "dp-prompt",
        {"epsilon": 3_000.0},
        "dp-prompt ε=3,000",
        10.0,
        0.25,
        0.3,
        words_read=380,
    ),
    # tarot samples 4 rewrites a chunk and samples again for chunks without a valid one: 2.0 s per 100 words timed
    # alone on 32 blog posts, 4.2 in the blog assessment's cell (more retries on short posts)
    Candidate("tarot", {}, "tarot", 10.0, 4.0),
    # at level roles the bottleneck is written by rule (~27,000 words/s, docs/results/bottleneck-rule.md): no model,
    # the cell's cost is the meter's parse, as for normalise
    Candidate("bottleneck", {"level": "roles"}, "bottleneck roles", 1.0, 0.003),
    # at the other levels a language model writes each chunk once and samples again only what the view gate refuses
    # (docs/results/bottleneck.md)
    Candidate(
        "bottleneck",
        {"level": "content"},
        "bottleneck content",
        15.0,
        BOTTLENECK_SECONDS_PER_100_WORDS,
    ),
    Candidate(
        "bottleneck",
        {"level": "canonical"},
        "bottleneck canonical",
        15.0,
        BOTTLENECK_SECONDS_PER_100_WORDS,
    ),
)


def missing_requirement(name: str, table=None, params: dict | None = None) -> str | None:
    """Why the registered method (or, with ``table``, the attacker) ``name`` cannot run on this machine and what
    would let it (one line), or None when it can; ``params``: the method's, for one whose model is optional."""
    problems = method_problems(name, table, params)
    return "needs " + "; and ".join(problems) if problems else None


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


def _cell_estimates(
    methods: list[Candidate], attackers: list[tuple[str, float]], documents: int, words: np.ndarray
) -> dict[str, float]:
    """Seconds of each cell: ``original`` (every attacker once, content metrics) and each method (its rewriting,
    every attacker under every threat model, content metrics); ``words``: words per document."""
    hundreds = float(np.mean(words)) / 100.0
    attack = sum(rate for _, rate in attackers) * hundreds * documents
    common = CONTENT_SECONDS_PER_100_WORDS * hundreds * min(documents, 300) + CELL_SECONDS
    cells = {"original": attack + common}
    for method in methods:
        cells[method.name] = method.seconds(documents, words) + len(THREAT_MODELS) * attack + common
    return cells


def _estimate(methods: list[Candidate], attackers: list[tuple[str, float]], documents: int, words: np.ndarray) -> float:
    """Seconds for the methods' rewriting, every attacker under every threat model, and the content metrics."""
    return sum(_cell_estimates(methods, attackers, documents, words).values())


def _budget_minutes(seconds: float) -> int:
    """The whole --budget-minutes that leaves ``seconds`` for the cells."""
    return max(1, math.ceil((seconds + OVERHEAD_SECONDS) / 60.0 - 1e-9))


def _cap_documents(authors: np.ndarray, cap: int, rng: np.random.Generator) -> list[int]:
    """At most ``cap`` documents of each author, chosen at random, in corpus order."""
    chosen: list[np.integer] = []
    for author in sorted(set(authors.tolist()), key=str):
        members = np.flatnonzero(authors == author)
        chosen.extend(members if len(members) <= cap else rng.choice(members, cap, replace=False))
    return sorted(int(i) for i in chosen)


def _runnable(candidates, attackers, labelled: bool, left_out: dict[str, str]) -> tuple[list, list]:
    """(methods, attackers) this machine can run on this corpus; LEFT_OUT is told why each other one is not."""
    from authorguard import registry

    running = []
    for attacker in attackers:
        if missing := missing_requirement(attacker[0], registry.attackers):
            left_out[attacker[0]] = missing
        else:
            running.append(attacker)
    methods = []
    for candidate in candidates:
        missing = missing_requirement(candidate.method, params=dict(candidate.params))
        if candidate.labelled_only and not labelled:
            left_out[candidate.name] = "releases vectors: judged only by a labelled task (--label-field)"
        elif missing:
            left_out[candidate.name] = missing
        else:
            methods.append(candidate)
    return methods, running


def _fit_budget(methods: list, running: list, sizes: list[int], minimum: int, lengths, budget_seconds: float):
    """The largest per-author cap whose estimate fits the budget and keeps at least MINIMUM documents (SIZES: each
    kept author's documents), dropping the most expensive method, then the costliest attacker, until one does
    (METHODS and RUNNING lose what is dropped). Returns (cap or None when nothing fits, dropped methods, dropped
    attackers), in the order dropped."""
    dropped_methods: list = []
    dropped_attackers: list = []
    while True:
        for cap in range(max(sizes), MIN_DOCUMENTS_PER_AUTHOR - 1, -1):
            documents = sum(min(n, cap) for n in sizes)
            if documents >= minimum and _estimate(methods, running, documents, lengths) <= budget_seconds:
                break
        else:
            cap = None
        if cap is not None or (not methods and len(running) <= 1):
            return cap, dropped_methods, dropped_attackers
        if methods:  # the most expensive method at the smallest size goes first
            dropped = max(methods, key=lambda m: m.seconds(minimum, lengths))
            methods.remove(dropped)
            dropped_methods.append(dropped)
        else:
            dropped_attacker = max(running, key=lambda a: a[1])
            running.remove(dropped_attacker)
            dropped_attackers.append(dropped_attacker)


def plan_assessment(
    authors: Sequence[object] | np.ndarray,
    words: Sequence[int] | np.ndarray,
    budget_seconds: float,
    *,
    labelled: bool,
    seed: int = 0,
    max_authors: int = 50,
    candidates: tuple[Candidate, ...] = CANDIDATES,
    attackers: tuple[tuple[str, float], ...] = ATTACKERS,
) -> Plan:
    """Plan an assessment of the usable documents written by ``authors`` (``words``: each one's length in words)
    within ``budget_seconds`` of cells.

    Keeps the ``max_authors`` most prolific authors, every installed attacker and method, and as many documents per
    author as the budget allows; when fewer than :data:`TARGET_DOCUMENTS` (or every usable document, if fewer) would
    fit, the most expensive method is left out, then the next, and the costliest attacker last. What the budget left
    out is reported with the --budget-minutes that would include it. Deterministic given ``seed``."""
    rng = np.random.default_rng(seed)
    author_of = np.asarray(authors, dtype=object)
    lengths = np.asarray(words, dtype=float)
    left_out: dict[str, str] = {}
    counts = {a: int((author_of == a).sum()) for a in set(author_of.tolist())}
    ranked = sorted(counts, key=lambda a: (-counts[a], str(a)))
    if len(ranked) > max_authors:
        left_out["authors"] = (
            f"{len(ranked) - max_authors} less prolific authors (an audit keeps the {max_authors} most prolific)"
        )
        ranked = ranked[:max_authors]
    kept = np.flatnonzero(np.isin(author_of, np.array(ranked, dtype=object)))
    lengths = lengths[kept]
    methods, running = _runnable(candidates, attackers, labelled, left_out)
    available = sum(counts[a] for a in ranked)
    minimum = min(available, max(len(ranked) * MIN_DOCUMENTS_PER_AUTHOR, TARGET_DOCUMENTS))
    sizes = [counts[a] for a in ranked]
    # the smallest audit: the smallest per-author cap keeping ``minimum`` documents, and the documents it keeps
    smallest_cap = next(
        c for c in range(MIN_DOCUMENTS_PER_AUTHOR, max(sizes) + 1) if sum(min(n, c) for n in sizes) >= minimum
    )
    smallest = sum(min(n, smallest_cap) for n in sizes)
    cap, dropped_methods, dropped_attackers = _fit_budget(methods, running, sizes, minimum, lengths, budget_seconds)
    # a method the budget dropped is kept by a budget that holds it and every method dropped after it (all cheaper)
    # with every attacker, on the smallest audit; an attacker, by one that holds it and those dropped after it
    for i, method in enumerate(dropped_methods):
        needed = _estimate(dropped_methods[i:] + methods, running + dropped_attackers, smallest, lengths)
        left_out[method.name] = (
            f"does not fit the time budget: --budget-minutes {_budget_minutes(needed)} would include it"
        )
    for i, attacker in enumerate(dropped_attackers):
        needed = _estimate([], running + dropped_attackers[i:], smallest, lengths)
        left_out[attacker[0]] = (
            f"does not fit the time budget: --budget-minutes {_budget_minutes(needed)} would include it"
        )
    if cap is None:  # nothing left to drop: the smallest audit, over budget (the report shows the estimate)
        cap = smallest_cap
    chosen = kept[_cap_documents(author_of[kept], cap, rng)]
    per_author_cap = cap if cap < max(counts[a] for a in ranked) else None
    cells = _cell_estimates(methods, running, len(chosen), lengths)
    return Plan(
        sorted(int(i) for i in chosen),
        len(ranked),
        per_author_cap,
        methods,
        [a[0] for a in running],
        sum(cells.values()),
        left_out,
        {k: round(v, 1) for k, v in cells.items()},
    )
