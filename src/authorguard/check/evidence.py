"""What in a text points to its writer: the features that weigh most for the writer against the runner-up.

For a linear attacker, the writer's score minus another candidate's is a sum over features of
``value in the text x (writer's weight - other's weight)``; the largest terms are what carries the signal. Two
attackers are read this way: character n-grams (spelling, word pieces, punctuation and spacing) and function
words (how often the small words are used). Each item says, in plain words, what the feature is and how often the
text has it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

#: what a character n-gram made only of these is about
_PUNCTUATION = set(" \t\n.,;:!?'\"()[]{}-_/\\*&%$#@~`^|<>=+…’“”")


@dataclass(frozen=True)
class Evidence:
    """One feature: ``kind`` (punctuation and spacing | a word you use | function word), the feature as
    written, its ``weight`` (its share of what pulls the text towards the writer rather than the runner-up: of the
    positive terms of the score difference, not of the margin itself, which the intercepts and the negative terms
    also make; the items of one attacker sum to at most 1) and ``count`` (occurrences in the text)."""

    attacker: str
    kind: str
    feature: str
    weight: float
    count: int

    def describe(self) -> str:
        shown = self.feature.replace(" ", "␣").replace("\n", "⏎")
        if self.kind == "function word":
            return f"how often you use the word “{self.feature}” ({self.count} times here)"
        if self.kind == "a word you use":
            return f"the word “{self.feature}” (its spelling and letters; {self.count} times here)"
        return f"the characters “{shown}”: punctuation, spacing and symbols around words ({self.count} times here)"


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


def char_ngram_evidence(attacker, text: str, writer: int, rival: int, most: int = 8) -> list[Evidence]:
    """The words and punctuation of ``text`` whose character n-grams favour candidate ``writer`` over ``rival``
    most (indices into the attacker's ``classes_``), for a fitted
    :class:`~authorguard.attacks.char_ngrams.CharNgramAttacker` with an SVM. Overlapping n-grams of one word
    ("ngap", "gapo") are summed into the word they come from ("Singapore"): a person reads words, not n-grams."""
    tfidf, classifier = attacker.model_.named_steps["tfidf"], attacker.model_.named_steps["clf"]
    if not hasattr(classifier, "coef_"):
        return []
    values = tfidf.transform([text]).toarray()[0]
    names = tfidf.get_feature_names_out()
    words = re.findall(r"\w+", text)
    types = sorted(set(words))
    grouped: dict[tuple[str, str], float] = {}
    for j, share in _top(_lead_terms(values, classifier.coef_, writer, rival), 10 * most):
        gram = str(names[j])
        core = gram.strip()
        owners = [w for w in types if core in w] if core.isalpha() and len(core) >= 3 else []
        if len(owners) == 1:  # a letter sequence of one word only: the word is what a person recognises
            key = ("a word you use", owners[0])
        elif set(gram) <= _PUNCTUATION or not core.isalnum():
            key = ("punctuation and spacing", gram)
        else:
            continue  # a letter sequence shared by several words: no one word to name
        grouped[key] = grouped.get(key, 0.0) + share
    top = sorted(grouped.items(), key=lambda item: -item[1])[:most]
    return [Evidence(attacker.name, kind, feature, share,
                     words.count(feature) if kind == "a word you use" else text.count(feature))
            for (kind, feature), share in top]


def function_word_evidence(attacker, text: str, writer: int, rival: int, most: int = 8) -> list[Evidence]:
    """The function words whose rate in ``text`` favours ``writer`` over ``rival`` most, for a fitted
    :class:`~authorguard.attacks.function_words.FunctionWordAttacker` with an SVM."""
    from authorguard.data.release import Release

    if not hasattr(attacker.model_, "coef_"):
        return []
    values = attacker.features(Release.from_texts([text]))[0]
    names = np.asarray(attacker.vectorizer_.get_feature_names_out())[attacker.columns_]
    tokens = [t.lower() for t in attacker.tokenize_(text)]
    items = []
    for j, share in _top(_lead_terms(values, attacker.model_.coef_, writer, rival), most):
        word = str(names[j])
        items.append(Evidence(attacker.name, "function word", word, share, tokens.count(word)))
    return items


#: attacker name -> its evidence reader
READERS = {"char-ngrams": char_ngram_evidence, "function-words": function_word_evidence}
