"""Truthful generalisation: specifics replaced by less specific forms the text entails, never by false ones.

What identifies a writer beyond style is what they write about — names, places, hobbies, rare words (issue 66
measures it). Each rule here replaces a specific by a form that is true of it:

- a person's name -> the description the text gives just before it ("my sister Ching" -> "my sister") or
  "someone" when a title, a first name (the shipped list) or an earlier mention confirms a person (never another
  name), else the marker ``[name]``; a "name" writers mostly write in lower case is a word and stays;
- an organisation -> its kind, read from its name ("Barrick Gold Corp." -> "a company", "Temple University" ->
  "a university") or WordNet ("FBI" -> "an agency"), else "an organisation"; a place -> its kind from WordNet
  ("Toronto" -> "a city", "Canada" -> "a country"), else "a place"; the first mention takes "a", later mentions of
  the same one "the" — the same entity gets the same form throughout a record;
- a rare noun (outside the ``top`` words the most authors use: :mod:`authorguard.text.vocabulary`) -> its nearest
  WordNet hypernym (most frequent sense) that is common ("zirconium" -> "metal", "golden retriever" -> "dog"),
  plural kept; a word WordNet does not know, or whose only broader forms are bland ("entity", "thing"), stays —
  unless it is a target (the writer's evidence) or the level withholds rare words: then it becomes ``[word]``
  (true of anything, nothing said of it; never a negation or a figure);
- a date's day dropped at the levels that say so ("on 3 May" -> "in May"); a figure of three or more significant
  digits rounded with a hedge only when asked ("5,370.15 points" -> "about 5,400 points");
- never: a quotation's words (a name in a quotation stays), a negation, a number without its hedge, who did what
  (only a span's words change; the sentence around it is the text's own).

Everything runs on ``normalise``'s text (:mod:`authorguard.text.normalise`); the entities and parts of speech come
from spaCy's en_core_web_sm (tagger and recogniser only: no parser on the path). Deterministic: no randomness.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from authorguard.exceptions import InputError
from authorguard.text.atoms import quotation_spans
from authorguard.text.kinds import (
    broader_word,
    indefinite,
    organisation_kind,
    place_kind,
    plural,
)
from authorguard.text.resources import wordnet
from authorguard.text.vocabulary import first_names, is_common, lowercase_shares, word_ranks


def _wordlist(words: str) -> frozenset[str]:
    """A set of words written as one space-separated string (long lists stay readable)."""
    return frozenset(words.split())


@dataclass(frozen=True)
class Level:
    """A named strength of the dial: what is generalised. ``rare_top``: nouns outside the ``rare_top`` words used
    by the most authors get their hypernym (None: no word is); ``dates``: a date's day dropped; ``modifiers``: rare
    adjectives and manner adverbs left out; ``withheld``: rare words replaced by a marker that says a word (or a
    name) was there and nothing of what it was — the top of every generalisation hierarchy, true of anything — and
    no noun given a broader word (the third held-out set's readers found the broader words' wrong senses the
    withheld levels' changed outputs)."""

    name: str
    rare_top: int | None
    dates: bool
    description: str
    modifiers: bool = False
    withheld: bool = False


#: the dial, weakest first (docs/results/generalise.md measures each: privacy, words kept, task utility)
LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("names", None, False, "names of people, organisations and places -> what they are"),
        Level("rare-5000", 5000, False, "names, and nouns outside the 5,000 most widely used -> a broader word"),
        Level("rare-2000", 2000, False, "names, and nouns outside the 2,000 most widely used -> a broader word"),
        Level(
            "modifiers-2000",
            2000,
            False,
            "rare-2000, and adjectives and manner adverbs outside the 2,000 most widely used left out",
            True,
        ),
        Level(
            "modifiers-1000",
            1000,
            True,
            "names, nouns, adjectives and manner adverbs outside the 1,000 most widely used, a date's day",
            True,
        ),
        Level(
            "modifiers-500",
            500,
            True,
            "names, nouns, adjectives and manner adverbs outside the 500 most widely used, a date's day",
            True,
        ),
        Level(
            "withheld-5000",
            5000,
            False,
            "names, and up to a third of each sentence's words outside the 5,000 most widely used withheld: [word]",
            withheld=True,
        ),
        Level(
            "withheld-2000",
            2000,
            False,
            "names, and up to a third of each sentence's words outside the 2,000 most widely used withheld: [word]",
            withheld=True,
        ),
    )
}


