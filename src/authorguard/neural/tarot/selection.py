"""Reward-ranked candidates at inference: k rewrites per chunk, the gate, the best valid one, a counted fallback.

Per chunk, ``candidates`` rewrites are sampled; those the :class:`~authorguard.text.validity.RewriteGate` refuses
are dropped, and so are those whose MiniLM cosine to the chunk is below ``min_utility``; of the rest the one with
the highest TAROT reward (R_util + R_priv) is kept. Chunks left without one are sampled again with another seed
(``retries`` rounds); a chunk that still has none gets the ``fallback``: ``"keep"`` leaves the chunk as it was
and flags its record, ``"withhold"`` writes nothing for it and flags the record (the rewriter then withholds the
whole record). Nothing is silent: the counts
(and the flagged records) are returned with the texts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from authorguard.exceptions import InputError
from authorguard.generation.base import Generations
from authorguard.text.validity import FALLBACKS, REASONS
from authorguard.utils.validation import check_number, check_option


class Sampler(Protocol):
    """``sample(chunk_indices, repeats, seed) -> Generations``, sampling at most ``limit`` new tokens a text."""

    @property
    def limit(self) -> int: ...

    def __call__(self, indices: list[int], repeats: int, seed: int) -> Generations: ...


@dataclass(frozen=True)
class LimitedSampler:
    """A sampling function with the ``limit`` of new tokens it samples under (a :class:`Sampler`)."""

    sample: Callable[[list[int], int, int], Generations]
    limit: int

    def __call__(self, indices: list[int], repeats: int, seed: int) -> Generations:
        return self.sample(indices, repeats, seed)


class Gate(Protocol):
    """What selection asks of a gate (:class:`~authorguard.text.validity.RewriteGate` or a view's gate): per
    candidate, the reason it is refused, or None."""

    def problems(
        self, originals: Sequence[str], rewrites: Sequence[str], truncated: Sequence[bool] | None = None
    ) -> list[str | None]: ...


@dataclass(frozen=True)
class SelectionConfig:
    """``candidates`` rewrites a chunk per round, ``retries`` extra rounds for chunks without a valid one, the
    MiniLM-cosine floor ``min_utility`` (-1: none), and the ``fallback`` of :data:`FALLBACKS`."""

    candidates: int = 1
    retries: int = 1
    min_utility: float = 0.5
    fallback: str = "keep"

    def __post_init__(self) -> None:
        check_number(self.candidates, "candidates", "TAROT selection", kind=int, low=1, closed="left")
        check_number(self.retries, "retries", "TAROT selection", kind=int, low=0, closed="left")
        check_number(self.min_utility, "min_utility", "TAROT selection", low=-1, high=1, closed="both")
        check_option(self.fallback, "fallback", "TAROT selection", FALLBACKS)


@dataclass(frozen=True)
class Selection:
    """``texts[i]``: the chosen rewrite of chunk i (its original under ``keep``, "" under ``withhold``);
    ``fell_back[i]``: chunk i got the fallback; ``counts``: candidates sampled, refused by reason and by the
    utility floor, rounds; ``new_tokens`` and ``seconds`` of all generation."""

    texts: list
    fell_back: list
    counts: dict
    new_tokens: int
    seconds: float


def select_rewrites(
    chunks: Sequence[str],
    sample: Sampler,
    gate: Gate,
    score: Callable | None,
    config: SelectionConfig,
    seed: int,
) -> Selection:
    """``sample(chunk_indices, repeats, seed) -> Generations`` of the chunks' prompts, each repeated ``repeats``
    times in a row (its ``new_tokens`` tell whether the limit was hit, via ``sample.limit``); ``score(originals,
    rewrites) -> RewardBreakdown`` ranks valid candidates (None: the first valid candidate is kept, no floor)."""
    chosen: list = [None] * len(chunks)
    refused: Counter = Counter()
    sampled = tokens = 0
    seconds = 0.0
    pending = list(range(len(chunks)))
    rounds = 0
    for round_number in range(config.retries + 1):
        if not pending:
            break
        rounds += 1
        k = config.candidates
        out = sample(pending, k, seed + 7919 * round_number)
        tokens += sum(out.new_tokens)
        seconds += out.seconds
        sampled += len(out.texts)
        if len(out.texts) != len(pending) * k:
            raise InputError(f"TAROT selection: {len(out.texts)} samples for {len(pending)} chunks x {k}")
        originals = [chunks[i] for i in pending for _ in range(k)]
        truncated = [n >= sample.limit for n in out.new_tokens]
        problems = gate.problems(originals, out.texts, truncated)
        refused.update(p for p in problems if p is not None)
        valid = [j for j, p in enumerate(problems) if p is None]
        utility = total = None
        if score is not None and valid:
            scores = score([originals[j] for j in valid], [out.texts[j] for j in valid])
            utility = dict(zip(valid, np.nan_to_num(scores.utility, nan=1.0)))
            total = dict(zip(valid, scores.total))
        still = []
        for slot, chunk in enumerate(pending):
            best, best_score = None, -np.inf
            for j in range(slot * k, slot * k + k):
                if problems[j] is not None:
                    continue
                if utility is not None and utility[j] < config.min_utility:
                    refused["utility"] += 1
                    continue
                value = total[j] if total is not None else 0.0
                if best is None or value > best_score:
                    best, best_score = out.texts[j], value
            if best is None:
                still.append(chunk)
            else:
                chosen[chunk] = best
        pending = still
    fell_back = [text is None for text in chosen]
    texts = [
        text if text is not None else (chunks[i] if config.fallback == "keep" else "") for i, text in enumerate(chosen)
    ]
    counts = {
        "candidates_sampled": sampled,
        "rounds": rounds,
        "refused": {reason: refused[reason] for reason in REASONS + ("utility",) if refused[reason]},
        "chunks_fallback": sum(fell_back),
    }
    return Selection(texts, fell_back, counts, tokens, seconds)


def release_stats(documents: Sequence[int], chosen: Selection, n_documents: int, fallback: str, engine: str) -> dict:
    """The per-call report of a chunked rewriter: ``documents[i]`` is the record of chunk i (of ``n_documents``
    records; a record without chunks is blank). Counts the selection's candidates and refusals, the records
    rewritten, flagged (any chunk fell back) and fallen back whole, and the speed of generation (new tokens/s)."""
    per_document = Counter(documents)
    fell_back = Counter(d for d, fell in zip(documents, chosen.fell_back) if fell)
    flagged = sorted(fell_back)
    return {
        "documents": n_documents,
        "chunks": len(documents),
        **chosen.counts,
        "records_rewritten": len(per_document) - len(flagged),
        "records_flagged": len(flagged),
        "records_blank": n_documents - len(per_document),
        "records_fallback_whole": sum(fell_back[d] == per_document[d] for d in flagged),
        "flagged_records": flagged,
        # per flagged record: [chunks that got the fallback, chunks of the record]
        "fallback_chunks": {str(d): [fell_back[d], per_document[d]] for d in flagged},
        "fallback": fallback,
        "new_tokens": chosen.new_tokens,
        "engine": engine,
        "seconds": round(chosen.seconds, 2),
        "tokens_per_second": round(chosen.new_tokens / chosen.seconds, 1) if chosen.seconds else float("nan"),
    }
