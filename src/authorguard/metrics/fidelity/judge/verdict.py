"""How the judge reads a passage and joins the rule meter: sentence by sentence, the worst sentence deciding, an
atom finding never overruled.

A passage pair is cut into sentences; each output sentence is judged against the run of one to three input
sentences it shares the most content words with (so that a split or merged sentence still meets its source), and
the pair's probability of ``changed`` is its worst sentence's. With the calibrated thresholds (``low``, ``high``):

- the rule meter's atom findings (a unit, a quotation, a loop, a list broken) make it ``changed``, whatever the judge;
- a probability of ``changed`` at or above ``high``: ``changed``;
- at or below ``low``: the rules' ``partial`` stays (an input sentence the output lost is the rules' to see),
  ``generalised`` where the rules or the judge's most likely class say so, else ``faithful``;
- between the two: ``unsure`` — the judge cannot settle it, and it is never counted as faithful.

:func:`fit_thresholds` chooses ``low`` and ``high`` on development labels: the pair that agrees with the labels
most while calling at most ``max_unsure`` of the pairs unsure and at most ``max_faithful_changed`` of the changed
ones faithful.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from authorguard.metrics.fidelity.verdict import FidelityScore

_WORD = re.compile(r"[a-z0-9]+")
#: the most input sentences one output sentence is judged against
MOST_MERGED = 3


@functools.cache
def _splitter():
    from authorguard.text.sentences import SentenceSplitter

    return SentenceSplitter()


def split_sentences(text: str) -> list[str]:
    return [" ".join(s.split()) for s in _splitter().split(text)] or [text]


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def aligned_sentences(source: str, output: str) -> list[tuple[str, str]]:
    """(input span, output sentence) per output sentence: the span of 1 to :data:`MOST_MERGED` consecutive input
    sentences sharing the largest share of the two's words (Dice)."""
    inputs, outputs = split_sentences(source), split_sentences(output)
    if len(inputs) == 1 or len(outputs) == 1:
        return [(source, output)] if len(outputs) == 1 else [(source, sentence) for sentence in outputs]
    words = [_words(s) for s in inputs]
    pairs = []
    for sentence in outputs:
        mine = _words(sentence)
        best, best_score = (0, 1), -1.0
        for start in range(len(inputs)):
            for end in range(start + 1, min(len(inputs), start + MOST_MERGED) + 1):
                theirs = set().union(*words[start:end])
                score = 2 * len(mine & theirs) / max(1, len(mine) + len(theirs))
                if score > best_score:
                    best, best_score = (start, end), score
        pairs.append((" ".join(inputs[best[0] : best[1]]), sentence))
    return pairs


def passage_probabilities(judge, sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """Per passage pair the judge's probabilities (faithful, generalised, changed) of its worst sentence (the one
    most likely changed): (n, 3)."""
    spans, owners = [], []
    for k, (source, output) in enumerate(zip(sources, outputs)):
        for pair in aligned_sentences(source, output):
            spans.append(pair)
            owners.append(k)
    found = judge.probabilities([a for a, _ in spans], [b for _, b in spans]) if spans else np.zeros((0, 3))
    out = np.zeros((len(sources), 3), dtype=np.float32)
    worst = np.full(len(sources), -1.0)
    for row, owner in zip(found, owners):
        if row[2] > worst[owner]:
            worst[owner], out[owner] = row[2], row
    return out


def combined(rule: FidelityScore, probabilities: np.ndarray, low: float, high: float) -> FidelityScore:
    """The rule meter's score joined with the judge's probabilities of one pair (module docstring)."""
    if rule.verdict is None or rule.atom_findings:
        return replace(rule, meter="judge")
    rule = replace(rule, meter="judge")
    p_changed = float(probabilities[2])
    said = f"the judge: changed with probability {p_changed:.2f}"
    if p_changed >= high:
        reasons = rule.reasons if rule.verdict == "changed" else [said, *rule.reasons]
        return replace(rule, verdict="changed", reasons=reasons)
    if p_changed > low:
        return replace(rule, verdict="unsure", reasons=[f"{said}: between its thresholds", *rule.reasons])
    if rule.verdict == "partial":
        return rule
    generalised = rule.verdict == "generalised" or int(np.argmax(probabilities)) == 1
    verdict = "generalised" if generalised else "faithful"
    reasons = rule.reasons if verdict == "generalised" and rule.verdict == "generalised" else []
    if verdict == "generalised" and not reasons:
        reasons = [f"the judge: less specific, true (probability {float(probabilities[1]):.2f})"]
    return replace(rule, verdict=verdict, reasons=reasons)


def fit_thresholds(
    rules: Sequence[FidelityScore],
    probabilities: np.ndarray,
    labels: Sequence[str],
    max_unsure: float = 0.10,
    max_faithful_changed: float = 0.05,
    objective: str = "agreement",
    max_changed_faithful: float = 0.15,
) -> dict:
    """``{"low", "high", "agreement", "unsure", "changed_called_faithful", "faithful_called_changed", "pairs",
    "objective"}``: thresholds on a grid of 0.02, at most ``max_unsure`` of the pairs unsure.

    ``objective="agreement"``: the band that agrees with ``labels`` most while calling at most
    ``max_faithful_changed`` of the changed pairs faithful (ties: the narrower band). ``objective="targets"``: the
    band nearest both error limits at once — the least of max(changed called faithful / ``max_faithful_changed``,
    faithful called changed / ``max_changed_faithful``) (ties: the higher agreement)."""
    if objective not in ("agreement", "targets"):
        raise ValueError(f"unknown objective {objective!r} (known: agreement, targets)")
    grid = np.round(np.arange(0.02, 1.0, 0.02), 2)
    truth = list(labels)
    changed = [i for i, label in enumerate(truth) if label == "changed"]
    honest = [i for i, label in enumerate(truth) if label == "faithful"]
    best: dict | None = None
    best_key: tuple | None = None
    for low in grid:
        for high in grid[grid >= low]:
            verdicts = [combined(r, p, low, high).verdict for r, p in zip(rules, probabilities)]
            unsure = sum(v == "unsure" for v in verdicts) / len(verdicts)
            faithful = sum(verdicts[i] == "faithful" for i in changed) / max(1, len(changed))
            wrongly_changed = sum(verdicts[i] == "changed" for i in honest) / max(1, len(honest))
            if unsure > max_unsure or (objective == "agreement" and faithful > max_faithful_changed):
                continue
            agreement = sum(v == t for v, t in zip(verdicts, truth)) / len(truth)
            if objective == "agreement":
                key: tuple = (agreement, -(high - low))
            else:
                key = (-max(faithful / max_faithful_changed, wrongly_changed / max_changed_faithful), agreement)
            if best_key is None or key > best_key:
                best_key = key
                best = {
                    "low": float(low),
                    "high": float(high),
                    "agreement": round(agreement, 4),
                    "unsure": round(unsure, 4),
                    "changed_called_faithful": round(faithful, 4),
                    "faithful_called_changed": round(wrongly_changed, 4),
                    "pairs": len(truth),
                    "objective": objective,
                }
    if best is None:
        raise ValueError("no thresholds meet the limits on these labels")
    return best
