"""What in a text points to its writer: the features that weigh most for the writer against the runner-up.

For a linear attacker, the writer's score minus another candidate's is a sum over features of
``value in the text x (writer's weight - other's weight)``; the largest terms are what carries the signal. Two
attackers are read this way: character n-grams (spelling, word pieces, punctuation and spacing) and function
words (how often the small words are used). Each item says, in plain words, what the feature is and how often the
text has it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

#: the evidence items whose feature is a word of the text (what a generalisation can change)
WORD_EVIDENCE = "a word you use"
#: what a character n-gram made only of these is about
_PUNCTUATION = set(" \t\n.,;:!?'\"()[]{}-_/\\*&%$#@~`^|<>=+…’“”")


@dataclass(frozen=True)
class Evidence:
    """One feature: ``kind`` (punctuation and spacing | a word you use | function word), the feature as
    written, its ``weight`` (its share of what pulls the text towards the writer rather than the runner-up: of the
    positive terms of the score difference, not of the margin itself, which the intercepts and the negative terms
    also make; the items of one attacker sum to at most 1) and ``count`` (occurrences in the text). ``spans``:
    [start, end) character offsets of each occurrence in the text (what the page highlights); ``text_rate``,
    ``known_rate``, ``others_rate``: occurrences per 1,000 words in the text, in the writer's known writing and in
    the other candidates' writing; ``advice``: what the writer can do about it; ``generalisation``: for a word, the
    truthful less specific form ``generalise`` gives it in the text ("dog" for "poodle", "[name]"; "" when none)."""

    attacker: str
    kind: str
    feature: str
    weight: float
    count: int
    spans: list = field(default_factory=list)
    text_rate: float = float("nan")
    known_rate: float = float("nan")
    others_rate: float = float("nan")
    advice: str = ""
    generalisation: str = ""

    def describe(self) -> str:
        shown = self.feature.replace(" ", "␣").replace("\n", "⏎")
        rates = ""
        if self.known_rate == self.known_rate:
            side = "more" if self.text_rate > self.others_rate else "less"
            rates = (
                f"; {self.text_rate:.1f} per 1,000 words here, {self.known_rate:.1f} in your known writing, "
                f"{self.others_rate:.1f} in the other candidates' — you use it {side} than they do, as your "
                "known writing does"
                if (self.known_rate > self.others_rate) == (side == "more")
                else f"; {self.text_rate:.1f} per 1,000 words here, {self.known_rate:.1f} in your known writing, "
                f"{self.others_rate:.1f} in the other candidates'"
            )
        if self.count == 0:  # a habit's absence: the others use it, you (here and in your known writing) less
            what = "word" if self.kind in ("function word", WORD_EVIDENCE) else "characters"
            return f"that the {what} “{shown}” is not in the text (0 times here{rates})"
        if self.kind == "function word":
            return f"how often you use the word “{self.feature}” ({self.count} times here{rates})"
        if self.kind == WORD_EVIDENCE:
            return f"the word “{self.feature}” (its spelling and letters; {self.count} times here{rates})"
        return (
            f"the characters “{shown}”: punctuation, spacing and symbols around words ({self.count} times here{rates})"
        )


def _lead_terms(values: np.ndarray, weights: np.ndarray, writer: int, rival: int) -> np.ndarray:
    """Per feature: value x (writer's weight - rival's); a two-class SVM has one row (the second class's)."""
    if weights.shape[0] == 1:
        direction = weights[0] if writer == 1 else -weights[0]
    else:
        direction = weights[writer] - weights[rival]
    return values * direction


def _top(terms: np.ndarray, most: int) -> list[tuple[int, float]]:
    lead = terms[terms > 0].sum()
    if lead <= 0:
        return []
    order = np.argsort(-terms)[:most]
    return [(int(j), float(terms[j] / lead)) for j in order if terms[j] > 0]


def char_ngram_items(terms: np.ndarray, names, text: str, most: int) -> list[tuple[str, str, float, int]]:
    """[(kind, feature, share, count in the text)]: the words and punctuation of ``text`` whose character n-grams
    (``names``, their terms ``terms``) favour the writer most. Overlapping n-grams of one word ("ngap", "gapo") are
    summed into the word they come from ("Singapore"): a person reads words, not n-grams."""
    words = re.findall(r"\w+", text)
    types = sorted(set(words))
    grouped: dict[tuple[str, str], float] = {}
    for j, share in _top(terms, 10 * most):
        gram = str(names[j])
        core = gram.strip()
        owners = [w for w in types if core in w] if core.isalpha() and len(core) >= 3 else []
        if len(owners) == 1:  # a letter sequence of one word only: the word is what a person recognises
            key = (WORD_EVIDENCE, owners[0])
        elif set(gram) <= _PUNCTUATION or not core.isalnum():
            key = ("punctuation and spacing", gram)
        else:
            continue  # a letter sequence shared by several words: no one word to name
        grouped[key] = grouped.get(key, 0.0) + share
    top = sorted(grouped.items(), key=lambda item: -item[1])[:most]
    return [
        (kind, feature, share, words.count(feature) if kind == WORD_EVIDENCE else text.count(feature))
        for (kind, feature), share in top
    ]


def spans_of(kind: str, feature: str, text: str) -> list[list[int]]:
    """Where ``feature`` occurs in ``text``: whole words (case-insensitively for function words), or the
    characters as written."""
    if kind == "function word":
        pattern = re.compile(r"(?<!\w)" + re.escape(feature) + r"(?!\w)", re.IGNORECASE)
    elif kind == WORD_EVIDENCE:
        pattern = re.compile(r"(?<!\w)" + re.escape(feature) + r"(?!\w)")
    else:
        pattern = re.compile(re.escape(feature.strip() or feature))
    return [[m.start(), m.end()] for m in pattern.finditer(text)]


def advice(kind: str, feature: str) -> str:
    """What the writer can do: the normaliser's edit when one applies, a common synonym, or rephrasing."""
    from authorguard.text.normalise import normalise

    core = feature.strip() or feature
    edited = normalise(core) if core.strip() else core
    if core[:1].islower() and edited[:1].isupper():
        edited = edited[:1].lower() + edited[1:]  # a word alone reads as a sentence start: no capital for it
    if kind == "function word":
        return "the rate is what counts, not the word: rephrasing a sentence or two that use it (or could) moves it"
    if edited != core:
        return f"the automatic faithful edit (normalise) writes it “{edited}”"
    if kind == WORD_EVIDENCE:
        from authorguard.text.resources import wordnet
        from authorguard.text.views import canonical_word

        lemma = wordnet().morphy(core.lower()) or core.lower()  # "kids" -> "kid"
        # a synonym only for a word of one sense: the view's representative ignores senses ("engagement" ->
        # "battle"), and advice must not change what the writer says
        common = canonical_word(lemma) if len(wordnet().synsets(lemma)) == 1 else None
        if common and common != core.lower():
            return f"a common word for it: “{common}” — or rephrase where it appears, unless it is what you mean"
        return "rephrase where it appears, unless it is a name or the topic itself (then it stays)"
    return "vary it or write it the common way where the meaning allows"


def read_evidence(model, session, text: str, counts: dict, writer: int, rival: int, most: int) -> list[Evidence]:
    """The evidence of one fitted count model (:mod:`authorguard.check.models`) for ``text`` (``counts``: its
    counts, one row per family): its largest terms in plain words, each with where it occurs, how often the writer
    and the others use it, and what to do."""
    from authorguard.check.texts import word_count

    if not hasattr(model.model_, "coef_") or model.name not in READERS:
        return []
    terms, names = model.terms(counts, writer, rival)
    items = READERS[model.name](terms, names, text, most)
    out = []
    for kind, feature, share, count in items:
        family, key = ("words", feature.lower()) if kind != "punctuation and spacing" else ("char", feature)
        known, others = session.rates(family, [key])
        words = max(word_count(text), 1)
        out.append(
            Evidence(
                model.name,
                kind,
                feature,
                share,
                count,
                spans_of(kind, feature, text),
                1000 * count / words,
                float(known[0]),
                float(others[0]),
                advice(kind, feature),
            )
        )
    return out


def function_word_items(terms: np.ndarray, names, text: str, most: int) -> list[tuple[str, str, float, int]]:
    """[(kind, word, share, count in the text)] of the function words whose rate favours the writer most."""
    tokens = [t.lower() for t in re.findall(r"(?u)\b\w+\b", text)]
    return [("function word", str(names[j]), share, tokens.count(str(names[j]))) for j, share in _top(terms, most)]


#: attacker name -> its evidence reader
READERS = {"char-ngrams": char_ngram_items, "function-words": function_word_items}