@dataclass(frozen=True)
class Change:
    """One replacement in the normalised text: [``start``, ``end``) character offsets of ``original``, what it
    became, and its ``kind`` (person, organisation, place, word, date, number)."""

    start: int
    end: int
    original: str
    replacement: str
    kind: str


@dataclass
class Generalised:
    """A record's result: the text released and each change made to ``normalise``'s text of it (``source``)."""

    text: str
    source: str
    changes: list[Change] = field(default_factory=list)


def check_level(level: str) -> Level:
    if level not in LEVELS:
        raise InputError(f"generalise: unknown level {level!r} (levels: {', '.join(LEVELS)})")
    return LEVELS[level]


_TITLES = _wordlist("mr mr. mrs mrs. ms ms. dr dr. prof prof. sir dame lord lady")
_ENTITY_KINDS = {"PERSON": "person", "ORG": "organisation", "GPE": "place", "LOC": "place", "FAC": "place"}
_MONTHS = sorted(
    _wordlist(
        "january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec"
    )
)
_DAY_MONTH = re.compile(
    rf"^(?:(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?({'|'.join(_MONTHS)})\.?"
    rf"|({'|'.join(_MONTHS)})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?)(?:,?\s+(\d{{4}}))?$",
    re.IGNORECASE,
)


@functools.cache
def _pipeline():
    from authorguard.text.resources import spacy_pipeline

    # the tagger and the recogniser (and what the lemmatiser needs); no parser: speed, and nothing here reads it
    return spacy_pipeline(("parser",))


def _inside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _sentence_start(text: str, position: int) -> bool:
    before = text[:position].rstrip(" \t\"'(")
    if before.endswith(".") and re.search(r"(?:^|\s)(?:[A-Z]|[A-Za-z]{1,4})\.$", before):
        last = before.rsplit(None, 1)[-1].lower()
        if last in _TITLES or len(last) == 2 and last != "i.":  # "Mr. Twiddle", "J. Smith": no sentence end
            return False
    return not before or before[-1] in ".!?\n"


