"""Generalise what gives a writer away: the check's evidence words turned into their truthful, less specific
forms (``generalise``), offered one by one and all at once, and the text checked again.

What identifies a writer once their style is normalised away is what they write about — the words the check lists
as its evidence ("sister", "Ching", "Busang"). Each such word gets the form ``generalise`` gives it in this text
(a broader word, what a name is, or the marker ``[word]`` / ``[name]``); the page offers each as one click, and
"Generalise what gives me away" applies them all, with every name in the text. Changes are made on
``normalise``'s text of the writing (the faithful edits come with them) and each is listed, so none is hidden.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from authorguard.check.evidence import WORD_EVIDENCE


@dataclass(frozen=True)
class GeneralisedText:
    """``text`` (the writing after ``normalise`` and the chosen generalisations) and its ``changes``: [original,
    replacement] in text order ("" when a word was left out)."""

    text: str
    changes: list = field(default_factory=list)


@dataclass(frozen=True)
class GeneralisedCheck:
    """The check of the text after "Generalise what gives me away": the ``text`` released, its ``changes``, the
    fidelity meter's verdict on (the text checked, ``text``; None: not scored, too long for the meter) and the
    rankings by the same fitted attackers (static: nothing refitted)."""

    text: str
    changes: list
    fidelity: str | None
    fidelity_reason: str | None
    rankings: list = field(default_factory=list)
    seconds: float = 0.0


def _covers(change_text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", change_text, re.IGNORECASE) is not None


def generalise_words(text: str, words: Sequence[str], *, names: bool = False) -> GeneralisedText:
    """``text`` normalised, with each of ``words`` generalised (its broader word, what it names, or the marker);
    ``names``: every name of a person, organisation or place too (level ``names``)."""
    from authorguard.exceptions import InputError
    from authorguard.text.generalise import apply_changes, generalise_texts

    if not isinstance(text, str) or not text.strip():
        raise InputError("generalise: the text is empty")
    if isinstance(words, str) or not all(isinstance(w, str) for w in words):
        raise InputError("generalise: words must be a list of strings (the evidence words)")
    words = [w for w in words if w.strip()]
    result = generalise_texts([text], "names", targets=words)[0]
    # at level names only the targets give word kinds ("poodles" for the target "poodle" too); a name is chosen
    # when it covers a target, or with ``names``
    chosen = [
        c
        for c in result.changes
        if names or c.kind in ("word", "withheld", "name") or any(_covers(c.original, w) for w in words)
    ]
    return GeneralisedText(apply_changes(result.source, chosen), [[c.original.strip(), c.replacement] for c in chosen])


def with_offers(text: str, evidence: list) -> list:
    """``evidence`` with each word item's ``generalisation``: the form ``generalise`` gives it in ``text`` (a broader
    word, what a name is, or ``[word]`` / ``[name]`` when it has no broader form; "" for function words,
    punctuation and a negation or a figure, which are never withheld)."""
    words = sorted({e.feature for e in evidence if e.kind == WORD_EVIDENCE})
    if not words:
        return evidence
    changes = generalise_words(text, words).changes
    out = []
    for item in evidence:
        offer = ""
        if item.kind == WORD_EVIDENCE:
            found = next((new for old, new in changes if _covers(old, item.feature)), None)
            if found is not None:
                offer = found or "(left out)"
        out.append(dataclasses.replace(item, generalisation=offer) if offer else item)
    return out


def generalise_evidence(session, rounds: int = 1) -> GeneralisedCheck:
    """Apply every evidence word's generalisation and every name's to ``session``'s text and check the result with
    the session's fitted attackers (a :class:`~authorguard.check.session.CheckSession` after its check). ``rounds`` > 1
    repeats it on the new evidence of the generalised text (what pressing the page's button again does), until no
    attacker ranks the writer first or the evidence offers nothing new; the changes of every round are listed."""
    from authorguard.metrics.fidelity import FidelityMeter

    start = time.perf_counter()
    changes: list[list[str]] = []
    text, evidence, rankings = session.text, session.result.evidence, session.result.rankings
    for _ in range(max(1, rounds)):
        words = [e.feature for e in evidence if e.kind == WORD_EVIDENCE]
        step = generalise_words(text, words, names=True)
        if not step.changes or not step.text.strip():
            break
        text, changes = step.text, changes + step.changes
        checked = session.recheck(text)
        evidence, rankings = checked.evidence, checked.rankings
        if not any(r.rank == 1 for r in rankings):
            break
    score = FidelityMeter(n_process=1).score([session.text], [text])[0]
    found = GeneralisedCheck(
        text, changes, score.verdict, score.reason, rankings if changes else [], round(time.perf_counter() - start, 2)
    )
    session.result.generalised = found
    return found
