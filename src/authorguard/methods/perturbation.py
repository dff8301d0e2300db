"""Word-level perturbation baselines: WordNet synonym replacement and random word dropout.

TAROT's "Synonyms" baseline (Loiseau et al., Table 2) replaces a share p of the words by synonyms (p up to 0.9);
dropout deletes a share of them. Both keep the rest of the text as it is — punctuation, spacing, line breaks —
so what they change is exactly the words they touch. Each word is touched independently with probability
``rate``, from a seeded generator (or the OS CSPRNG with ``secure=True``); a word WordNet knows no single-word
synonym for is left as it is (``synonyms``), so the share of words actually replaced is below ``rate``: each
method's ``changed_share_`` reports it for the last call.
"""

from __future__ import annotations

import functools
import re
from abc import abstractmethod

import numpy as np

from authorguard.base import TextObfuscator
from authorguard.text.analysis import wordnet_synonyms
from authorguard.utils.random import RandomState, uniform_source
from authorguard.utils.validation import check_number, check_texts

# A word: letters with inner apostrophes or hyphens ("don't", "well-known"); everything else is kept verbatim.
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


#: which WordNet senses a synonym may come from (:func:`~authorguard.text.analysis.wordnet_synonyms`)
SENSES = ("common", "all")


@functools.lru_cache(maxsize=100_000)
def _synonyms(word: str, senses: str = "all") -> tuple[str, ...]:
    """Single-word WordNet synonyms of a lower-case word, sorted (a fixed order keeps draws reproducible). With
    ``senses="common"`` a one-letter word ("a", "I", the "o" of ";o)") has none."""
    if senses == "common" and len(word) < 2:
        return ()
    return tuple(sorted(wordnet_synonyms(word, senses)))


def _match_case(replacement: str, original: str) -> str:
    if original.isupper() and len(original) > 1:
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


class _WordPerturbation(TextObfuscator):
    """Touch each word independently with probability ``rate``; subclasses say what touching does.

    Parameters
    ----------
    rate : float in [0, 1], default=0.3
    random_state : int, Generator or None
    secure : bool, default=False
        Draw from the OS CSPRNG instead.

    Attributes
    ----------
    changed_share_ : float
        Share of the words of the last call that the rewrite changed.
    """

    deterministic = False

    def __init__(self, rate: float = 0.3, random_state: RandomState = None, secure: bool = False) -> None:
        self.rate = rate
        self.random_state = random_state
        self.secure = secure

    def fit(self, raw_documents=None, y=None):
        check_number(self.rate, "rate", type(self).__name__, low=0.0, high=1.0, closed="both")
        self._uniforms = uniform_source(self.random_state, self.secure)
        return self

    def reseed(self, random_state: RandomState) -> _WordPerturbation:
        self.random_state = random_state
        self._uniforms = uniform_source(random_state, self.secure)
        return self

    @abstractmethod
    def _touch(self, word: str, uniform: float) -> str | None:
        """The replacement of a touched word (None deletes it); ``uniform`` in [0, 1) picks among options."""

    def obfuscate(self, raw_documents) -> list[str]:
        """One rewritten document per input document, in order."""
        texts = check_texts(raw_documents, type(self).__name__)
        if not hasattr(self, "_uniforms"):
            self.fit()
        outputs = []
        touched = total = 0
        for text in texts:
            words = list(_WORD.finditer(text))
            draws = self._uniforms.uniforms(2 * len(words)).reshape(-1, 2) if words else np.empty((0, 2))
            pieces, end, drop_space = [], 0, False
            for match, (select, pick) in zip(words, draws):
                gap = text[end : match.start()]
                pieces.append(gap[1:] if drop_space and gap.startswith(" ") else gap)
                word = match.group(0)
                replacement = self._touch(word, pick) if select < self.rate else word
                drop_space = False
                if replacement is None:
                    # a deleted word takes one adjacent space with it (the one before it, or at the start of a
                    # line the one after it), so no double or leading spaces are left behind
                    if pieces[-1].endswith(" "):
                        pieces[-1] = pieces[-1][:-1]
                    else:
                        drop_space = True
                    replacement = ""
                touched += replacement != word
                total += 1
                pieces.append(replacement)
                end = match.end()
            tail = text[end:]
            pieces.append(tail[1:] if drop_space and tail.startswith(" ") else tail)
            outputs.append("".join(pieces))
        self.changed_share_ = touched / total if total else 0.0
        return outputs


class SynonymReplacement(_WordPerturbation):
    """Replace each word, with probability ``rate``, by a uniformly drawn WordNet synonym (case kept); a word
    without a single-word synonym stays, so ``changed_share_`` is below ``rate``.

    ``senses="common"`` (default) draws from the word's most frequent sense and skips one-letter words;
    ``senses="all"`` draws from every sense, rare ones included (TAROT's baseline as the benchmark measured it:
    "I met Yazid" -> "I adjoin Yazid", ";o)" -> ";oxygen)";
    docs/results/text-benchmark.md#synonyms-which-wordnet-senses-issue-47)."""

    def __init__(
        self, rate: float = 0.3, senses: str = "common", random_state: RandomState = None, secure: bool = False
    ) -> None:
        super().__init__(rate, random_state, secure)
        self.senses = senses

    def fit(self, raw_documents=None, y=None):
        from authorguard.utils.validation import check_option

        check_option(self.senses, "senses", type(self).__name__, SENSES)
        return super().fit(raw_documents, y)

    def _touch(self, word: str, uniform: float) -> str:
        options = _synonyms(word.lower(), self.senses)
        if not options:
            return word
        return _match_case(options[min(int(uniform * len(options)), len(options) - 1)], word)


class WordDropout(_WordPerturbation):
    """Delete each word with probability ``rate`` (punctuation and line breaks stay)."""

    def _touch(self, word: str, uniform: float) -> None:
        return None
