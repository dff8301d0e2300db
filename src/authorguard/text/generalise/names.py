"""The name rules of truthful generalisation: a person's name -> the description the text gives or "someone" when
something confirms a person, else ``[name]``; an organisation or a place -> its kind when its name or WordNet
confirms it; later mentions the same form; a cry or a word writers mostly write in lower case is no name."""

from __future__ import annotations

import re

from authorguard.text.generalise.kinds import indefinite, organisation_kind, place_kind
from authorguard.text.generalise.record import (
    CRY,
    TITLES,
    UNKNOWN_NAME,
    Record,
    at_sentence_start,
    is_figure_word,
    wordlist,
)
from authorguard.text.vocabulary import first_names, lowercase_shares

_ENTITY_KINDS = {"PERSON": "person", "ORG": "organisation", "GPE": "place", "LOC": "place", "FAC": "place"}


def _entity_span(doc, ent) -> tuple[int, bool, str]:
    """(start character of what the replacement covers, whether "the" comes with it, the title or "" before it)."""
    start = ent.start
    title = ""
    if start > 0 and doc[start - 1].lower_ in TITLES:
        title = doc[start - 1].text
        start -= 1
    article = start > 0 and doc[start - 1].lower_ == "the"
    if article:
        start -= 1
    return doc[start].idx, article, title


def person_name(record: Record, doc, ent) -> None:
    start_char, article, title = _entity_span(doc, ent)
    # a person confirmed: a title, a first name, or met before as one
    confirmed = bool(title) or record.is_person(ent.text) or any(is_first_name(t.text) for t in ent)
    if _organisation_word(ent) and not title:
        if any(is_first_name(t.text) for t in ent):  # "Alex Band": a person or a band — only marked
            record.add(ent.start_char, ent.end_char, UNKNOWN_NAME, "person")
        else:  # "Susan G. Komen Foundation", "Support Group"
            named_entity(record, doc, ent, confirmed_organisation)
        return
    if not confirmed and (record.known_name(ent.text) or _not_a_person(ent)):
        named_entity(record, doc, ent, confirmed_organisation)  # an organisation or place met before; "Iris", "BBQ"
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
        and not at_sentence_start(doc.text, doc[end].idx)
    ):
        end += 1
    return ent if end == ent.end else Span(doc, ent.start, end, label="ORG")


def named_entity(record: Record, doc, ent, kind_of) -> None:
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


_DETERMINERS = wordlist("this that these those every each any some no another either neither")


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
    from authorguard.text.generalise.kinds import senses

    meant = senses(ent.text.replace(" ", "_").lower()) or senses(ent[-1].lower_)
    return bool(meant) and all(s.lexname() != "noun.person" for s in meant)


def _joined(doc, k: int) -> bool:
    """Whether token ``k`` is a hyphen inside a word ("Coca-Cola", "Kai-shek"): no space on either side of it."""
    return 0 < k < len(doc) - 1 and doc[k].text == "-" and not doc[k - 1].whitespace_ and not doc[k].whitespace_


def trimmed(ent):
    """``ent`` cut before a dash, a comma, a possessive ending or a pronoun or determiner inside it: the recogniser
    runs a name into the next words ("Ben - Your post" -> "Ben"); its first word always stays. A hyphen inside a word
    joins, never cuts: the span grows to the whole hyphenated word when its other parts are names too ("Coca" of
    "Coca-Cola", "Chiang Kai" of "Chiang Kai-shek"; "David-and-Goliath" whole, labelled a name of unknown kind), and
    stops at the hyphen when they are only ordinary words ("Munk-style", "Toronto-based": the name alone)."""
    from spacy.tokens import Span

    doc = ent.doc
    for k, token in enumerate(ent):
        i = ent.start + k
        inside_word = _joined(doc, i) or _joined(doc, i - 1)
        if k and not inside_word and (token.text in _CUTS or token.tag_ in ("PRP", "PRP$", "DT", "POS")):
            ent = Span(doc, ent.start, i, label=ent.label_)
            break
    start, end = ent.start, ent.end
    while end - start > 1 and _joined(doc, end - 1):  # the span stops on the hyphen itself ("Munk-")
        end -= 1
    first, last = start, end  # the whole hyphenated word around the span
    while first > 1 and _joined(doc, first - 1):
        first -= 2
    while last < len(doc) - 1 and _joined(doc, last):
        last += 2
    outside = [t for t in (*doc[first:start], *doc[end:last]) if t.is_alpha]
    if not outside or not any(_name_part(t) for t in outside):  # no other name in the word: the name alone
        return ent if (start, end) == (ent.start, ent.end) else Span(doc, start, end, label=ent.label_)
    ordinary = any(not _name_part(t) for t in outside)
    return Span(doc, first, last, label="ORG" if ordinary else ent.label_)


def _name_part(token) -> bool:
    """A part of a hyphenated name: capitalised, or a word writers do not mostly write in lower case ("shek")."""
    return token.text[:1].isupper() or not _mostly_lower(token.text)


_CUTS = ("-", "\u2013", "\u2014", ",", ":", ";")


def looks_named(ent) -> bool:
    """Whether a recognised entity can be a name: every word of it capitalised or a digit, and a single word that
    is a common lower-case word only capitalised by its place ("Crap!", "Argh") or an interjection is none."""
    if ent.label_ not in ("PERSON", "ORG", "GPE", "LOC", "FAC"):
        return True
    # the parts after a hyphen inside a word need no capital ("Kai-shek")
    words = [t for t in ent if t.is_alpha and not (t.i > ent.start and _joined(ent.doc, t.i - 1))]
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
        and CRY.fullmatch(words[0].lower_)
    ):
        return False  # "Woohoo", "Aaaargh", "Geez!", "Heheh", "Yeh": a cry, not a name
    if len(words) == 1:
        token = words[0]
        if token.pos_ == "INTJ" or token.tag_ == "UH":
            return False
        first = token.i == token.sent.start if token.doc.has_annotation("SENT_START") else token.i == 0
        if (first or at_sentence_start(token.doc.text, token.idx)) and _mostly_lower(token.text):
            return False  # a word capitalised by its place ("Crap", "Neat"), not a name
    return True


def later_mentions(record: Record, doc) -> None:
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