class _Record:
    """The changes of one record, with what makes them consistent: the same entity, the same form."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.changes: list[Change] = []
        self.taken: list[tuple[int, int]] = []
        self.quotations = quotation_spans(text)
        self.people: list[set[str]] = []
        self.named: dict[str, str] = {}  # an organisation's or place's name -> its kind (mentioned before)

    def free(self, start: int, end: int) -> bool:
        return not _inside(self.quotations, start, end) and not _inside(self.taken, start, end)

    def add(self, start: int, end: int, replacement: str, kind: str) -> None:
        if replacement and _sentence_start(self.text, start):
            replacement = replacement[0].upper() + replacement[1:]
        self.changes.append(Change(start, end, self.text[start:end], replacement, kind))
        self.taken.append((start, end))

    def is_person(self, name: str) -> bool:
        words = {w.lower() for w in name.split()}
        return any(words <= person for person in self.people)

    def known_name(self, name: str) -> bool:
        return self.earlier(name) is not None

    def earlier(self, name: str) -> str | None:
        """The organisation or place met before that ``name`` is a shorter mention of ("Barrick" after "Barrick
        Gold Corp."), never a longer name that contains it ("Texas Monthly" after "Texas" is another thing)."""
        words = set(name.lower().split())
        return next((k for k in self.named if words <= set(k.split())), None)

    def same_person(self, name: str) -> bool:
        words = {w.lower() for w in name.split()}
        known = any(words <= person or person <= words for person in self.people)
        if not known:
            self.people.append(words)
        return known


def _entity_span(doc, ent) -> tuple[int, bool, str]:
    """(start character of what the replacement covers, whether "the" comes with it, the title or "" before it)."""
    start = ent.start
    title = ""
    if start > 0 and doc[start - 1].lower_ in _TITLES:
        title = doc[start - 1].text
        start -= 1
    article = start > 0 and doc[start - 1].lower_ == "the"
    if article:
        start -= 1
    return doc[start].idx, article, title


def _person(record: _Record, doc, ent) -> None:
    start_char, article, title = _entity_span(doc, ent)
    # a person confirmed: a title, a first name, or met before as one
    confirmed = bool(title) or record.is_person(ent.text) or any(is_first_name(t.text) for t in ent)
    if _organisation_word(ent) and not title:
        if any(is_first_name(t.text) for t in ent):  # "Alex Band": a person or a band — only marked
            record.add(ent.start_char, ent.end_char, UNKNOWN_NAME, "person")
        else:  # "Susan G. Komen Foundation", "Support Group"
            _named(record, doc, ent, confirmed_organisation)
        return
    if not confirmed and (record.known_name(ent.text) or _not_a_person(ent)):
        _named(record, doc, ent, confirmed_organisation)  # an organisation or place met before; "Iris", "BBQ"
        return
    previous = doc[ent.start - 1] if ent.start > 0 else None
    before = doc[ent.start - 2] if ent.start > 1 else None
    if previous is not None and previous.tag_ == "NN" and before is not None and before.tag_ in ("PRP$", "POS"):
        # "my sister Ching" -> "my sister": the text's own description of them
        record.same_person(ent.text)
        record.add(previous.idx + len(previous.text), ent.end_char, "", "person")
        return
    if confirmed:
        record.same_person(ent.text)
        record.add(ent.start_char if article else start_char, ent.end_char, "someone", "person")
        return
    # the recogniser's PERSON label alone called places, pets, products and cries "someone" on the second
    # held-out set: unconfirmed, the name is only marked; ordinary words ("Whole Brain") are no name at all
    if not _ordinary_words(ent):
        record.add(ent.start_char, ent.end_char, UNKNOWN_NAME, "person")


def _organisation_word(ent) -> bool:
    """Whether a "person" ends in a word that names an organisation's kind ("Susan G. Komen Foundation", "Texas
    Monthly", "Support Group"): a first name inside it confirms no person (the fourth set's readers)."""
    return organisation_kind(ent.text) != "organisation" and ent[-1].text not in first_names()


def _ordinary_words(ent) -> bool:
    """Whether every word of ``ent`` is one writers mostly write in lower case inside a sentence (a share of at least
    :data:`WORD_SHARE`: "Whole Brain Dominant", "Dim Sum", "Eww") and none a first name: an unconfirmed "name" made
    of them is left as written (a marker there loses words, hides little)."""
    words = [t for t in ent if t.is_alpha]
    return bool(words) and all(_mostly_lower(t.text) and not is_first_name(t.text) for t in words)


#: a word written in lower case at least this often inside a sentence is a word, not a name (names: under 0.1;
#: "Mark", "Bill" 0.4; "Eww", "neat", "whole" over 0.9 — :func:`authorguard.text.vocabulary.lowercase_shares`)
WORD_SHARE = 0.5


def _mostly_lower(word: str) -> bool:
    return lowercase_shares().get(word.lower(), 0.0) >= WORD_SHARE


def is_first_name(word: str) -> bool:
    """A first name of the shipped list that writers do not mostly write in lower case ("Strawberry", "Rose": no)."""
    return word in first_names() and not _mostly_lower(word)


#: what a name becomes when its kind is not confirmed: the recogniser's label alone called people places and
#: towns organisations on the first held-out set; a marked name is never false
UNKNOWN_NAME = "[name]"


def _with_tail(doc, ent):
    """``ent`` with the capitalised words the recogniser cut from it ("Texas" + "Monthly", a magazine): a name
    that goes on is another thing than its first words; its kind is read from the whole."""
    from spacy.tokens import Span

    end = ent.end
    while (
        end < len(doc)
        and doc[end].is_alpha
        and doc[end].text[:1].isupper()
        and doc[end].tag_ in ("NNP", "NNPS")
        and doc[end].lower_ != "i"
        and doc[end].ent_type_ not in _ENTITY_KINDS
        and not _sentence_start(doc.text, doc[end].idx)
    ):
        end += 1
    return ent if end == ent.end else Span(doc, ent.start, end, label="ORG")


def _named(record: _Record, doc, ent, kind_of) -> None:
    longer = _with_tail(doc, ent)
    if longer is not ent:
        ent, kind_of = longer, confirmed_organisation
    if record.is_person(ent.text):  # "Munk" after "Peter Munk", whatever the recogniser says this time
        start_char, article, _ = _entity_span(doc, ent)
        record.add(ent.start_char if article else start_char, ent.end_char, "someone", "person")
        return
    start_char, article, _ = _entity_span(doc, ent)
    key = ent.text.lower()
    earlier = record.earlier(ent.text)
    own = kind_of(ent.text)
    if earlier is not None and own not in (UNKNOWN_NAME, record.named[earlier]):
        earlier = None  # "Texas" after "Texas Monthly": a state confirmed, no shorter mention of the magazine
    before = doc[ent.start - 1] if ent.start > 0 else None
    owned = before is not None and (before.tag_ in ("PRP$", "POS") or before.lower_ in _DETERMINERS)
    if earlier is not None:
        kind = record.named[earlier]
    else:
        kind = own
        if kind == UNKNOWN_NAME and _ordinary_words(ent):
            return  # "the Golden Gate", "Whole Foods": unconfirmed and made of ordinary words — left as written
        record.named[key] = kind
    if kind == UNKNOWN_NAME:
        form, start_char = UNKNOWN_NAME, ent.start_char  # "the [name]": the text's own article stays
    elif owned:
        form = kind  # "our Barrick" -> "our company", never "our a company"
    else:
        form = f"the {kind}" if earlier is not None else f"{indefinite(kind)} {kind}"
    following = doc[ent.end] if ent.end < len(doc) else None
    if following is not None and following.tag_ in ("NN", "NNS") and not following.ent_type_:
        # a name used as a modifier ("the Busang mine", "the Toronto office"): dropped — "the mine" is true of it;
        # "the office in a city" would move words
        record.add(ent.start_char, ent.end_char + 1, "", _ENTITY_KINDS.get(ent.label_, "organisation"))
        return
    record.add(start_char, ent.end_char, form, _ENTITY_KINDS.get(ent.label_, "organisation"))


_DETERMINERS = _wordlist("this that these those every each any some no another either neither")


def confirmed_organisation(name: str) -> str:
    """An organisation's kind when its name or WordNet confirms it, else :data:`UNKNOWN_NAME`."""
    kind = organisation_kind(name)
    return UNKNOWN_NAME if kind == "organisation" else kind


def confirmed_place(name: str) -> str:
    """A place's kind when WordNet confirms it ("Toronto" -> "city"), else :data:`UNKNOWN_NAME`."""
    kind = place_kind(name)
    return UNKNOWN_NAME if kind == "place" else kind


def _not_a_person(ent) -> bool:
    """A "person" the recogniser found that WordNet knows as a thing and never as a person ("Iris", "BBQ")."""
    from authorguard.text.kinds import senses

    meant = senses(ent.text.replace(" ", "_").lower()) or senses(ent[-1].lower_)
    return bool(meant) and all(s.lexname() != "noun.person" for s in meant)


#: a laugh or a cry the recogniser took for a name ("Heheh", "Hahah", "Yeh", "Shuddup", "Hmm", "Ugh", "Bwahaha")
_CRY = re.compile(
    r"(?:bw)?(?:a?h+[aeiou]+)+h*|(?:[aeiou]h+)+|ye+[ahp]*|yup+|nah+|sh+ud+(?:d?up)?|ug+h+|ar+g+h*|h+m+|m+h*m+|"
    r"o+h+|a+w+|e+h+|w+o+[ow]*t*|y+a+y+|w+h+e+|gr+|z+|bl+a+h+|doh+|d'?oh"
)


def _trimmed(ent):
    """``ent`` cut before a dash, a comma or a pronoun or determiner inside it: the recogniser runs a name into the
    next words ("Ben - Your post" -> "Ben"); its first word always stays."""
    from spacy.tokens import Span

    for k, token in enumerate(ent):
        if k and (token.text in ("-", "\u2013", "\u2014", ",", ":", ";") or token.tag_ in ("PRP", "PRP$", "DT")):
            return Span(ent.doc, ent.start, ent.start + k, label=ent.label_)
    return ent


def _looks_named(ent) -> bool:
    """Whether a recognised entity can be a name: every word of it capitalised or a digit, and a single word that
    is a common lower-case word only capitalised by its place ("Crap!", "Argh") or an interjection is none."""
    if ent.label_ not in ("PERSON", "ORG", "GPE", "LOC", "FAC"):
        return True
    words = [t for t in ent if t.is_alpha]
    if not words or not all(t.text[:1].isupper() for t in words) or any(c.isdigit() for c in ent.text):
        return False  # a number in a "name" ("James 1:27", "Papercup 8"): a reference or a title — and numbers stay
    if len(words) == 1 and is_figure_word(words[0].text):
        return False  # "XIX", "Noon": a figure or a time, never a name
    following = ent.doc[ent.end] if ent.end < len(ent.doc) else None
    if (
        re.search(r"(\w)\1\1", ent.text.lower())
        or following is not None
        and following.text.startswith("!")
        or len(words) == 1
        and _CRY.fullmatch(words[0].lower_)
    ):
        return False  # "Woohoo", "Aaaargh", "Geez!", "Heheh", "Yeh": a cry, not a name
    if len(words) == 1:
        token = words[0]
        if token.pos_ == "INTJ" or token.tag_ == "UH":
            return False
        first = token.i == token.sent.start if token.doc.has_annotation("SENT_START") else token.i == 0
        if (first or _sentence_start(token.doc.text, token.idx)) and _mostly_lower(token.text):
            return False  # a word capitalised by its place ("Crap", "Neat"), not a name
    return True


def _mentions(record: _Record, doc) -> None:
    """Later mentions the recogniser missed of a person or organisation it found: "Munk said" after "Peter Munk",
    "Barrick" after "Barrick Gold Corp." — the same one, the same form."""
    firsts = {key.split()[0]: kind for key, kind in record.named.items() if key.split()}
    for token in doc:
        if token.pos_ != "PROPN" or token.ent_type_ or not record.free(token.idx, token.idx + len(token.text)):
            continue
        article = token.i > 0 and doc[token.i - 1].lower_ == "the"
        start = doc[token.i - 1].idx if article else token.idx
        if any(token.lower_ in person for person in record.people):
            record.add(token.idx, token.idx + len(token.text), "someone", "person")
        elif token.lower_ in firsts and firsts[token.lower_] == UNKNOWN_NAME:
            record.add(token.idx, token.idx + len(token.text), UNKNOWN_NAME, "organisation")  # no article added
        elif token.lower_ in firsts:
            record.add(start, token.idx + len(token.text), f"the {firsts[token.lower_]}", "organisation")


def _date(record: _Record, doc, ent) -> None:
    match = _DAY_MONTH.match(ent.text.strip())
    if not match:
        return
    month = match.group(1) or match.group(2)
    month = month[0].upper() + month[1:].lower()
    form = f"{month} {match.group(3)}" if match.group(3) else month
    start = ent.start_char
    if ent.start > 0 and doc[ent.start - 1].lower_ == "on":
        start = doc[ent.start - 1].idx
        form = f"in {form}"
    record.add(start, ent.end_char, form, "date")


_FIGURE = re.compile(r"^(?P<currency>[$\u00a3\u20ac])?(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d{3,})$")
_HEDGED = _wordlist("about around approximately nearly almost roughly some over under than least most")


def _round(number: float) -> str:
    """``number`` to two significant digits, written as people write it (thousands separated)."""
    if number == 0:
        return "0"
    from math import floor, log10

    digits = 1 - int(floor(log10(abs(number))))
    rounded = round(number, digits)
    if digits > 0:
        return f"{rounded:,.{digits}f}".rstrip("0").rstrip(".")
    return f"{int(rounded):,}"


def _number(record: _Record, doc, ent) -> None:
    if ent.start > 0 and doc[ent.start - 1].lower_ in _HEDGED:
        return  # "more than 5,370": a hedge on a bound is not entailed
    for token in ent:
        match = _FIGURE.match(token.text)
        if not match or (token.text.isdigit() and 1000 <= int(token.text) <= 2100):
            continue  # a year
        if token.i > 0 and doc[token.i - 1].lower_ in _HEDGED:
            continue  # "more than 5,370" inside the entity
        value = float(match.group("number").replace(",", ""))
        shown = _round(value)
        if shown.replace(",", "") == match.group("number").replace(",", ""):
            continue  # already round
        start, currency = token.idx, match.group("currency") or ""
        previous = doc[token.i - 1] if token.i > 0 else None
        if not currency and previous is not None and previous.text in ("$", "\u00a3", "\u20ac"):
            start, currency = previous.idx, previous.text  # "$ 5,370.15" -> "about $5,400"
        record.add(start, token.idx + len(token.text), f"about {currency}{shown}", "number")


def _words(record: _Record, doc, top: int | None, targets: frozenset) -> None:
    """Rare nouns (outside ``top``) and ``targets`` to their broader word, when WordNet has one that reads right."""
    for token in doc:
        lemma = token.lemma_.lower()
        if token.pos_ != "NOUN" or token.ent_type_ or not token.is_alpha or token.is_stop:
            continue
        wanted = lemma in targets or token.lower_ in targets
        if not wanted and (top is None or is_common(lemma, top)):
            continue
        start, words = token.idx, lemma
        # a compound WordNet knows whole ("golden retriever"): the modifier goes with it
        previous = doc[token.i - 1] if token.i > 0 else None
        if previous is not None and previous.pos_ in ("ADJ", "NOUN") and not previous.ent_type_:
            compound = f"{previous.lower_} {lemma}"
            if wordnet().synsets(compound.replace(" ", "_"), pos="n"):
                start, words = previous.idx, compound
        broader = broader_word(words, BROADER_TOP)
        end = token.idx + len(token.text)
        if broader is None or not record.free(start, end) or not _more_common(broader, lemma):
            continue
        form = plural(broader) if token.tag_ == "NNS" else broader
        if form != broader and form not in word_ranks():
            continue  # a plural nobody writes ("equipments"): a mass noun, or a sense the text does not mean
        record.add(start, end, form, "word")


#: words never withheld whatever their commonness: a negation (a withheld one would say the opposite)
_NEGATIONS = _wordlist("not no never nothing nobody none nor neither cannot nowhere without")
#: the share of a sentence's content words a withheld level may withhold (the rarest first)
WITHHELD_SHARE = 1 / 3
_CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "INTJ", "X"})


