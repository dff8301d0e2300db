"""Rules that make a sentence say something it does not, one class each (a negation, a hedge reversed, an antonym,
a number changed or moved, a unit dropped, a time shifted, agent and patient swapped, a speaker changed, a quotation
reworded, a name by another or by a wrong kind, a co-hyponym, a clause dropped, a claim added): each
``(sentence, parse, context) -> rewrite | None``."""

from __future__ import annotations

import re

import numpy as np

from authorguard.neural.judge.edits import PairContext, Rule, _common, _swap_table
from authorguard.neural.judge.tables import (
    ADDED_CLAIMS,
    HEDGES,
    NUMBER_WORDS,
    SAY_VERBS,
    SPEAKERS,
    TIMES,
    WRONG_KINDS,
)

_NEGATED = re.compile(r"\b(?:not |n't|never )", re.I)


def negation(text: str, doc, context: PairContext) -> str | None:
    """A negation removed where there is one, else added after the first auxiliary or copula."""
    if (
        match := re.search(r"\b(is|are|was|were|do|does|did|can|could|will|would|should|has|have|had) not\b", text)
    ) or (match := re.search(r"\b(is|are|was|were|do|does|did|could|would|should|has|have|had)n't\b", text)):
        return text[: match.start()] + match.group(1) + text[match.end() :]
    if match := re.search(r"\bnever\b", text):
        return (text[: match.start()] + "always" + text[match.end() :]).replace("  ", " ")
    for token in doc:
        if token.pos_ == "AUX" and token.dep_ in ("aux", "cop", "ROOT", "auxpass") and token.text.lower() != "to":
            end = token.idx + len(token.text)
            return text[:end] + " not" + text[end:]
    return None


def hedge(text: str, doc, context: PairContext) -> str | None:
    return _swap_table(text, HEDGES, context.rng)


def antonym(text: str, doc, context: PairContext) -> str | None:
    """An adjective, adverb or verb by a WordNet antonym of one of its senses (its own form: uninflected only)."""
    from authorguard.text.generalise.kinds import _wordnet

    wordnet = _wordnet()
    options = []
    for token in doc:
        if token.pos_ not in ("ADJ", "ADV", "VERB") or token.text.lower() != token.lemma_.lower():
            continue
        pos = {"ADJ": "a", "ADV": "r", "VERB": "v"}[token.pos_]
        found = {
            a.name()
            for s in wordnet.synsets(token.lemma_, pos=pos)[:2]
            for lemma in s.lemmas()
            for a in lemma.antonyms()
        }
        opposite = sorted(w for w in found if "_" not in w)
        if opposite:
            options.append((token, opposite))
    if not options:
        return None
    token, opposite = options[int(context.rng.integers(len(options)))]
    return text[: token.idx] + opposite[0] + text[token.idx + len(token.text) :]


_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})*(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?![\w])")


def number_changed(text: str, doc, context: PairContext) -> str | None:
    numbers = list(_NUMBER.finditer(text))
    if numbers:
        match = numbers[int(context.rng.integers(len(numbers)))]
        value = float(match.group(0).replace(",", ""))
        new = (
            value + int(context.rng.choice([1, 2, 3, 5, 10])) * int(context.rng.choice([-1, 1]))
            if value > 10
            else value + 1
        )
        new = max(new, 0)
        written = f"{int(new):,}" if "," in match.group(0) else (str(int(new)) if new == int(new) else f"{new:g}")
        if "." in match.group(0) and new == int(new) and "," not in match.group(0):
            written = f"{new:.{len(match.group(0).split('.')[1])}f}"
        return text[: match.start()] + written + text[match.end() :]
    words = [w for w in NUMBER_WORDS if re.search(rf"\b{w}\b", text, re.I)]
    if words:
        word = words[0]
        other = NUMBER_WORDS[(NUMBER_WORDS.index(word) + 1 + int(context.rng.integers(3))) % len(NUMBER_WORDS)]
        return re.sub(rf"\b{word}\b", other, text, count=1, flags=re.I)
    return None


def numbers_swapped(text: str, doc, context: PairContext) -> str | None:
    """Two different numbers trade places (each now counts the other's thing)."""
    numbers = list(_NUMBER.finditer(text))
    if len(numbers) < 2 or numbers[0].group(0) == numbers[1].group(0):
        return None
    first, second = numbers[0], numbers[1]
    return (
        text[: first.start()]
        + second.group(0)
        + text[first.end() : second.start()]
        + first.group(0)
        + text[second.end() :]
    )


def unit_dropped(text: str, doc, context: PairContext) -> str | None:
    """A currency sign, a scale word or a percent sign taken off its number."""
    if match := re.search(r"\$\s?(?=\d)", text):
        return text[: match.start()] + text[match.end() :]
    if match := re.search(r"(?<=\d) ?(million|billion|trillion|thousand|percent|per cent|%)", text):
        return text[: match.start()] + text[match.end() :]
    return None


