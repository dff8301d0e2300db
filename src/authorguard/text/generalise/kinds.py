"""What a thing is, in words a reader reads as true of it: the WordNet side of ``generalise``
(:mod:`authorguard.text.generalise`).

- :func:`broader_word`: the nearest broader word of a concrete noun, in every sense a reader may mean, written as a
  common word that a reader reads in that sense ("poodle" -> "dog", "vet" -> "doctor"); None for an ambiguous or
  abstract noun ("founder", "absence"), whose WordNet ancestors read as other things;
- :func:`organisation_kind`, :func:`place_kind`: what a named organisation or place is ("company", "city");
- :func:`plural`, :func:`indefinite`: the English forms a replacement needs.

Sense frequencies are SemCor's counts as WordNet ships them; commonness is the shipped table
(:mod:`authorguard.text.vocabulary`).
"""

from __future__ import annotations

import functools
import re

from authorguard.text.vocabulary import is_common, word_ranks


def _wordlist(words: str) -> frozenset[str]:
    """A set of words written as one space-separated string (long lists stay readable)."""
    return frozenset(words.split())


#: broader forms too bland to say anything ("a thing"): a word whose only common hypernyms are these stays
_BLAND = _wordlist(
    "entity physical_entity abstraction object whole thing matter unit attribute relation group psychological_feature "
    "event act state measure part causal_agent artifact instrumentality communication content cognition location "
    "region substance being organism living_thing person people individual someone somebody human"
)
#: an organisation's kind read from its name's last word
_ORGANISATION_KINDS = {
    **dict.fromkeys(
        _wordlist("corp corp. corporation inc inc. ltd ltd. co co. company plc llc holdings industries"),
        "company",
    ),
    # "Support Group" is no company: "a group" is true of a firm and a circle of people alike (the fourth set)
    **dict.fromkeys(_wordlist("group"), "group"),
    **dict.fromkeys(_wordlist("foundation trust charity"), "foundation"),
    **dict.fromkeys(_wordlist("monthly weekly daily quarterly review"), "publication"),
    **dict.fromkeys(_wordlist("restaurant cafe café grill diner bistro pizzeria bakery"), "restaurant"),
    **dict.fromkeys(_wordlist("hotel inn motel"), "hotel"),
    **dict.fromkeys(_wordlist("band orchestra choir"), "band"),
    **dict.fromkeys(_wordlist("club"), "club"),
    **dict.fromkeys(_wordlist("bank"), "bank"),
    **dict.fromkeys(_wordlist("university"), "university"),
    **dict.fromkeys(_wordlist("college"), "college"),
    **dict.fromkeys(_wordlist("school academy"), "school"),
    **dict.fromkeys(_wordlist("institute"), "institute"),
    **dict.fromkeys(_wordlist("party"), "party"),
    **dict.fromkeys(_wordlist("church"), "church"),
    **dict.fromkeys(_wordlist("hospital clinic"), "hospital"),
    **dict.fromkeys(_wordlist("times post news journal herald tribune gazette magazine"), "newspaper"),
    **dict.fromkeys(_wordlist("association society union council committee league federation"), "association"),
    **dict.fromkeys(_wordlist("agency department ministry office bureau"), "agency"),
}


def _wordnet():
    from authorguard.text.resources import wordnet

    return wordnet()


@functools.lru_cache(maxsize=100_000)
def senses(lemma: str) -> tuple:
    """The noun senses of ``lemma`` a reader may mean: the one SemCor counts at least three times as often as all
    the others together, else every sense it counts (every sense when it counts none)."""
    synsets = _wordnet().synsets(lemma.replace(" ", "_"), pos="n")
    key = lemma.replace(" ", "_").lower()
    counts = [sum(lemma_.count() for lemma_ in s.lemmas() if lemma_.name().lower() == key) for s in synsets]
    if not synsets:
        return ()
    best = max(range(len(synsets)), key=lambda i: counts[i])
    if counts[best] > 0 and counts[best] >= 3 * (sum(counts) - counts[best]):
        return (synsets[best],)
    counted = tuple(s for s, n in zip(synsets, counts) if n > 0)
    return counted or tuple(synsets)


#: how far above a word its broader form may stand ("hamster" -> "animal" is 6): farther up, WordNet's ancestors
#: stop reading as what the word is ("disappointment" -> "desire")
MAX_STEPS = 6


#: the kinds of noun whose WordNet ancestors read as what the thing is (a poodle is a dog, zirconium a metal, a vet
#: a doctor); abstract nouns are left alone — their ancestors read as other things ("absence" -> "want", "poll" ->
#: "thought", "angel" -> "belief" in the blog posts this was developed on)
CONCRETE_KINDS = _wordlist(
    "noun.animal noun.artifact noun.food noun.plant noun.substance noun.body noun.location noun.person noun.object"
)
#: an activity is generalised only to one of these ("volleyball" -> "game", "ballet" -> "dance")
_ACTIVITIES = _wordlist("game sport dance singing exercise")


def _names_of(synset, lemma: str, top: int) -> list[str]:
    """The one-word names of ``synset`` a reader reads in that sense: its first lemma, or another whose only sense
    a reader may mean is this one ("doc" for a doctor; never "wear" for clothing, "papers" for a document)."""
    names = []
    for number, name in enumerate(n.lower() for n in synset.lemma_names()):
        if "_" in name or name in _BLAND or name == lemma or not is_common(name, top):
            continue
        readings = senses(name)
        # the first name, if a reader reads it so first ("way" for a road reads as a manner: not that)
        if readings == (synset,) or number == 0 and readings and _reading(name) == synset:
            names.append(name)
    return names


