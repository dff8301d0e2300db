"""``normalise``: a deterministic style normaliser that keeps every meaning (:mod:`authorguard.text.normalise`).

The rewriting baseline every other text method must beat: it removes the surface habits (punctuation runs,
contractions, casing, spelling and informal variants, emoticons, spacing) that character n-gram, function-word
and WritePrints attackers read, and changes no word's meaning — so its outputs are faithful by construction.
docs/results/faithful.md measures what that buys against every attacker and threat model.
"""

from __future__ import annotations

from authorguard.base import TextObfuscator
from authorguard.text.normalise import check_rules, normalise
from authorguard.utils.validation import check_texts


class Normalise(TextObfuscator):
    """Apply the named normalisation rules to each document; records in = records out, line breaks kept.

    Parameters
    ----------
    rules : str or sequence of str, default="all"
        Which rules of :data:`authorguard.text.normalise.RULES` to run (a comma-separated string or a list); they
        always run in the table's order.

    Examples
    --------
    >>> Normalise().obfuscate(["i dont know... it's been sooo long!!!"])
    ['I do not know... It has been so long!']
    """

    deterministic = True

    def __init__(self, rules="all") -> None:
        self.rules = rules

    def fit(self, raw_documents=None, y=None):
        self.rules_ = check_rules(self.rules)
        return self

    def obfuscate(self, raw_documents) -> list[str]:
        texts = check_texts(raw_documents, type(self).__name__)
        rules = check_rules(self.rules)
        return [normalise(text, rules) for text in texts]