def _sentences(doc) -> list[list]:
    """``doc``'s tokens cut after each full stop, question or exclamation mark and line break (no parser runs)."""
    out: list[list] = [[]]
    for token in doc:
        out[-1].append(token)
        if token.text in (".", "!", "?") or "\n" in token.text or "\n" in token.whitespace_:
            out.append([])
    return [sentence for sentence in out if sentence]


#: a number word, an ordinal or a Roman numeral: a figure, never a word to withhold ("fifteen hijackers",
#: "the Eighth", "XXVI"; the third held-out set's readers called each withheld one changed)
_FIGURE_WORD = re.compile(
    r"(?:\w+-)?(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|trillion|first|second|third|fourth|fifth|"
    r"sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|\w+ieth|hundredth|thousandth|millionth)s?|"
    r"[ivxlcdm]+|noon|midnight",
    re.IGNORECASE,
)


def withholdable(word: str) -> bool:
    """Whether a marker may stand for ``word``: a word, never a figure, a negation or a modifier of how sure or how
    often (a withheld "never" leaves the sentence saying the opposite may hold). The meter reads markers by it."""
    lower = word.lower()
    return word.isalpha() and lower not in _NEGATIONS and lower not in KEPT_MODIFIERS and not is_figure_word(word)


def is_figure_word(word: str) -> bool:
    """Whether ``word`` says a number: "fifteen", "twenty-nine", "eighth", "XXVI" (and any word of
    Roman-numeral letters: "mix", "dim" — kept, which costs privacy, never truth)."""
    return _FIGURE_WORD.fullmatch(word) is not None


