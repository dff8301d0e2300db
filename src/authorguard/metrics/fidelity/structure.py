"""Who does what, and what each number counts: the parts of a rewrite's meaning that keep every word.

A rewrite can say every word of its input and still say something else; the fidelity meter
(:mod:`authorguard.metrics.fidelity`) reads these from spaCy's dependency parse of both texts and calls each a
change, named in its reason:

- **a speaker changed**: a verb of saying (``say``, ``tell``, ``cite``, ``write`` …) given an agent the input never
  gives it ("the attorney said" -> "the mother said");
- **who acts moved**: two agents trading verbs — a verb given the input's agent of another verb, while its own
  input agent now acts another verb ("I can name them. Many call it" -> "Many can name them. I call it");
- **a number moved**: a number now counting a noun the input has but does not count with it ("100,000 of our men
  and women" -> "our men and 100,000 women");
- **a list item lost** (a loss, not a change: the text says less): one of two coordinated nouns or adjectives
  gone while the other stays ("a conversion program and a menu function" -> "a conversion menu function");
- **a list merged**: both still said, one now qualifying the other ("the care and the dignity" -> "the
  dignified care", "noise and echo" -> "noise echo").

A paraphrase moves words between clauses too, so each rule asks for the words on both sides: the moved agent or
noun must be the input's own, not a new word (a new word is the content check's business).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from authorguard.text.atoms import CARDINALS

#: number words as the digits they say (cardinals, and the ordinals and multiples a count is written with)
NUMBER_WORDS = {word: str(value) for word, value in CARDINALS.items()} | {
    "first": "1",
    "second": "2",
    "third": "3",
    "half": "0.5",
    "once": "1",
    "twice": "2",
    "dozen": "12",
}
# pronouns read as the person they name: "me" and "I" are one agent, as are "us" and "we"
PRONOUN = {
    "me": "i",
    "my": "i",
    "mine": "i",
    "myself": "i",
    "us": "we",
    "our": "we",
    "ourselves": "we",
    "him": "he",
    "his": "he",
    "himself": "he",
    "her": "she",
    "hers": "she",
    "herself": "she",
    "them": "they",
    "their": "they",
    "themselves": "they",
    "your": "you",
    "yours": "you",
    "yourself": "you",
    "its": "it",
    "itself": "it",
}


_DIGITS = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?|\d+(?:\.\d+)?")
#: verbs of saying: who says it is what a reader checks first
SPEECH_VERBS = frozenset(
    ["say", "tell", "write", "ask", "cite", "claim", "announce", "conclude", "describe", "declare", "report"]
    + ["state", "argue", "explain", "note", "add", "insist", "warn", "reply", "answer", "suggest", "quote"]
    + ["admit", "deny", "promise", "predict", "testify", "recall", "remark", "speak"]
)
_NOUNS = frozenset({"NOUN", "PROPN"})
#: personal pronouns as :func:`agent_of` reads them: who they name is the antecedent's business
_PERSONS = frozenset({"i", "we", "you", "he", "she", "it", "they", "one", "who", "that", "which", "this"})
#: what a list holds: things and their qualities ("the care and the dignity", "noise and echo", "ancient and modern")
_LISTED = frozenset({"NOUN", "PROPN", "ADJ"})
#: verbs whose subject a paraphrase moves freely ("X is Y" -> "Y is X"): their subject says little of who acts
_LIGHT_VERBS = frozenset({"be", "have", "do", "become", "seem", "get", "make", "take", "give", "go", "come"})


#: number words that are more often something else: "one" a pronoun ("one can reach"), "first" an order of
#: events, "once" a time, "second" a unit of time — a paraphrase writes them for "a", "when", "at first"
_NOT_COUNTS = frozenset({"one", "first", "once", "second"})


def numbers_of(token) -> list[str]:
    """The numbers a token says: its digit groups with their sign (``3rd`` -> 3, ``2pm`` -> 2, ``1,000`` -> 1000,
    ``-5`` -> -5) or a number word (not one of :data:`_NOT_COUNTS`)."""
    text = token.lower_.replace(",", "").replace("\u2212", "-")
    if text in _NOT_COUNTS:
        return []
    return _DIGITS.findall(text) or ([NUMBER_WORDS[text]] if text in NUMBER_WORDS else [])


def agent_of(token) -> str:
    """A subject or object token as the person or thing it names: its lemma, a pronoun as its person ("me" -> "i")."""
    lemma = token.lemma_.lower() if token.pos_ != "PRON" else token.lower_
    return PRONOUN.get(lemma, lemma)


@dataclass(frozen=True)
class Structure:
    """What :func:`structure_findings` compares: (number, the noun it counts) pairs and coordinated noun pairs,
    lemmas in lower case."""

    counted: tuple[tuple[str, str], ...] = ()
    coordinated: tuple[tuple[str, str], ...] = ()
    #: (head, modifier) pairs: one word qualifying another ("dignified care", "noise echo")
    modified: tuple[tuple[str, str], ...] = ()


def _counted_noun(token) -> str | None:
    """The noun a number counts: its head when it modifies one ("20,000 people"), the object of its "of" ("100,000
    of our men"), else the first noun within three words after it."""
    head = token.head
    if token.dep_ in ("nummod", "quantmod", "compound") and head.pos_ in _NOUNS:
        return head.lemma_.lower()
    for child in token.children:
        if child.dep_ == "prep" and child.lower_ == "of":
            for grandchild in child.children:
                if grandchild.dep_ == "pobj" and grandchild.pos_ in _NOUNS:
                    return grandchild.lemma_.lower()
    for follower in token.doc[token.i + 1 : token.i + 4]:
        if follower.pos_ in _NOUNS:
            return follower.lemma_.lower()
        if follower.is_punct:
            break
    return None


def _said(word: str, other: str, supported: Callable[[str, set[str]], bool]) -> bool:
    return word == other or supported(word, {other})


def _paired(first: str, second: str, pairs, supported: Callable[[str, set[str]], bool]) -> bool:
    """Whether ``pairs`` hold (a word saying) ``first`` with (one saying) ``second``, either way round."""
    return any(
        _said(first, x, supported)
        and _said(second, y, supported)
        or _said(first, y, supported)
        and _said(second, x, supported)
        for x, y in pairs
    )


def read_structure(doc) -> Structure:
    """The counted nouns and coordinated nouns of a parsed text."""
    counted: list[tuple[str, str]] = []
    coordinated: list[tuple[str, str]] = []
    modified: list[tuple[str, str]] = []
    for token in doc:
        if not (token.is_alpha or token.like_num or token.pos_ == "NUM"):  # a handle, a code, an initial
            continue
        if token.dep_ in ("amod", "compound", "nmod", "poss") and token.head.pos_ in _NOUNS:
            modified.append((token.head.lemma_.lower(), token.lemma_.lower()))
        if token.like_num or token.pos_ == "NUM":
            noun = _counted_noun(token)
            if noun:
                counted.extend((number, noun) for number in numbers_of(token))
        if token.dep_ == "conj" and token.pos_ in _LISTED and token.head.pos_ in _LISTED and token.head.is_alpha:
            coordinated.append((token.head.lemma_.lower(), token.lemma_.lower()))
    return Structure(tuple(counted), tuple(coordinated), tuple(modified))


def structure_findings(
    source_triples,
    output_triples,
    source_words: set[str],
    output_words: set[str],
    source: Structure,
    output: Structure,
    supported: Callable[[str, set[str]], bool],
) -> tuple[list[str], list[str]]:
    """(changes, losses): the findings of this module's docstring, each as a reason — a lost list item is a loss
    (the text says less), the others changes. ``*_triples``: (agent, verb, patient) lemmas of each side ("-" for
    none); ``*_words``: the lemmas and lower-cased words each side says; ``supported(word, words)``: whether
    ``words`` say ``word`` (the meter's synonym and derivation check)."""
    findings: list[str] = []
    losses: list[str] = []
    for agent, verb, _ in output_triples:
        theirs = {a for a, v, _ in source_triples if v == verb and a != "-"}
        if agent == "-" or not theirs or agent in theirs or supported(agent, theirs):
            continue
        if verb in SPEECH_VERBS and agent not in _PERSONS and not theirs & _PERSONS:
            # a pronoun for its antecedent ("John said" -> "he said") names the same speaker
            findings.append(f"a speaker changed: {agent} {verb} (input: {', '.join(sorted(theirs))})")
        elif (
            verb not in _LIGHT_VERBS
            and agent in {a for a, v, _ in source_triples if v != verb}
            and any(a in {x for x, v, _ in output_triples if v != verb} for a in theirs)
        ):
            # two agents traded verbs ("I can name them; many call it" -> "Many can name them; I call it"): a
            # parse that only moved with a dropped article does not trade
            findings.append(f"who acts moved: {agent} {verb} (input: {', '.join(sorted(theirs))})")
    for number, noun in output.counted:
        theirs = {n for k, n in source.counted if k == number}
        if theirs and noun not in theirs and not supported(noun, theirs) and noun in source_words:
            findings.append(f"a number moved: {number} {noun} (input: {number} {', '.join(sorted(theirs))})")
    for first, second in source.coordinated:
        kept = [w for w in (first, second) if w in output_words or supported(w, output_words)]
        if len(kept) == 1:
            lost = second if kept == [first] else first
            losses.append(f"a list item lost: {lost} (of {first} and {second})")
        elif (
            len(kept) == 2
            and _paired(first, second, output.modified, supported)
            and not (
                _paired(first, second, output.coordinated, supported)
                or _paired(first, second, source.modified, supported)
            )
        ):
            # both items said, one now qualifying the other: merged into one thing ("the care and the dignity" ->
            # "the dignified care", "noise and echo" -> "noise echo")
            findings.append(f"a list merged: {first} and {second} made one")
    return list(dict.fromkeys(findings)), list(dict.fromkeys(losses))
