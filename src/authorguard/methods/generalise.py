"""``generalise``: make a text less specific, never false — past what a faithful rewrite can hide.

Names, places, organisations and rare words are what identifies a writer once their style is normalised away
(docs/results/generalise.md). This method replaces them by truthful, less specific forms
(:mod:`authorguard.text.generalise`) on top of ``normalise``, at a named ``level`` of the dial; every change is
recorded, so the check and the page can show and undo each one. No language model: deterministic, records in = records
out.
"""

from __future__ import annotations

from collections import Counter

from authorguard.base import TextObfuscator
from authorguard.text.generalise import check_level, generalise_texts
from authorguard.utils.validation import check_texts


class Generalise(TextObfuscator):
    """Replace specifics by what they are, at ``level``.

    Parameters
    ----------
    level : str, default="names"
        One of :data:`authorguard.text.generalise.LEVELS`, weakest first: ``names`` (people, organisations,
        places), ``rare-5000`` / ``rare-2000`` (and nouns outside the 5,000 / 2,000 words the most authors use),
        ``modifiers-2000`` / ``-1000`` / ``-500`` (and rare adjectives and manner adverbs left out; at 1,000 and 500
        a date's day), ``withheld-5000`` / ``withheld-2000`` (names, and up to a third of each sentence's words outside
        the 5,000 / 2,000 withheld: ``[word]``, ``[words]`` for a run, ``[name]`` for a proper noun — true of
        anything, nothing said of it).
    targets : sequence of str, default=()
        Words to generalise whatever their commonness: the writer's check's evidence words.
    numbers : bool, default=False
        Round figures of three or more significant digits, with a hedge ("about 5,400").

    Examples
    --------
    >>> Generalise(level="names").obfuscate(["My sister Ching moved to Toronto."])
    ['My sister moved to a city.']
    """

    deterministic = True

    def __init__(self, level: str = "names", targets=(), numbers: bool = False) -> None:
        self.level = level
        self.targets = targets
        self.numbers = numbers

    def fit(self, raw_documents=None, y=None):
        self.level_ = check_level(self.level)
        return self

    def obfuscate(self, raw_documents) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        check_level(self.level)
        results = generalise_texts(texts, self.level, targets=tuple(self.targets), numbers=bool(self.numbers))
        self.changes_ = [r.changes for r in results]
        kinds = Counter(c.kind for r in results for c in r.changes)
        words = sum(len(r.source.split()) for r in results)
        replaced = sum(len(c.original.split()) for r in results for c in r.changes)
        self._report = {
            "level": self.level,
            "changes": dict(sorted(kinds.items())),
            "records_changed": sum(bool(r.changes) for r in results),
            "words_kept": 1 - replaced / words if words else 1.0,
        }
        return [r.text for r in results]

    def release_report(self) -> dict:
        """The last call's counts: the level, changes by kind, records with a change, the share of words kept."""
        return dict(getattr(self, "_report", {}))

    def record_statuses(self, raw_documents, outputs) -> list[dict]:
        statuses = super().record_statuses(raw_documents, outputs)
        for status, changes in zip(statuses, getattr(self, "changes_", [])):
            if changes and status["status"] == "rewritten":
                kinds = Counter(c.kind for c in changes)
                status["reason"] = "generalised: " + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
        return statuses