def time_shifted(text: str, doc, context: PairContext) -> str | None:
    """A year moved, a time word swapped ("last" -> "next", "Monday" -> "Thursday") or a tense shifted."""
    ways = [_shift_year, lambda t: _swap_table(t, TIMES, context.rng), _swap_tense]
    for k in context.rng.permutation(2):  # the year or the time word first, by chance; the tense last
        if out := (ways[k](text) if k else _shift_year(text, context.rng)):
            return out
    return _swap_tense(text)


def _shift_year(text: str, rng: np.random.Generator | None = None) -> str | None:
    years = list(re.finditer(r"\b(1[6-9]\d\d|20[0-4]\d)\b", text))
    if not years:
        return None
    rng = rng or np.random.default_rng(0)
    shifted = int(years[0].group(0)) + int(rng.choice([-3, -2, -1, 1, 2, 5, 10]))
    return text[: years[0].start()] + str(shifted) + text[years[0].end() :]


def _swap_tense(text: str) -> str | None:
    for old, new in ((r"\bwas\b", "will be"), (r"\bwere\b", "will be"), (r"\bwill\b", "did")):
        if re.search(old, text):
            return re.sub(old, new, text, count=1)
    return None


def agent_patient(text: str, doc, context: PairContext) -> str | None:
    """A verb's subject and object (neither a pronoun) trade places."""
    for token in doc:
        if token.pos_ != "VERB":
            continue
        subjects = [c for c in token.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")]
        objects = [c for c in token.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN")]
        if subjects and objects:
            subject, obj = _span(subjects[0]), _span(objects[0])
            if subject[1] <= obj[0]:
                a, b = text[subject[0] : subject[1]], text[obj[0] : obj[1]]
                if a.lower() == b.lower():
                    continue
                b_first = b[:1].upper() + b[1:] if subject[0] == 0 else b
                a_after = a[:1].lower() + a[1:] if subject[0] == 0 and subjects[0].pos_ != "PROPN" else a
                return text[: subject[0]] + b_first + text[subject[1] : obj[0]] + a_after + text[obj[1] :]
    return None


def _span(token) -> tuple[int, int]:
    """Character offsets of a token's noun phrase (its subtree, without a trailing relative clause)."""
    kept = [t for t in token.subtree if t.dep_ not in ("relcl", "acl", "punct", "prep") or t.i < token.i]
    start = min(t.idx for t in kept)
    end = max(t.idx + len(t.text) for t in kept if t.i <= token.i or t.dep_ in ("compound", "amod"))
    return start, end


def speaker(text: str, doc, context: PairContext) -> str | None:
    """The subject of a verb of saying or believing replaced by someone else."""
    for token in doc:
        if token.lemma_.lower() in SAY_VERBS or token.text.lower() in SAY_VERBS:
            subjects = [c for c in token.children if c.dep_ == "nsubj"]
            if subjects:
                start, end = _span(subjects[0])
                said = text[start:end]
                options = [s for s in SPEAKERS if s.lower() != said.lower()]
                new = options[int(context.rng.integers(len(options)))]
                if said == "I" or said.lower() == "we":
                    new = "they" if said.lower() == "we" else "he"
                new = new[:1].upper() + new[1:] if start == 0 else new
                return text[:start] + new + text[end:]
    return None


_QUOTE = re.compile(r"([\"\u201c])([^\"\u201c\u201d]{6,})([\"\u201d])")


def quotation_reworded(text: str, doc, context: PairContext) -> str | None:
    """Inside a quotation, a negation, hedge, antonym or number changed (the marks kept)."""
    match = _QUOTE.search(text)
    if not match:
        return None
    inner = match.group(2)
    for rule in (hedge, number_changed, negation_in_words, words_dropped):
        changed = rule(inner, None, context)
        if changed and changed != inner:
            return text[: match.start(2)] + changed + text[match.end(2) :]
    return None


def negation_in_words(text: str, doc, context: PairContext) -> str | None:
    for old, new in ((" not ", " "), (" is ", " is not "), (" are ", " are not "), (" will ", " will not ")):
        if old in text:
            return text.replace(old, new, 1)
    return None


def words_dropped(text: str, doc, context: PairContext) -> str | None:
    words = text.split()
    if len(words) < 6:
        return None
    start = int(context.rng.integers(1, len(words) - 2))
    return " ".join(words[:start] + words[start + 2 :])


_SIBLING_KINDS = frozenset(
    [
        "noun.animal",
        "noun.food",
        "noun.plant",
        "noun.artifact",
        "noun.person",
        "noun.location",
        "noun.substance",
        "noun.body",
        "noun.object",
        "noun.group",
    ]
)


def _entities(doc, labels) -> list:
    return [e for e in doc.ents if e.label_ in labels and e.text[:1].isupper()]


def name_replaced(text: str, doc, context: PairContext) -> str | None:
    """A name by another name of the same kind seen in the corpus."""
    found = _entities(doc, ("PERSON", "GPE", "ORG", "NORP", "LOC"))
    for entity in found:
        options = [n for n in context.names.get(entity.label_, []) if n != entity.text and n not in text]
        if options:
            new = options[int(context.rng.integers(len(options)))]
            return text[: entity.start_char] + new + text[entity.end_char :]
    return None


def name_wrong_kind(text: str, doc, context: PairContext) -> str | None:
    """A name by a general word of a kind it is not ("Texas" -> "the company")."""
    found = _entities(doc, tuple(WRONG_KINDS))
    if not found:
        return None
    entity = found[int(context.rng.integers(len(found)))]
    options = WRONG_KINDS[entity.label_]
    new = options[int(context.rng.integers(len(options)))]
    start = entity.start_char
    if start >= 4 and text[start - 4 : start].lower() == "the ":
        start -= 4
    new = new[:1].upper() + new[1:] if start == 0 else new
    return text[:start] + new + text[entity.end_char :]


def co_hyponym(text: str, doc, context: PairContext) -> str | None:
    """A concrete noun of one sense by a widely used sibling under its hypernym ("dog" -> "cat"), singular only."""
    from authorguard.text.generalise.kinds import _wordnet

    wordnet = _wordnet()
    options = []
    for token in doc:
        if token.pos_ != "NOUN" or token.tag_ != "NN" or len(token.text) < 3:
            continue
        synsets = wordnet.synsets(token.text.lower(), pos="n")
        # one sense only, of a concrete kind: "question" and "interrogation" are one thing, "dog" and "cat" two
        if len(synsets) != 1 or synsets[0].lexname() not in _SIBLING_KINDS:
            continue
        for synset in synsets:
            kin = {
                lemma.name()
                for parent in synset.hypernyms()
                for sibling in parent.hyponyms()
                if sibling != synset
                for lemma in sibling.lemmas()[:1]
            }
            siblings = sorted(
                s
                for s in kin
                if "_" not in s and s.isalpha() and s.lower() != token.text.lower() and _common(s, 20_000)
            )
            if siblings:
                options.append((token, siblings))
    if not options:
        return None
    token, siblings = options[int(context.rng.integers(len(options)))]
    word = siblings[int(context.rng.integers(len(siblings)))]
    return text[: token.idx] + word + text[token.idx + len(token.text) :]


def clause_dropped(text: str, doc, context: PairContext) -> str | None:
    """A conjoined clause or a subordinate clause with its information left out."""
    for token in doc:
        if token.dep_ in ("conj", "advcl") and token.pos_ in ("VERB", "AUX") and token.head.dep_ == "ROOT":
            subtree = list(token.subtree)
            start, end = subtree[0].i, subtree[-1].i + 1
            left = start
            while left > 0 and doc[left - 1].dep_ in ("cc", "punct", "mark"):
                left -= 1
            if left == 0 or end - left < 3 or end - left > len(doc) - 4:
                continue
            first, last = doc[left].idx, doc[end - 1].idx + len(doc[end - 1].text)
            out = (text[:first].rstrip(" ,;") + text[last:]).strip()
            return out if out[-1:] in ".!?" else out + "."
    return None


def claim_added(text: str, doc, context: PairContext) -> str | None:
    """A clause the sentence does not make, before its final mark (applies to a third of the sentences drawn for
    it: it fits any sentence, and would crowd out the subtler classes)."""
    if not text or text[-1] not in ".!?" or context.rng.random() > 1 / 3:
        return None
    added = ADDED_CLAIMS[int(context.rng.integers(len(ADDED_CLAIMS)))]
    return text[:-1].rstrip() + added + text[-1]


CHANGED_RULES: dict[str, Rule] = {
    "negation": negation,
    "hedge": hedge,
    "antonym": antonym,
    "number_changed": number_changed,
    "numbers_swapped": numbers_swapped,
    "unit_dropped": unit_dropped,
    "time_shifted": time_shifted,
    "agent_patient": agent_patient,
    "speaker": speaker,
    "quotation_reworded": quotation_reworded,
    "name_replaced": name_replaced,
    "name_wrong_kind": name_wrong_kind,
    "co_hyponym": co_hyponym,
    "clause_dropped": clause_dropped,
    "claim_added": claim_added,
}

#: every rule: name -> (the class of what it makes, the rule)
