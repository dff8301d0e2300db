"""The casing rule of ``normalise`` (:mod:`authorguard.text.normalise`): shouted words lower-cased when they are
common English and no acronym, a lone ``i`` -> ``I``, and each sentence's first word capitalised — where a sentence
starts, and only there: not after an abbreviation ("Inc.", "p.m.", "e.g."), not after a line break inside a
paragraph."""

from __future__ import annotations

import functools
import re

#: capitalised words that are names or acronyms as often as they are shouted words: never lower-cased
ACRONYMS = frozenset(
    {
        "US",
        "USA",
        "IT",
        "WHO",
        "AIDS",
        "ACT",
        "SAT",
        "NOW",
        "CAN",
        "OR",
        "IN",
        "ME",
        "MA",
        "PA",
        "OK",
        "HI",
        "OH",
        "AM",
        "PM",
        "UN",
        "EU",
        "UK",
        "TV",
        "ID",
        "AD",
        "BC",
        "CD",
        "DVD",
        "PC",
        "CIA",
        "FBI",
        "NBA",
        "NFL",
        "GOP",
        "CEO",
        "MAC",
        "APP",
        "NET",
        "ART",
        "MIT",
        "CAT",
        "DOS",
        "WAR",
        "SUN",
        "JAVA",
        "BASIC",
        "RAM",
        "ROM",
        "GAP",
        "ION",
        "POP",
        "RAP",
        "ABC",
        "CBS",
        "ESPN",
    }
)


_CAPS_WORD = re.compile(r"\b[A-Z][A-Z']*[A-Z]\b")


# a sentence start: the text's or a paragraph's start (after a blank line), or a space after a sentence mark — never
# a line break inside a paragraph, which wrapped text puts anywhere ("to be\nregarded as"); the word all lower case
_SENTENCE_START = re.compile(r"(^|[.!?][\"')]?\s+|\n[ \t]*\n\s*)([\"'(]?)([a-z])(?=[a-z']*(?:[\s,.;:!?\")\]]|$))")


_LONE_I = re.compile(r"(?<![\w'-])i(?=(?:\s|$|[,.;:!?'\"]))")


@functools.lru_cache(maxsize=100_000)
def _common(word: str) -> bool:
    """A lower-case word that is a stop word or whose WordNet lemmas were seen at least 3 times in SemCor: common
    enough that its capitals are shouting, not a name (``gross``, ``kill`` yes; ``josh``, ``frank`` no)."""
    from authorguard.text.resources import english_stop_words, wordnet

    if word in english_stop_words():
        return True
    wn = wordnet()
    base = {word, wn.morphy(word) or word}
    return (
        sum(lemma.count() for synset in wn.synsets(word) for lemma in synset.lemmas() if lemma.name().lower() in base)
        >= 3
    )


# a full stop that ends an abbreviation, not (necessarily) a sentence: an initial or "p.m.", a title, a company's
# suffix ("Placer Dome Inc. trying to woo"), a month, a reference's "et al." / "cf." / "pp."
_ABBREVIATION_END = re.compile(
    r"(?:\b[A-Za-z]\.|\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Ms|Dr|St|No|approx|ca|Inc|Corp|Co|Ltd|Bros|Jr|Sr|Prof|Gen|"
    r"Sen|Rep|Gov|Lt|Col|Capt|Mt|Ft|Ave|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|al|cf|pp|vol|Vol|fig|Fig|"
    r"approx|dept|Dept|est)\.)[\"')]?\s+$"
)


def _capitalise_start(match: re.Match) -> str:
    before = match.string[max(0, match.start() - 12) : match.end(1)]
    if match.group(1).strip() and _ABBREVIATION_END.search(before):
        return match.group(0)  # "3 p.m. in", "e.g. this": an abbreviation, not a sentence end
    return match.group(1) + match.group(2) + match.group(3).upper()


def fix_casing(text: str) -> str:
    """Casing habits to one form: shouted words lower-cased, ``i`` -> ``I``, each sentence's first letter
    capitalised. A word in capitals is lower-cased when its lower-case form is common English (:func:`_common`) and
    it is not in :data:`ACRONYMS` — a word of two to four capitals only when the text also writes it in lower case
    (``HR``, ``PIN``, ``ICE``, ``STEM`` are acronyms far more often than shouting); a word the text also writes with
    a capital first letter only gets that form (``JOSH`` beside ``Josh``). A sentence start is capitalised only when
    the word is all lower case (``iPhone``, ``pH``, ``eBay`` stay) and the full stop before it does not end an
    abbreviation (``p.m.``, ``e.g.``). What no rule can know: a long name in capitals that is also a common word
    (``TARGET``, ``MARK``) is lower-cased."""
    lower_words = set(re.findall(r"\b[a-z]+\b", text))
    title_words = set(re.findall(r"\b[A-Z][a-z]+\b", text)) - {w.capitalize() for w in lower_words}

    def lower(match: re.Match) -> str:
        word = match.group(0)
        if word in ACRONYMS or not word.replace("'", "").isalpha():
            return word
        if word.capitalize() in title_words:
            return word.capitalize()
        small = word.lower()
        if small in lower_words:
            return small
        letters = len(word.replace("'", ""))
        return small if letters > 4 and _common(small.replace("'", "")) else word

    text = _CAPS_WORD.sub(lower, text)
    text = _LONE_I.sub("I", text)
    return _SENTENCE_START.sub(_capitalise_start, text)