#: the markers of a withheld word and of a withheld run of words (nothing said of what they were)
WITHHELD_WORD, WITHHELD_WORDS = "[word]", "[words]"


def _withheld(record: _Record, doc, top: int | None, targets: frozenset) -> None:
    """Words left outside the ``top`` words the most authors use (None: none) and each of ``targets`` that no rule
    generalised -> a marker: a capitalised one inside a sentence that the tagger reads as a proper noun ->
    :data:`UNKNOWN_NAME`, else :data:`WITHHELD_WORD`; a run of withheld words -> one :data:`WITHHELD_WORDS`. Never
    a negation, a figure, a modifier that says how sure or how often (:data:`KEPT_MODIFIERS`) or a word in a
    quotation; and, targets aside, at most :data:`WITHHELD_SHARE` of a sentence's content words (the rarest first)
    and never its last verb: the third held-out set's readers found sentences with more withheld said nothing."""
    chosen = []
    for sentence in _sentences(doc):
        content = [t for t in sentence if t.is_alpha and not t.is_stop and t.pos_ in _CONTENT]
        budget = int(len(content) * WITHHELD_SHARE)
        verbs = sum(t.pos_ == "VERB" for t in content)
        rare = []
        for token in sentence:
            lower, lemma = token.lower_, token.lemma_.lower()
            end = token.idx + len(token.text)
            if not withholdable(token.text) or token.like_num or not record.free(token.idx, end):
                continue
            if lower in targets or lemma in targets:
                chosen.append(token)
            elif top is not None and not is_common(lower, top) and not is_common(lemma, top):
                rare.append(token)
        ranks = word_ranks()
        for token in sorted(rare, key=lambda t: -ranks.get(t.lemma_.lower(), 10**9)):
            if budget <= 0:
                break
            if token.pos_ == "VERB" and verbs <= 1:
                continue  # the sentence keeps a verb: what it says of its subject
            chosen.append(token)
            budget -= 1
            verbs -= token.pos_ == "VERB"
    runs: list[list] = []
    for token in sorted(chosen, key=lambda t: t.i):
        previous = runs[-1][-1] if runs else None
        if previous is not None and previous.i == token.i - 1 and previous.whitespace_ == " ":
            runs[-1].append(token)
        else:
            runs.append([token])
    for run in runs:
        first, last = run[0], run[-1]
        name = all(
            t.pos_ == "PROPN"
            and t.text[:1].isupper()
            and not _sentence_start(record.text, t.idx)
            and not _CRY.fullmatch(t.lower_)
            for t in run
        )
        form = UNKNOWN_NAME if name else WITHHELD_WORD if len(run) == 1 else WITHHELD_WORDS
        record.add(first.idx, last.idx + len(last.text), form, "name" if name else "withheld")


