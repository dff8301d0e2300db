"""Rules that keep what a sentence says (faithful) or say it less specifically (generalised): each
``(sentence, parse, context) -> rewrite | None``."""

from __future__ import annotations

import re

from authorguard.neural.judge.edits import PairContext, Rule, _common, _inverse, _swap_table
from authorguard.neural.judge.tables import ABBREVIATIONS, CONTRACTIONS, NATIONALITIES, SPELLINGS


def contractions(text: str, doc, context: PairContext) -> str | None:
    table = CONTRACTIONS if context.rng.random() < 0.5 else _inverse(CONTRACTIONS)
    return _swap_table(text, table, context.rng, every=True) or _swap_table(text, _inverse(table), context.rng, True)


def spelling(text: str, doc, context: PairContext) -> str | None:
    return _swap_table(text, SPELLINGS, context.rng, True) or _swap_table(text, _inverse(SPELLINGS), context.rng, True)


def abbreviation(text: str, doc, context: PairContext) -> str | None:
    table = ABBREVIATIONS if context.rng.random() < 0.5 else _inverse(ABBREVIATIONS)
    return _swap_table(text, table, context.rng) or _swap_table(text, _inverse(table), context.rng)


def nationality(text: str, doc, context: PairContext) -> str | None:
    """ "the French government" -> "the government of France" (a nationality adjective before its noun)."""
    for token in doc:
        country = NATIONALITIES.get(token.text)
        head = token.head
        if country and token.dep_ == "amod" and head.i == token.i + 1 and head.pos_ == "NOUN":
            start, end = token.idx, head.idx + len(head.text)
            return text[:start] + f"{head.text} of {country}" + text[end:]
    return None


_CLAUSE_AFTER = re.compile(
    r"^(?P<main>[^,;:\"]{12,}?),? (?P<mark>because|when|if|although|while|after|before|since|unless|as soon as) "
    r"(?P<clause>[^,;:\"]{8,})(?P<end>[.!?])$"
)
_CLAUSE_BEFORE = re.compile(
    r"^(?P<mark>Because|When|If|Although|While|After|Before|Since|Unless|As soon as) (?P<clause>[^,;:\"]{8,}), "
    r"(?P<main>[^;:\"]{12,}?)(?P<end>[.!?])$"
)


def _lower_first(text: str, doc) -> str:
    first = text.split(" ", 1)[0]
    proper = doc is not None and len(doc) > 0 and doc[0].text == first and doc[0].pos_ == "PROPN"
    if first == "I" or first.isupper() or proper:
        return text
    return text[:1].lower() + text[1:]


def clause_moved(text: str, doc, context: PairContext) -> str | None:
    """A trailing subordinate clause moved to the front, or a leading one to the end (who does what kept)."""
    if match := _CLAUSE_AFTER.match(text):
        mark = match["mark"]
        return f"{mark[:1].upper() + mark[1:]} {match['clause']}, {_lower_first(match['main'], doc)}{match['end']}"
    if match := _CLAUSE_BEFORE.match(text):
        main = match["main"]
        return f"{main[:1].upper() + main[1:]} {match['mark'].lower()} {match['clause']}{match['end']}"
    return None


def synonym(text: str, doc, context: PairContext) -> str | None:
    """Up to three content words (adjectives, adverbs, uninflected verbs, singular nouns) by another single-word name
    of their dominant WordNet sense (at least 70 % of the word's tagged uses) whose own dominant sense it is too, one
    among the 10,000 words most widely used: a paraphrase's vocabulary, kept to the sense a reader takes."""
    options = [(token, names) for token in doc if (names := _sense_synonyms(token))]
    if not options:
        return None
    chosen = sorted(context.rng.permutation(len(options))[: int(context.rng.integers(1, 4))])
    out, shift = text, 0
    for k in chosen:
        token, names = options[k]
        word = names[int(context.rng.integers(len(names)))]
        word = word[:1].upper() + word[1:] if token.text[:1].isupper() else word
        start = token.idx + shift
        out = out[:start] + word + out[start + len(token.text) :]
        shift += len(word) - len(token.text)
    return out


