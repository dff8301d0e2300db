"""How the fidelity meter reads a text: spaCy's parse (en_core_web_sm) turned into what a reader checks — content
lemmas, names and numbers, negated clauses, (agent, verb, patient) triples, questions — one :class:`Reading` per
text (:mod:`authorguard.metrics.fidelity` compares two)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity.structure import (
    PRONOUN,
    Structure,
    agent_of,
    numbers_of,
    read_structure,
)

_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
_NAME_ENTS = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW"})
_NEGATIONS = frozenset(
    {"not", "n't", "never", "no", "nothing", "nobody", "none", "neither", "nor", "nowhere", "cannot", "without"}
)
_SUBJECTS = frozenset({"nsubj", "csubj"})
_PASSIVE_SUBJECTS = frozenset({"nsubjpass", "csubjpass"})
_OBJECTS = frozenset({"dobj", "obj", "dative", "attr", "oprd"})


@dataclass
class Reading:
    """What the meter reads off one parsed text."""

    content: set[str]
    names: set[str]
    numbers: tuple[str, ...]
    negations: int
    questions: int
    triples: list[tuple[str, str, str]]
    tokens: tuple[str, ...]
    bigrams: frozenset[str]
    sentences: tuple[frozenset[str], ...] = ()
    structure: Structure = Structure()
    sentence_texts: tuple[str, ...] = ()

    @property
    def words(self) -> set[str]:
        """Every word it says: content lemmas, words as written, pronouns as their person."""
        return self.content | set(self.tokens) | {PRONOUN.get(t, t) for t in self.tokens}


#: the fidelity meters: the rules alone, the rules joined with the packaged feature judge, or with a cross-encoder
#: judge trained by ``authorguard train judge`` (:mod:`authorguard.metrics.fidelity.judge`)
METERS = ("rules", "judge", "cross-encoder")


def check_meter(meter: str) -> str:
    if meter not in METERS:
        raise InputError(f"unknown fidelity meter {meter!r} (known: {', '.join(METERS)})")
    return meter


def parser():
    from authorguard.text.resources import spacy_pipeline

    return spacy_pipeline()


#: how many of a word's WordNet senses (most frequent first) lend their hypernyms and derivations; synonyms come
#: from every sense (2 senses for both was tried: equal kappa on the tuning half, lower on the held-out one)
SENSES = 4


@functools.lru_cache(maxsize=200_000)
def related_words(word: str) -> frozenset[str]:
    """``word``, its spelling variant, its WordNet synonyms, the lemmas of the direct hypernyms of its :data:`SENSES`
    most frequent senses, their derivationally related forms and their Porter stems: what an output may say for
    ``word`` and stay supported."""
    from authorguard.text.analysis import wordnet_synonyms
    from authorguard.text.normalise.words import SPELLING
    from authorguard.text.resources import english_stop_words, wordnet
    from authorguard.text.validity import stem

    forms = {word, SPELLING.get(word, word)} | wordnet_synonyms(word, "all")
    for synset in wordnet().synsets(word)[:SENSES]:
        # one level up: "mom" is said by "mother", "discuss" by "talk about"
        for kin in [synset, *synset.hypernyms()]:
            for lemma in kin.lemmas():
                forms.update(part for part in lemma.name().lower().split("_") if part not in english_stop_words())
                forms.update(related.name().lower() for related in lemma.derivationally_related_forms())
    return frozenset(forms | {stem(f) for f in forms})


_QUESTION_END = re.compile(r"\?[!?.\s\"')]*$")


#: words that say "not" in one word: a paraphrase writes "unless Congress acts" for "if Congress does not act",
#: "unable" for "cannot" ("unusual" / "rare", "failure" / "failed" are not negations: left out)
_LEXICAL_NEGATIONS = frozenset({"unless", "unable"})


def _negates(token) -> bool:
    """Whether a token says "not": a negation word or one of :data:`_LEXICAL_NEGATIONS`; not the "or not" of
    "whether or not" (which asks, and negates nothing)."""
    word = token.lower_
    if word in _NEGATIONS or token.norm_ in _NEGATIONS:
        after_whether = (
            token.i >= 2 and token.doc[token.i - 1].lower_ == "or" and token.doc[token.i - 2].lower_ == "whether"
        )
        return not (word == "not" and after_whether)
    return word in _LEXICAL_NEGATIONS


def read_parse(doc) -> Reading:
    content: set[str] = set()
    names: set[str] = set()
    numbers: list[str] = []
    triples: list[tuple[str, str, str]] = []
    sentences: list[frozenset[str]] = []
    for entity in doc.ents:  # names: what the entity recogniser calls one (a capitalised interjection is not)
        if entity.label_ in _NAME_ENTS:
            names.update(t.lower_ for t in entity if t.is_alpha and not t.is_stop and len(t) > 1)
        elif entity.label_ in ("DATE", "TIME"):  # the named days and months of a date: "Sunday", "May"
            names.update(t.lower_ for t in entity if t.is_alpha and t.pos_ == "PROPN")
    for token in doc:
        found = (
            numbers_of(token) if token.like_num or token.pos_ == "NUM" or any(c.isdigit() for c in token.text) else []
        )
        if found:
            numbers.extend(found)
            continue
        if token.pos_ in _CONTENT_POS and token.is_alpha and not token.is_stop and len(token.text) > 1:
            content.add(token.lemma_.lower())
        if token.pos_ in ("VERB", "AUX") and token.dep_ != "aux" and token.dep_ != "auxpass":
            agents, patients = [], []
            for child in token.children:
                if child.dep_ in _SUBJECTS:
                    agents.append(agent_of(child))
                elif child.dep_ in _PASSIVE_SUBJECTS or child.dep_ in _OBJECTS:
                    patients.append(agent_of(child))
                elif child.dep_ == "agent":  # "by X" of a passive
                    agents.extend(agent_of(g) for g in child.children if g.dep_ == "pobj")
            verb = token.lemma_.lower()
            for agent in agents or ["-"]:
                for patient in patients or ["-"]:
                    if agent != "-" or patient != "-":
                        triples.append((agent, verb, patient))
    # words, not the parse: the parse of the same words moves with casing and punctuation ("n't" is normed "not")
    negations = sum(1 for t in doc if _negates(t))
    # a question ends in a run of marks that holds a "?" ("really?!" is one, as its normalised "really?" is)
    questions = sum(1 for sentence in doc.sents if _QUESTION_END.search(sentence.text))
    tokens = tuple(t.lower_ for t in doc if t.is_alpha)
    bigrams = frozenset(a + b for a, b in zip(tokens, tokens[1:]))
    for sentence in doc.sents:
        sentences.append(
            frozenset(
                t.lemma_.lower()
                for t in sentence
                if t.pos_ in _CONTENT_POS and t.is_alpha and not t.is_stop and len(t.text) > 1
            )
        )
    return Reading(
        content,
        names,
        tuple(numbers),
        negations,
        questions,
        triples,
        tokens,
        bigrams,
        tuple(sentences),
        read_structure(doc),
        tuple(sentence.text for sentence in doc.sents),
    )