#: the words a broader form is chosen among: the 5,000 the most authors use, at every level (the level says which
#: words are rare; what they become must be common and more common than they are)
BROADER_TOP = 5000
#: adjectives that do not say "a kind of" their noun: without them the noun says something else ("a former
#: minister" is no minister), or less of a quantity or a reference ("the only", "other")
_KEEP_ADJECTIVES = _wordlist(
    "former fake false alleged supposed so-called would-be imaginary fictional fictitious pretend mock counterfeit artificial ex potential possible probable likely unlikely future past previous late near apparent virtual only sole mere other same different certain main next last first second third few many several non-existent nonexistent hypothetical theoretical nominal acting deputy vice"
)
#: adverbs that say how sure, how often or how much: without them the sentence claims more than it did
_KEEP_ADVERBS = _wordlist(
    "hardly barely scarcely rarely seldom never nearly almost only merely partly partially allegedly supposedly reportedly purportedly seemingly apparently arguably presumably possibly probably perhaps maybe likely hopefully theoretically hypothetically falsely wrongly formerly previously nominally ostensibly occasionally sometimes usually mostly largely slightly somewhat relatively fairly"
)


#: the modifiers generalise never leaves out (the meter reads leaving one out as no generalisation)
KEPT_MODIFIERS = _KEEP_ADJECTIVES | _KEEP_ADVERBS


