"""Turning raw documents into terms: tokenisation, morphology, stop words and numbers.

The analyzer is a picklable callable that plugs into scikit-learn's ``CountVectorizer(analyzer=...)``.
"""

from __future__ import annotations

import functools
import re

from authorguard.text.resources import english_stop_words, wordnet

MORPHOLOGIES = ("lemma", "lower", "orth")

# Runs of letters/digits; tokens with a digit count as numbers and are removed, as are 1-letter tokens.
_TOKEN = re.compile(r"[^\W_]+")
_HAS_DIGIT = re.compile(r"\d")


def tokenize(text: str) -> list[str]:
    """Split ``text`` into alphanumeric tokens (Unicode aware), in order."""
    return _TOKEN.findall(text)


@functools.lru_cache(maxsize=200_000)
def lemmatize(word: str) -> str:
    """WordNet lemma of a lower-case word: the shorter of its noun and verb lemmas (the noun on a tie).

    No part-of-speech tagger is run (none is pretrained here and the cost would dominate). Taking the shorter
    reading resolves plurals ("cats" -> "cat") and inflected verbs that are also nouns ("running" -> "run").
    """
    wn = wordnet()
    lemmas = [lemma for lemma in (wn.morphy(word, "n"), wn.morphy(word, "v")) if lemma]
    return min(lemmas, key=len) if lemmas else word


class TermAnalyzer:
    """Callable mapping a document to its list of terms.

    Parameters
    ----------
    morphology : {"lemma", "lower", "orth"}
        ``lemma``: lower-case then WordNet lemma; ``lower``: lower-case; ``orth``: the token unchanged.
    remove_stop_words : bool
        Drop NLTK's English stop words (compared in lower case, before and after lemmatisation).
    """

    def __init__(self, morphology: str = "lemma", remove_stop_words: bool = True) -> None:
        self.morphology = morphology
        self.remove_stop_words = remove_stop_words

    def __call__(self, text: str) -> list[str]:
        stop = english_stop_words() if self.remove_stop_words else frozenset()
        # one comprehension per morphology, every filter in it (this runs once per token of every corpus: a plain
        # loop with per-token branches took twice as long, and a second comprehension a quarter more);
        # ``isalpha`` spares the digit search for ordinary words
        if self.morphology == "orth":
            return [
                t
                for t in _TOKEN.findall(text)
                if len(t) > 1 and (t.isalpha() or not _HAS_DIGIT.search(t)) and t.lower() not in stop
            ]
        lowered = [
            low
            for t in _TOKEN.findall(text)
            if len(t) > 1 and (t.isalpha() or not _HAS_DIGIT.search(t)) and (low := t.lower()) not in stop
        ]
        if self.morphology == "lower":
            return lowered
        return [lemma for lemma in map(lemmatize, lowered) if lemma not in stop]

    def normalize_word(self, word: str) -> str | None:
        """Normalise a single vocabulary word the way documents are; None when it would be removed."""
        terms = self(word)
        return terms[0] if len(terms) == 1 else None


def wordnet_synonyms(word: str, senses: str = "all") -> set[str]:
    """Single-word lemma names of WordNet synsets of ``word`` (lower case, without ``word``).

    ``senses="all"``: every synset of the word (rare senses included: "a" -> "axerophthol", "same" -> "saame").
    ``senses="common"``: the word's most frequent sense only (WordNet lists senses by frequency in SemCor), and of
    its lemmas those attested in SemCor (count >= 1): "met" -> encounter, meet, see; "same" -> none."""
    wn = wordnet()
    synsets = wn.synsets(word)
    if senses == "common":
        synsets = synsets[:1]
    synonyms = set()
    for synset in synsets:
        for lemma in synset.lemmas():
            name = lemma.name().lower()
            if name != word and name.isalpha() and (senses == "all" or lemma.count() > 0):
                synonyms.add(name)
    return synonyms
