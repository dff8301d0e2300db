"""The ``generalised`` verdict: an output that differs from its input only by truthful generalisations — a name
by "someone" or by what it is ("a company", "the city"), a name dropped where the text describes them ("my sister
Ching" -> "my sister"), a noun by a WordNet ancestor of it ("poodle" -> "dog"), a word by the marker "[word]"
(withheld: nothing said of it), a date's day dropped ("on 3 May" ->
"in May"), a figure rounded with a hedge ("5,370.15" -> "about 5,400"). Such an output is entailed by its input:
true, less specific. Anything else that differs is left to the rest of the meter.

Read from the two texts only (both through the normaliser), never from what a method says it did: the meter judges
``generalise`` by the same rules it judges everything else.
"""

from __future__ import annotations

import difflib
import functools
import re

from authorguard.text.generalise.kinds import KINDS

#: what a name may become (with "a", "an", "the" or "'s" around it)
PERSON_FORMS = frozenset({"someone", "somebody", "a person"})
#: what an organisation or place may become: the kinds ``generalise`` writes (:mod:`authorguard.text.generalise.kinds`)
KIND_WORDS = KINDS
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)
_TOKEN = re.compile(r"\$?\d[\d,.]*\d|\$?\d|[\w'’-]+|[^\w\s]")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _is_name(words: list[str]) -> bool:
    """A run of capitalised words, with a title, "the" or a possessive: what a name looks like."""
    core = [w for w in words if w.lower() not in ("the", "'s", "’s", ".", "mr", "mrs", "ms", "dr")]
    return bool(core) and all(w[:1].isupper() or w in ("&", "-") for w in core)


@functools.lru_cache(maxsize=50_000)
def _ancestors(word: str) -> frozenset[str]:
    """Every lemma name (lower case) above any noun sense of ``word`` (and of its WordNet base form)."""
    from authorguard.text.resources import wordnet

    wn = wordnet()
    base = wn.morphy(word.replace(" ", "_"), "n") or word.replace(" ", "_")
    names: set[str] = set()
    for sense in wn.synsets(base, "n"):
        for path in sense.hypernym_paths():
            for node in path[:-1]:
                names.update(n.lower() for n in node.lemma_names())
    return frozenset(names)


def _singular(word: str) -> set[str]:
    from authorguard.text.resources import wordnet

    lower = word.lower()
    return {lower, wordnet().morphy(lower, "n") or lower, lower.removesuffix("s"), lower.removesuffix("es")}


@functools.lru_cache(maxsize=50_000)
def _modifier(word: str) -> bool:
    """Whether leaving ``word`` out says less, never something else: a lower-case word that WordNet knows as an
    adjective or a manner adverb ("-ly"), or does not know at all (a coined or misspelt modifier: "frozzie
    fingers"), and is no function word, no negation and none that is no kind of its noun or says how sure or how
    often (:data:`authorguard.text.generalise.words.KEPT_MODIFIERS`)."""
    from authorguard.text.atoms import CARDINALS
    from authorguard.text.generalise.words import KEPT_MODIFIERS
    from authorguard.text.resources import english_stop_words, wordnet

    # a number word or a scale ("18 million people" -> "18 people") is a figure's, never a modifier
    if word in KEPT_MODIFIERS or word in CARDINALS or not word.isalpha() or word in english_stop_words():
        return False
    kinds = {s.pos() for s in wordnet().synsets(word)}
    return not kinds or bool(kinds & {"a", "s"}) or "r" in kinds and word.endswith("ly")


def _number(text: str) -> float | None:
    try:
        return float(text.lstrip("$").replace(",", ""))
    except ValueError:
        return None


_DAY = re.compile(r"^(?:on|the|of|\d{1,2}(?:st|nd|rd|th)?|,)$", re.IGNORECASE)