def _more_common(broader: str, word: str) -> bool:
    ranks = word_ranks()
    return ranks.get(broader, 10**9) < ranks.get(word, 10**9)


def _modifiers(record: _Record, doc, top: int) -> None:
    """A rare adjective before its noun and a rare manner adverb ("-ly") beside its verb are left out: "a suave
    founder" is a founder, "he smiled charmingly" says he smiled. Not an adjective that is no kind of its noun
    (:data:`_KEEP_ADJECTIVES`), nor an adverb of how sure or how often (:data:`_KEEP_ADVERBS`), nor one a comma or a
    sentence start sets apart ("Sadly, …")."""
    for token in doc:
        if (
            not token.is_alpha
            or token.ent_type_
            or is_common(token.lower_, top)
            or is_common(token.lemma_.lower(), top)
        ):
            continue
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        previous = doc[token.i - 1] if token.i > 0 else None
        if token.tag_ in ("JJ", "JJR", "JJS") and token.lower_ not in _KEEP_ADJECTIVES:
            if following is None or following.pos_ not in ("NOUN", "ADJ") or following.ent_type_:
                continue  # predicative ("it was delicious") or before a name: the sentence needs it
        elif token.tag_ == "RB" and token.lower_.endswith("ly") and token.lower_ not in _KEEP_ADVERBS:
            beside_verb = any(t is not None and t.pos_ in ("VERB", "AUX") for t in (previous, following))
            if (
                not beside_verb
                or following is not None
                and following.text in ",;:"
                or _sentence_start(record.text, token.idx)
            ):
                continue
        else:
            continue
        start, end = token.idx, token.idx + len(token.text)
        # the space after it goes with it; a hyphenated or comma-listed modifier is left ("bright, shiny")
        if following is not None and following.text in ",-" or previous is not None and previous.text in ",-":
            continue
        if record.free(start, end + 1) and record.text[end : end + 1] == " ":
            record.add(start, end + 1, "", "modifier")