@functools.lru_cache(maxsize=100_000)
def _reading(name: str):
    """The sense SemCor counts most often for noun ``name`` (the first listed on a tie)."""
    synsets = _wordnet().synsets(name, pos="n")
    counts = [sum(lemma.count() for lemma in s.lemmas() if lemma.name().lower() == name) for s in synsets]
    return synsets[max(range(len(synsets)), key=lambda i: (counts[i], -i))] if synsets else None


def _broader_forms(synset, top: int, lemma: str) -> dict[str, int]:
    """Each common, not bland one-word name (:func:`_names_of`) of ``synset``'s hypernyms of its own kind
    (instance hypernyms included), with how many steps up it first stands."""
    found: dict[str, int] = {}
    frontier, seen = [synset], {synset}
    for depth in range(1, MAX_STEPS + 1):
        above = []
        for node in frontier:
            for parent in node.hypernyms() + node.instance_hypernyms():
                if parent not in seen:
                    seen.add(parent)
                    above.append(parent)
        for parent in above:
            if parent.name().split(".")[0] in _BLAND or parent.lexname() not in CONCRETE_KINDS | {synset.lexname()}:
                continue  # "causal_agent, cause"; "spiritual being" -> "belief" (an abstract kind of thing)
            for name in _names_of(parent, lemma, top):
                found.setdefault(name, depth)
        if not above:
            break
        frontier = above
    return found


@functools.lru_cache(maxsize=50_000)
def broader_word(lemma: str, top: int) -> str | None:
    """The nearest word broader than noun ``lemma`` in every sense a reader may mean (:func:`senses`): a WordNet
    hypernym (a named thing's kind included) written as one word among the ``top`` most widely used and not bland;
    None when there is none — an ambiguous word ("founder": a person or a horse's disease) stays."""
    meant = senses(lemma)
    if not meant or any(s.lexname() not in CONCRETE_KINDS | {"noun.act"} for s in meant):
        return None
    forms = [_broader_forms(s, top, lemma.lower()) for s in meant]
    shared = set(forms[0]).intersection(*forms[1:])
    if any(s.lexname() == "noun.act" for s in meant):
        shared &= _ACTIVITIES
    if not shared:
        return None
    ranks = word_ranks()
    return min(shared, key=lambda name: (max(f[name] for f in forms), ranks.get(name, 10**9), name))


def organisation_kind(name: str) -> str:
    """What an organisation is, from its name's last word ("Barrick Gold Corp." -> "company") or WordNet when it
    knows the name as a named thing ("FBI" -> an agency), else "organisation" — a common word the recogniser took
    for a name ("Flames") gets no kind of its own."""
    words = name.lower().split()
    if words and words[-1] in _ORGANISATION_KINDS:
        return _ORGANISATION_KINDS[words[-1]]
    meant = senses(name)
    if meant and all(s.instance_hypernyms() and s.lexname() == "noun.group" for s in meant):
        forms = [_broader_forms(s, 5000, name.lower()) for s in meant]
        shared = set(forms[0]).intersection(*forms[1:])
        if shared:
            return min(shared, key=lambda kind: (max(f[kind] for f in forms), kind))
    return "organisation"


#: the kinds of place a reader expects, nearest first ("Toronto": a provincial capital, said "a city")
_PLACE_KINDS = ("city", "town", "village", "country", "state", "province", "island", "river", "lake", "mountain")


#: every kind word an organisation or a place may be given (the meter's ``generalised`` reading accepts these)
KINDS = frozenset({*_ORGANISATION_KINDS.values(), *_PLACE_KINDS, "organisation", "organization", "place"})


def _kinds_above(synset) -> dict[str, int]:
    """Every lemma name of ``synset``'s ancestors (instance hypernyms included) with its distance."""
    found: dict[str, int] = {}
    frontier, seen = [synset], {synset}
    for depth in range(1, 12):
        above = [p for node in frontier for p in node.hypernyms() + node.instance_hypernyms() if p not in seen]
        seen.update(above)
        for parent in above:
            for lemma in parent.lemma_names():
                found.setdefault(lemma.lower(), depth)
        if not above:
            break
        frontier = above
    return found


def place_kind(name: str) -> str:
    """What a place is, from WordNet ("Toronto" -> "city", "Canada" -> "country", "Texas" -> "state"), else
    "place"."""
    meant = senses(name)
    if not meant:
        return "place"
    forms = [_kinds_above(s) for s in meant]
    shared = set(forms[0]).intersection(*forms[1:]) & set(_PLACE_KINDS)
    return min(shared, key=lambda kind: (max(f[kind] for f in forms), _PLACE_KINDS.index(kind))) if shared else "place"


# --- English forms ---------------------------------------------------------------------------------------------


def plural(noun: str) -> str:
    """A noun's plural: WordNet's irregular forms, else the regular endings."""
    irregular = _irregular_plurals().get(noun)
    if irregular:
        return irregular
    if re.search(r"(?:s|x|z|ch|sh)$", noun):
        return noun + "es"
    if re.search(r"[^aeiou]y$", noun):
        return noun[:-1] + "ies"
    return noun + "s"


@functools.cache
def _irregular_plurals() -> dict[str, str]:
    exceptions = _wordnet()._exception_map["n"]  # plural -> [singular]
    return {singular[0]: form for form, singular in exceptions.items() if singular and singular[0] != form}


def indefinite(word: str) -> str:
    """ "a" or "an" before ``word`` (by its first letter; "hour", "honest", "uni-", "euro", "one" read by sound)."""
    lower = word.lower()
    if re.match(r"(?:hour|honest|honou?r|heir)", lower):
        return "an"
    if re.match(r"(?:uni|use|usu|euro|one|once|u[bcfhjkqrst][aeiou])", lower):
        return "a"
    return "an" if lower[:1] in "aeiou" else "a"


# --- the rewriting ---------------------------------------------------------------------------------------------
