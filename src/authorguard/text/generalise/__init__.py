"""Truthful generalisation: specifics replaced by less specific forms the text entails, never by false ones.

What identifies a writer beyond style is what they write about — names, places, hobbies, rare words
(docs/results/generalise.md measures it). Each rule here replaces a specific by a form that is true of it:

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
from collections.abc import Iterable
from dataclasses import dataclass, field

from authorguard.exceptions import InputError
from authorguard.text.generalise.kinds import (
    indefinite,
)
from authorguard.text.generalise.names import (
    confirmed_organisation,
    confirmed_place,
    later_mentions,
    looks_named,
    named_entity,
    person_name,
    trimmed,
)
from authorguard.text.generalise.record import Change, DecodedEntities, Record
from authorguard.text.generalise.words import coarsen_date, drop_modifiers, rare_words, round_figure, withhold_words


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


@functools.cache
def _pipeline():
    from authorguard.text.resources import spacy_pipeline

    # the tagger and the recogniser (and what the lemmatiser needs); no parser: speed, and nothing here reads it
    return spacy_pipeline(("parser",))


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
        if match and following and not change.replacement and said:
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
    # an HTML entity ("AT&amp;T") is read as the one character it stands for; the changes are made in the source
    decodings = [DecodedEntities(source) for source in sources]
    out = []
    docs = _pipeline().pipe((d.text for d in decodings), batch_size=batch_size)
    for source, entities, doc in zip(sources, decodings, docs):
        decoded = entities.text
        record = Record(decoded)
        for found in doc.ents:
            ent = trimmed(found)
            if not record.free(ent.start_char, ent.end_char):
                continue
            if not looks_named(ent) and not (ent.label_ == "PERSON" and record.is_person(ent.text)):
                continue  # "Smith" at a sentence start is a name when "John Smith" came before
            if ent.label_ == "PERSON":
                person_name(record, doc, ent)
            elif ent.label_ == "ORG":
                named_entity(record, doc, ent, confirmed_organisation)
            elif ent.label_ in ("GPE", "LOC", "FAC"):
                named_entity(record, doc, ent, confirmed_place)
            elif ent.label_ == "DATE" and chosen.dates:
                coarsen_date(record, doc, ent)
            elif ent.label_ in ("MONEY", "CARDINAL", "QUANTITY", "PERCENT") and numbers:
                round_figure(record, doc, ent)
        later_mentions(record, doc)
        rare_words(record, doc, None if chosen.withheld else chosen.rare_top, wanted)
        if chosen.modifiers and chosen.rare_top:
            drop_modifiers(record, doc, chosen.rare_top)
        if chosen.withheld or wanted:  # a target no rule generalised is withheld at every level: it was asked for
            withhold_words(record, doc, chosen.rare_top if chosen.withheld else None, wanted)
        changes = entities.to_source(_fix_articles(decoded, record.changes))
        out.append(Generalised(apply_changes(source, changes), source, sorted(changes, key=lambda c: c.start)))
    return out
