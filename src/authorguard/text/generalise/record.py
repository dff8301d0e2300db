"""One record's generalisation in the making: the changes chosen so far (:class:`Change`) and what keeps them
consistent — the same entity the same form, nothing inside a quotation, no two changes over one span
(:class:`Record`); shared by the name rules (:mod:`authorguard.text.generalise.names`) and the word rules
(:mod:`authorguard.text.generalise.words`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from authorguard.text.atoms import HTML_ENTITY, quotation_spans


def wordlist(words: str) -> frozenset[str]:
    """A set of words written as one space-separated string (long lists stay readable)."""
    return frozenset(words.split())


@dataclass(frozen=True)
class Change:
    """One replacement in the normalised text: [``start``, ``end``) character offsets of ``original``, what it
    became, and its ``kind`` (person, organisation, place, word, date, number)."""

    start: int
    end: int
    original: str
    replacement: str
    kind: str


def _entity(text: str) -> str | None:
    """The character(s) an HTML entity stands for: a named one HTML5 knows whole ("&amp;", not "&ampfoo;"), or a
    numeric one of a printable character; None otherwise."""
    import html
    from html.entities import html5

    if text.startswith("&#"):
        decoded = html.unescape(text)
        return decoded if decoded != text and decoded.isprintable() and decoded else None
    return html5.get(text[1:])


class DecodedEntities:
    """``source`` with each HTML entity decoded to the character(s) it stands for (``text``), and the way back:
    :meth:`to_source` maps changes made in ``text`` to ``source``'s offsets. The tagger then reads "AT&amp;T" as
    "AT&T", one name, instead of the words "amp" and ";"."""

    def __init__(self, source: str) -> None:
        self.source = source
        pieces: list[str] = []
        self._starts: list[int] = []  # for each character of ``text``, where it starts in ``source``
        position = 0
        for match in HTML_ENTITY.finditer(source):
            decoded = _entity(match.group(0))
            if decoded is None:  # not an entity HTML knows, or one that stands for no character: left as written
                continue
            for k in range(position, match.start()):
                pieces.append(source[k])
                self._starts.append(k)
            pieces.append(decoded)
            self._starts.extend([match.start()] * len(decoded))
            position = match.end()
        for k in range(position, len(source)):
            pieces.append(source[k])
            self._starts.append(k)
        self._starts.append(len(source))
        self.text = "".join(pieces)
        # where each character of ``text`` ends in ``source``: the characters an entity decodes to end with it
        self._ends = [0] * len(self.text)
        boundary = len(source)
        for k in range(len(self.text) - 1, -1, -1):
            if self._starts[k + 1] != self._starts[k]:
                boundary = self._starts[k + 1]
            self._ends[k] = boundary

    def to_source(self, changes: list[Change]) -> list[Change]:
        """``changes`` (offsets into :attr:`text`) with offsets into :attr:`source`; a change ending inside an
        entity's characters ends after the whole entity."""
        if self.text == self.source:
            return changes
        out = []
        for change in changes:
            start = self._starts[change.start]
            end = self._ends[change.end - 1] if change.end > change.start else start
            out.append(Change(start, end, self.source[start:end], change.replacement, change.kind))
        return out


TITLES = wordlist("mr mr. mrs mrs. ms ms. dr dr. prof prof. sir dame lord lady")


def inside(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def at_sentence_start(text: str, position: int) -> bool:
    before = text[:position].rstrip(" \t\"'(")
    if before.endswith(".") and re.search(r"(?:^|\s)(?:[A-Z]|[A-Za-z]{1,4})\.$", before):
        last = before.rsplit(None, 1)[-1].lower()
        if last in TITLES or len(last) == 2 and last != "i.":  # "Mr. Twiddle", "J. Smith": no sentence end
            return False
    return not before or before[-1] in ".!?\n"


class Record:
    """The changes of one record, with what makes them consistent: the same entity, the same form."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.changes: list[Change] = []
        self.taken: list[tuple[int, int]] = []
        self.quotations = quotation_spans(text)
        self.people: list[set[str]] = []
        self.named: dict[str, str] = {}  # an organisation's or place's name -> its kind (mentioned before)

    def free(self, start: int, end: int) -> bool:
        return not inside(self.quotations, start, end) and not inside(self.taken, start, end)

    def add(self, start: int, end: int, replacement: str, kind: str) -> None:
        if replacement and at_sentence_start(self.text, start):
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


#: the markers of a withheld word and of a withheld run of words (nothing said of what they were)
WITHHELD_WORD, WITHHELD_WORDS = "[word]", "[words]"


#: what a name becomes when its kind is not confirmed: the recogniser's label alone called people places and
#: towns organisations on the first held-out set; a marked name is never false
UNKNOWN_NAME = "[name]"


#: a laugh or a cry the recogniser took for a name ("Heheh", "Hahah", "Yeh", "Shuddup", "Hmm", "Ugh", "Bwahaha")
CRY = re.compile(
    r"(?:bw)?(?:a?h+[aeiou]+)+h*|(?:[aeiou]h+)+|ye+[ahp]*|yup+|nah+|sh+ud+(?:d?up)?|ug+h+|ar+g+h*|h+m+|m+h*m+|"
    r"o+h+|a+w+|e+h+|w+o+[ow]*t*|y+a+y+|w+h+e+|gr+|z+|bl+a+h+|doh+|d'?oh"
)


#: a number word, an ordinal or a Roman numeral: a figure, never a word to withhold ("fifteen hijackers",
#: "the Eighth", "XXVI"; the third held-out set's readers called each withheld one changed)
FIGURE_WORD = re.compile(
    r"(?:\w+-)?(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|thirty|forty|"
    r"fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|trillion|first|second|third|fourth|fifth|"
    r"sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|\w+teenth|\w+ieth|hundredth|thousandth|millionth)s?|"
    r"[ivxlcdm]+|noon|midnight",
    re.IGNORECASE,
)


def is_figure_word(word: str) -> bool:
    """Whether ``word`` says a number: "fifteen", "twenty-nine", "eighth", "XXVI" (and any word of
    Roman-numeral letters: "mix", "dim" — kept, which costs privacy, never truth)."""
    return FIGURE_WORD.fullmatch(word) is not None
