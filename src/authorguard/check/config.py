"""What a check reads and runs: its options (:class:`CheckConfig`), the default attackers, the limits on the text
and the known writing, and what a check says when there is too little of either to measure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from authorguard.check.features import AUTHOR_WORDS
from authorguard.check.texts import word_count
from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: run by default: the attackers that fit on 2 cores in seconds (the author encoder embeds every piece: minutes on
#: a CPU at 100 candidates; ask for it with ``attackers``)
DEFAULT_ATTACKERS = ("char-ngrams", "function-words", "writeprints-text")
#: the fewest words of known writing an attacker is run with — chosen, not yet measured (docs/results/check.md)
MIN_KNOWN_WORDS = {
    "char-ngrams": 500,
    "bow": 1000,
    "function-words": 1000,
    "writeprints": 1500,
    "writeprints-text": 1500,
    "author-embedding": 500,
    "meaning": 1000,
}
#: below this many words a text is not checked at all: too little to tell anyone's style
MIN_TEXT_WORDS = 50
PIECE_WORDS = (100, 500)
#: the longest text and the most known writing a check reads (a longer text is several texts; beyond this much known
#: writing the first :data:`MAX_KNOWN_WORDS` words are learnt from anyway)
TEXT_LIMIT_WORDS = 5_000
KNOWN_LIMIT_WORDS = 200_000


def check_limits(text: str, known: Sequence[str]) -> None:
    """One line when ``text`` or ``known`` is larger than a check reads (:data:`TEXT_LIMIT_WORDS`,
    :data:`KNOWN_LIMIT_WORDS`)."""
    words = word_count(text)
    if words > TEXT_LIMIT_WORDS:
        raise InputError(
            f"the text has {words:,} words; a check reads at most {TEXT_LIMIT_WORDS:,} (check a long text in parts)"
        )
    known_words = sum(word_count(k) for k in known)
    if known_words > KNOWN_LIMIT_WORDS:
        raise InputError(
            f"the known writing has {known_words:,} words; a check reads at most "
            f"{KNOWN_LIMIT_WORDS:,} (and learns from the first {MAX_KNOWN_WORDS:,})"
        )


@dataclass(frozen=True)
class CheckConfig:
    """``sizes``: candidate-set sizes (writer included); ``attackers``: registered attackers that give scores;
    ``calibration_pieces``: held-out pieces per background author; ``augment_pieces``: rewritten pieces per candidate
    for the augmented threat model; ``evidence``: features shown per attacker; ``seed``: draws and attackers."""

    sizes: tuple = (10, 100)
    attackers: tuple = DEFAULT_ATTACKERS
    calibration_pieces: int = 4
    augment_pieces: int = 3
    evidence: int = 6
    seed: int = 0

    def __post_init__(self) -> None:
        from authorguard import registry

        if not self.sizes or any(not isinstance(s, int) or s < 2 for s in self.sizes):
            raise InputError(f"check: candidate-set sizes must be integers of 2 or more, got {list(self.sizes)}")
        if not self.attackers:
            raise InputError("check: no attackers")
        for name in self.attackers:
            registry.attackers.get(name)  # an unknown name is one line listing the known ones
        check_number(self.calibration_pieces, "calibration_pieces", "check", kind=int, low=1, closed="left")
        check_number(self.augment_pieces, "augment_pieces", "check", kind=int, low=1, closed="left")
        check_number(self.evidence, "evidence", "check", kind=int, low=0, closed="left")
        check_number(self.seed, "seed", "check", kind=int, low=0, closed="left")


WRITER = "\u2063you"  # a name no corpus author has
#: the most words of known writing learnt from (the first ones): each background author stands beside the writer
#: with as many words, and the cache holds :data:`~authorguard.check.features.AUTHOR_WORDS` words of each,
#: four held-out pieces of up to 500 words included
MAX_KNOWN_WORDS = AUTHOR_WORDS - 4 * PIECE_WORDS[1]


def statements_for(text_words: int, known_words: int, attackers: Sequence[str]) -> tuple[list[str], list[str]]:
    """(statements, attackers that can run) for this much text."""
    statements = []
    if text_words < MIN_TEXT_WORDS:
        statements.append(
            f"The text has {text_words} words; below {MIN_TEXT_WORDS} no attacker here can tell a "
            "style apart, so no number is given. A short text is not safe for that: it only cannot be "
            "measured."
        )
        return statements, []
    runnable = [a for a in attackers if known_words >= MIN_KNOWN_WORDS.get(a, 500)]
    for name in attackers:
        if name not in runnable:
            statements.append(
                f"{name} needs {MIN_KNOWN_WORDS.get(name, 500)} words of known writing, you gave "
                f"{known_words}: left out."
            )
    if not runnable:
        statements.append(
            f"With {known_words} words of known writing no attacker here is reliable: add more of "
            "your writing (2,000 words or more) for a measured answer."
        )
    elif known_words < 2000:
        statements.append(
            f"With {known_words} words of known writing the attackers are weaker than one holding "
            "more of your writing would be: the risk may be understated."
        )
    return statements, runnable