def _fix_articles(text: str, changes: list[Change]) -> list[Change]:
    """A change right after "a"/"an" that now needs the other one brings the article with it."""
    out = []
    starts = {c.start: c.replacement for c in changes}
    for change in changes:
        before = text[: change.start]
        match = re.search(r"\b(a|an|A|An)\s+$", before)
        following = re.match(r"\s*([A-Za-z\[]\S*)", text[change.end :])
        # the word the article will stand before: the next change's replacement when the next word changes too
        said = starts.get(change.end + following.start(1), following.group(1)) if following else ""
        if match and not change.replacement and said:
            # a modifier or a name before a noun left out: "an EMO collection" -> "a collection"
            wanted = indefinite(said.split()[0])
            if wanted != match.group(1).lower():
                wanted = wanted.capitalize() if match.group(1)[0].isupper() else wanted
                start, end = match.start(1), change.end + following.start(1)  # the article to the noun
                change = Change(start, end, text[start:end], wanted + " ", change.kind)
        elif match and change.replacement and change.replacement.split()[0].lower() not in ("a", "an", "the"):
            wanted = indefinite(change.replacement)
            if wanted != match.group(1).lower():
                wanted = wanted.capitalize() if match.group(1)[0].isupper() else wanted
                start = match.start(1)
                change = Change(
                    start, change.end, text[start : change.end], f"{wanted} {change.replacement}", change.kind
                )
        out.append(change)
    return out


def apply_changes(text: str, changes: list[Change]) -> str:
    """``text`` with each of ``changes`` (offsets into ``text``, none overlapping) made."""
    out, position = [], 0
    for change in sorted(changes, key=lambda c: c.start):
        out.append(text[position : change.start])
        out.append(change.replacement)
        position = change.end
    out.append(text[position:])
    return re.sub(r"[ \t]{2,}", " ", "".join(out))


def generalise_texts(
    texts: Iterable[str], level: str, *, targets: Iterable[str] = (), numbers: bool = False, batch_size: int = 64
) -> list[Generalised]:
    """Each text normalised, then generalised at ``level`` (:data:`LEVELS`); ``targets``: words to generalise
    whatever their commonness (the writer's check's evidence); ``numbers``: figures rounded with a hedge. One
    :class:`Generalised` per text, in order; an empty text stays empty."""
    from authorguard.text.normalise import normalise

    chosen = check_level(level)
    wanted = frozenset(t.lower() for t in targets)
    sources = [normalise(t) for t in texts]
    out = []
    for source, doc in zip(sources, _pipeline().pipe(sources, batch_size=batch_size)):
        record = _Record(source)
        for found in doc.ents:
            ent = _trimmed(found)
            if not record.free(ent.start_char, ent.end_char):
                continue
            if not _looks_named(ent) and not (ent.label_ == "PERSON" and record.is_person(ent.text)):
                continue  # "Smith" at a sentence start is a name when "John Smith" came before
            if ent.label_ == "PERSON":
                _person(record, doc, ent)
            elif ent.label_ == "ORG":
                _named(record, doc, ent, confirmed_organisation)
            elif ent.label_ in ("GPE", "LOC", "FAC"):
                _named(record, doc, ent, confirmed_place)
            elif ent.label_ == "DATE" and chosen.dates:
                _date(record, doc, ent)
            elif ent.label_ in ("MONEY", "CARDINAL", "QUANTITY", "PERCENT") and numbers:
                _number(record, doc, ent)
        _mentions(record, doc)
        _words(record, doc, None if chosen.withheld else chosen.rare_top, wanted)
        if chosen.modifiers and chosen.rare_top:
            _modifiers(record, doc, chosen.rare_top)
        if chosen.withheld or wanted:  # a target no rule generalised is withheld at every level: it was asked for
            _withheld(record, doc, chosen.rare_top if chosen.withheld else None, wanted)
        changes = _fix_articles(source, record.changes)
        out.append(Generalised(apply_changes(source, changes), source, sorted(changes, key=lambda c: c.start)))
    return out