def _generalises(before: list[str], after: list[str], previous: str = "", following: str = "") -> str | None:
    """What kind of generalisation turns the words ``before`` into ``after`` between the unchanged words
    ``previous`` and ``following`` (None: not one)."""
    said = " ".join(after).lower()
    bare = re.sub(r"^(?:a|an|the)\s+|\s*(?:'s|’s)$", "", said)
    if before and _is_name(before):
        if not after or bare in PERSON_FORMS or said.replace(" ", "") in ("[name]", "the[name]"):
            return "a name"
        if bare in KIND_WORDS or bare.split()[-1:] and bare.split()[-1] in _ancestors(" ".join(before[-2:])):
            return "a name's kind"
    if len(after) <= 2 and before and re.fullmatch(r"(?:(?:a|an|the)\s+)?[a-z]+", said):
        word = said.split()[-1]
        noun = " ".join(w for w in before if w.lower() not in ("a", "an", "the"))
        if noun and _singular(word) & (_ancestors(noun.lower()) | _ancestors(noun.split()[-1].lower())):
            return "a broader word"
    from authorguard.text.generalise.words import withholdable

    if said.replace(" ", "") in ("[word]", "[words]") and before and all(withholdable(w) for w in before):
        return "a word withheld"  # "a suave founder" -> "a [word] founder": true of any word, says nothing of it
    if len(before) == 1 and not after and _modifier(before[0].lower()):
        return "a modifier left out"  # "a suave founder" -> "a founder", "smiled charmingly" -> "smiled"
    if before and not after and all(w.lower() in ("something", "someone") for w in before):
        return None
    month = previous.lower() in _MONTHS or following.lower() in _MONTHS
    if month and before and all(_DAY.match(w) for w in before) and after in ([], ["in"]):
        return "a date's day"  # "on 3 May" -> "in May", "May 3" -> "May"
    if after[:1] == ["about"] and len(before) == 1:
        old, new = _number(before[0]), _number(after[-1])
        if old and new and abs(new - old) / abs(old) <= 0.05:
            return "a figure rounded"
    return None


def _pieces(before: list[str], after: list[str], previous: str, following: str, depth: int = 2) -> list[str] | None:
    """``before`` -> ``after`` as one generalisation, or as consecutive ones (the diff joins neighbours: "Toronto on
    3" -> "a city in"), each named; None when no cut makes every piece one."""
    kind = _generalises(before, after, previous, following)
    if kind is not None:
        return [f"{kind}: {' '.join(before)} -> {' '.join(after) or '(dropped)'}"]
    if depth == 0 or len(before) + len(after) > 12:
        return None
    for k in range(1, len(before)):
        for m in range(len(after) + 1):
            head = _generalises(before[:k], after[:m], previous, before[k])
            if head is None:
                continue
            rest = _pieces(before[k:], after[m:], before[k - 1], following, depth - 1)
            if rest is not None:
                return [f"{head}: {' '.join(before[:k])} -> {' '.join(after[:m]) or '(dropped)'}", *rest]
    return None


def generalisation_findings(source: str, output: str) -> list[str] | None:
    """The generalisations that turn ``source`` into ``output`` (both normalised), one phrase each ("a name:
    Ching -> (dropped)"), or None when something else differs too (then the pair is not ``generalised``). An
    identical pair has none ([])."""
    a, b = _tokens(source), _tokens(output)
    found = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        before, after = a[i1:i2], b[j1:j2]
        # an article that changed with its noun ("an overdraft" -> "a document") is the same change
        if before and after and before[0].lower() in ("a", "an") and after[0].lower() in ("a", "an"):
            before, after = before[1:], after[1:]
        if not before and all(w.lower() in ("a", "an", "the") for w in after):
            continue  # "the company" for "Barrick": the article of the kind
        pieces = _pieces(before, after, a[i1 - 1] if i1 else "", a[i2] if i2 < len(a) else "")
        if pieces is None:
            return None
        found.extend(pieces)
    return found