_POS = {"ADJ": "a", "ADV": "r", "VERB": "v", "NOUN": "n"}


def _sense_synonyms(token) -> list[str]:
    from authorguard.text.generalise.kinds import _wordnet

    if token.pos_ not in _POS or token.text.lower() != token.lemma_.lower() or len(token.text) < 4:
        return []
    if token.pos_ == "NOUN" and token.tag_ != "NN" or token.pos_ == "VERB" and token.tag_ not in ("VB", "VBP"):
        return []
    synsets = _wordnet().synsets(token.text.lower(), pos=_POS[token.pos_])
    if not synsets or not _dominant(token.text.lower(), synsets):
        return []
    sense = synsets[0]
    return [
        name
        for name in sense.lemma_names()
        if "_" not in name
        and len(name) >= 4
        and name.lower() != token.text.lower()
        and _common(name, 10_000)
        and (theirs := _wordnet().synsets(name, pos=sense.pos()))
        and theirs[0] == sense
        and _dominant(name, theirs)
    ]


def _dominant(word: str, synsets) -> bool:
    """Whether ``word``'s first sense takes at least 70 % of its tagged uses (and it has at least 5)."""
    counts = [sum(lemma.count() for lemma in s.lemmas() if lemma.name().lower() == word) for s in synsets]
    return sum(counts) >= 5 and counts[0] >= 0.7 * sum(counts)


def conjuncts_swapped(text: str, doc, context: PairContext) -> str | None:
    """Two single nouns joined by "and" trade places ("cats and dogs" -> "dogs and cats")."""
    for token in doc:
        if token.dep_ != "conj" or token.pos_ not in ("NOUN", "PROPN") or token.head.pos_ != token.pos_:
            continue
        head = token.head
        between = doc[head.i + 1 : token.i]
        if len(between) == 1 and between[0].lower_ == "and" and not any(t.lower_ == "between" for t in doc[: head.i]):
            first, second = head.text, token.text
            start, end = head.idx, token.idx + len(token.text)
            return text[:start] + f"{second} and {first}" + text[end:]
    return None


CONNECTIVES = {
    "However,": "But",
    "In addition,": "Also,",
    "For example,": "For instance,",
    "Therefore,": "So",
    "a lot of": "many",
    "lots of": "plenty of",
    "in order to": "to",
    "as well as": "and",
    "at the moment": "right now",
    "nowadays": "these days",
    "a few": "several",
    "because of": "owing to",
    "right now": "at the moment",
}


def connectives(text: str, doc, context: PairContext) -> str | None:
    return _swap_table(text, CONNECTIVES, context.rng)


def normalised(text: str, doc, context: PairContext) -> str | None:
    from authorguard.text.normalise import normalise

    out = normalise(text)
    return out if out != text else None


FAITHFUL_RULES: dict[str, Rule] = {
    "contractions": contractions,
    "spelling": spelling,
    "abbreviation": abbreviation,
    "nationality": nationality,
    "clause_moved": clause_moved,
    "synonym": synonym,
    "conjuncts_swapped": conjuncts_swapped,
    "connectives": connectives,
    "normalised": normalised,
}


# -- generalised ---------------------------------------------------------------------------------------------


def name_by_kind(text: str, doc, context: PairContext) -> str | None:
    """Names of people, organisations and places by what they are, figures rounded with a hedge (``generalise``'s
    ``names`` level, numbers on)."""
    from authorguard.text.generalise import generalise_texts

    found = generalise_texts([text], "names", numbers=True)[0]
    return found.text if found.changes and found.text != found.source else None


def noun_by_hypernym(text: str, doc, context: PairContext) -> str | None:
    """A rare noun by its hypernym (``generalise``'s ``rare-2000`` level)."""
    from authorguard.text.generalise import generalise_texts

    found = generalise_texts([text], "rare-2000")[0]
    return found.text if found.changes and found.text != found.source else None


GENERALISED_RULES: dict[str, Rule] = {"name_by_kind": name_by_kind, "noun_by_hypernym": noun_by_hypernym}
