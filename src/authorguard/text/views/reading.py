"""How every view reads a text: its sentences, its word tokens with their contractions read, which capitalised
words are names, and the marks a view writes between sentences (:mod:`authorguard.text.views` builds the views on
this; :mod:`authorguard.text.views.roles` reads the roles view)."""

from __future__ import annotations

import functools
import re

from authorguard.text.resources import english_stop_words, wordnet

#: the marker a view puts between sentences
SENTENCE_MARK = "|"
#: the last token of a question in the roles view: a question is not a statement (a constrained realiser ends
#: that sentence with "?", every other with ".")
QUESTION_MARK = "?"

#: function words a view keeps, by group: they carry meaning a reader needs (docs/results/bottleneck.md measures
#: what keeping them costs in privacy)
KEPT_FUNCTION_WORDS = {
    "negation": frozenset({"not", "no", "nor", "never", "nothing", "nobody", "none", "nowhere", "neither", "cannot"}),
    "modal": frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"}),
    "quantifier": frozenset({"all", "any", "both", "each", "few", "more", "most", "some", "only", "again"}),
}
KEPT_WORDS = frozenset().union(*KEPT_FUNCTION_WORDS.values())
# contraction endings: what a view reads them as ("" = a function word, dropped)
_CONTRACTIONS = {"n't": "not", "'ll": "will", "'s": "", "'re": "", "'ve": "", "'m": "", "'d": ""}
IRREGULAR_NEGATIONS = {
    "can't": ("can", "not"),
    "won't": ("will", "not"),
    "shan't": ("shall", "not"),
    "cannot": ("can", "not"),
    "ain't": ("not",),
}
# a word (letters, inner apostrophes) or a number (digits with inner . , :)
WORD_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*|\d+(?:[.,:]\d+)*")
_PARAGRAPHS = re.compile(r"\n\s*\n")


@functools.cache
def _splitter():
    from authorguard.text.sentences import SentenceSplitter

    return SentenceSplitter()


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences: paragraphs (blank lines), then Punkt without training."""
    out: list[str] = []
    for paragraph in _PARAGRAPHS.split(text):
        if paragraph.strip():
            out.extend(_splitter().split(paragraph) or [paragraph.strip()])
    return out


def expand_contractions(token: str) -> list[str]:
    """A token with its contraction read: ``didn't`` -> [``did``, ``not``], ``we'll`` -> [``we``, ``will``]."""
    token = token.replace("\u2019", "'")
    lower = token.lower()
    if lower in IRREGULAR_NEGATIONS:
        return list(IRREGULAR_NEGATIONS[lower])
    for ending, reading in _CONTRACTIONS.items():
        if lower.endswith(ending) and len(lower) > len(ending):
            return [token[: -len(ending)]] + ([reading] if reading else [])
    return [token]


@functools.lru_cache(maxsize=200_000)
def known_lower(word: str) -> bool:
    return word in english_stop_words() or bool(wordnet().synsets(word))


def is_name(token: str, first: bool) -> bool:
    """A name is kept as written: capitalised (not all capitals: shouting is style) inside a sentence, or at its
    start when the lower-case word is unknown."""
    if not token[0].isupper() or token.isupper() and len(token) > 1:
        return False
    return not first or not known_lower(token.lower())


def join_sentences(parts: list[list[str]], mark: bool) -> str:
    parts = [p for p in parts if p]
    return f" {SENTENCE_MARK} ".join(" ".join(p) for p in parts) if mark else " ".join(w for p in parts for w in p)
