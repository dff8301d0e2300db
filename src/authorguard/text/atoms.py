"""Atoms: the stretches of a text a faithful rewrite copies verbatim, and the whitespace tokens the roles view reads.

A reader loses meaning when a rewrite splits or re-spells these, whatever else it keeps (measured each
on news and blogs), so the roles view (:func:`authorguard.text.views.roles.roles_view`) keeps each as one word and the
constraint (:mod:`authorguard.generation.constraints`) writes it byte for byte:

- a **quotation**: ``"..."`` with the words inside it exactly as written (a quotation is never paraphrased); its
  spaces become :data:`ATOM_SPACE` in a view so it stays one word (:func:`hold_quotations`);
- a **number with its unit, currency or scale**: ``$7.375``, ``A$43.14``, ``25%``, ``1970s``, ``5-7``,
  ``1996/97``, ``3rd`` (the unit words after a number — ``percent``, ``million``, ``ounces`` — are view words
  anyway, and the article of a rate or a quantity, ``$1 a share``, ``a few``, is kept: :func:`is_bound_article`);
- an **abbreviation or a name with inner punctuation**: ``U.S.``, ``Corp.``, ``Bre-X``, ``Do-Re-Mi``, ``e.g.``;
- a URL, an e-mail address, a handle, code in backticks.

The punctuation around a word (a list or appositive comma, a colon, a parenthesis, a dash standing alone, a
quotation mark) stays with it (:func:`split_token`): the realiser writes exactly the punctuation the text had
inside a sentence, never one it chose (a comma it adds can regroup a clause).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: the character standing for a space inside an atom in a view string (a view's words are split on whitespace;
#: ``view_plan_words`` turns it back into a space). U+2581, the block SentencePiece uses for the same purpose.
ATOM_SPACE = "\u2581"
#: the mark before a view word a constrained realiser may leave out (the roles view's articles: the text's own
#: article, written as it was or not at all — the realiser's only freedom). U+2E3D, a mark no text here holds; a
#: text's own is removed before it is read (:func:`without_optional_marks`).
OPTIONAL_MARK = "\u2e3d"

#: an HTML entity as news and web text carry them ("&amp;", "&#39;", "&#x2019;"): one atom, never split by a rule
HTML_ENTITY_PATTERN = r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});"
HTML_ENTITY = re.compile(HTML_ENTITY_PATTERN)


def is_optional(token: str) -> bool:
    """Whether a view token is an optional word (:data:`OPTIONAL_MARK` before it)."""
    return token.startswith(OPTIONAL_MARK) and len(token) > 1


def without_optional(view: str) -> str:
    """A view without its optional words (what a realiser is shown: it was trained on views without articles)."""
    return " ".join(token for token in view.split() if not is_optional(token))


def without_optional_marks(text: str) -> str:
    """``text`` with any :data:`OPTIONAL_MARK` of its own removed, so that no word of it reads as optional."""
    return text.replace(OPTIONAL_MARK, "")


# a quoted stretch inside one paragraph, at most 1,200 characters: double marks, or single ones around words whose
# own apostrophes stand between letters ("'I don't know'"); an opening mark follows no letter (a possessive "dogs'"
# opens nothing), a closing one precedes none
_QUOTATION = re.compile(
    r'(?<![\w"])"(?=\S)([^"\n]{1,1200}?)(?<=\S)"(?!\w)'
    r"|(?<![\w'\"])'(?!(?:em|cause|cos|tis|twas|til|n|bout|round)\b)(?=[^\s'\d])((?:[^'\n]|(?<=\w)'(?=\w)){1,1200}?)(?<=[^\s'])'(?!\w)"
)
# an opening double mark with no closing one before its paragraph ends (a quotation running on into the next
# paragraph, or a closing mark the writer forgot): held to the paragraph's end
_UNCLOSED = re.compile(
    r'(?:(?<=\s)|(?<=^)|(?<=[(\[]))["\u201c](?=\S)(?:[^"\u201c\u201d\n]|\n(?![ \t]*\n)){1,1200}?'
    r"(?=[ \t]*(?:\n[ \t]*\n|$))"
)
#: abbreviations written with a full stop that ends no sentence (a word of the list, any case)
ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "jr",
        "sr",
        "prof",
        "gen",
        "gov",
        "sen",
        "rep",
        "col",
        "lt",
        "sgt",
        "capt",
        "inc",
        "corp",
        "co",
        "ltd",
        "bros",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "a.m",
        "p.m",
        "no",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "mt",
        "ft",
        "approx",
        "dept",
        "est",
        "fig",
        "vol",
        "ca",
    ]
)
# the core of a token (what is left after the punctuation around it): a URL, an e-mail, a handle, code, a number
# with its sign, currency, unit or range, initials ("U.S."), a word with inner hyphens, slashes or apostrophes
_URL = re.compile(r"^(?:https?://|www\.)\S+$|^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$|^@\w+$|^`[^`]+`$")
_INITIALS = re.compile(r"^(?:[A-Za-z]\.){2,}$")
_NUMERIC = re.compile(r"[\d]")
# punctuation that may stand around a word's core
_LEADING = "\"'([{"
_TRAILING = "\"')]},;:.!?"


def hold_quotations(text: str) -> str:
    """``text`` with each quotation's inner whitespace replaced by :data:`ATOM_SPACE`: a quotation (double or
    single marks; an opening double mark never closed in its paragraph runs to the paragraph's end) becomes one
    whitespace token (a sentence splitter does not cut inside it; a view keeps it whole)."""
    held = _QUOTATION.sub(lambda m: re.sub(r"\s+", ATOM_SPACE, m.group(0)), text)
    return _UNCLOSED.sub(lambda m: re.sub(r"\s+", ATOM_SPACE, m.group(0)), held)


def quotation_spans(text: str) -> list[tuple[int, int]]:
    """The [start, end) character offsets of the quotations of ``text`` (straight or curly, double or single
    marks; one opened and never closed in its paragraph runs to the paragraph's end), in order."""
    text = text.translate(_STRAIGHT_MARKS)  # one character for one: the offsets stay the text's
    out: list[tuple[int, int]] = []
    start = 0
    for match in _QUOTATION.finditer(text):
        out.extend(m.span() for m in _UNCLOSED.finditer(text, start, match.start()))
        out.append(match.span())
        start = match.end()
    out.extend(m.span() for m in _UNCLOSED.finditer(text, start))
    return out


def quotations(text: str) -> list[str]:
    """The quotations of ``text`` (:func:`quotation_spans`) with their marks, in order (whitespace collapsed;
    curly marks as straight ones)."""
    straight = text.translate(_STRAIGHT_MARKS)
    return [" ".join(straight[start:end].split()) for start, end in quotation_spans(text)]


_STRAIGHT_MARKS = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_MARKS = "\"'"


def outside_quotations(text: str, rule: Callable[[str], str]) -> str:
    """``text`` with ``rule`` applied to the stretches between its quotations only: a quotation's words are the
    speaker's, and a rule that re-spells words ("yeah" -> "yes") would put words in their mouth."""
    out, start = [], 0
    for match in _QUOTATION.finditer(text):
        out.append(_outside_unclosed(text[start : match.start()], rule) if match.start() > start else "")
        out.append(match.group(0))
        start = match.end()
    out.append(_outside_unclosed(text[start:], rule) if start < len(text) else "")
    return "".join(out)


def _outside_unclosed(stretch: str, rule: Callable[[str], str]) -> str:
    """``rule`` on a stretch between closed quotations, a quotation opened and never closed in its paragraph (it
    runs to the paragraph's end: the speaker's words too) left as written."""
    out, start = [], 0
    for match in _UNCLOSED.finditer(stretch):
        out.append(rule(stretch[start : match.start()]) if match.start() > start else "")
        out.append(match.group(0))
        start = match.end()
    out.append(rule(stretch[start:]) if start < len(stretch) else "")
    return "".join(out)


def is_quotation(token: str) -> bool:
    """Whether a whitespace token is (or holds) a held quotation."""
    return ATOM_SPACE in token or bool(_QUOTATION.fullmatch(token.rstrip(",;:.!?)]}")))


def split_token(token: str) -> tuple[str, str, str]:
    """A whitespace token as (leading punctuation, core, trailing punctuation). An abbreviation keeps its full stop
    (``Corp.``, ``U.S.``, ``e.g.``), a number its sign and decimals, a quotation everything (its marks and the
    punctuation inside). A token of punctuation only (a dash, ``&``) is all core."""
    if is_quotation(token) and token[:1] in _MARKS:
        end = token.rfind(token[0])
        if end == 0 or any(ch.isalnum() for ch in token[end + 1 :]):  # unclosed, or a note glued on: '..";(2)'
            return "", token, ""
        return "", token[: end + 1], token[end + 1 :]
    start, end = 0, len(token)
    while start < end and token[start] in _LEADING:
        start += 1
    while end > start and token[end - 1] in _TRAILING:
        end -= 1
    if start == end:
        return "", token, ""
    core = token[start:end]
    rest = token[end:]
    # a full stop that belongs to the word: initials ("U.S."), a known abbreviation ("Corp."), a decimal's end
    if rest.startswith(".") and (_INITIALS.match(core + ".") or core.lower() in ABBREVIATIONS):
        core, rest = core + ".", rest[1:]
    # a closing bracket that belongs to the word: "friend(s)", "f(x)"
    if rest.startswith(")") and "(" in core and core.count("(") > core.count(")"):
        core, rest = core + ")", rest[1:]
    return token[:start], core, rest


def is_atom(core: str) -> bool:
    """Whether a token's core must be copied as written, never re-cased or cut: a URL, e-mail, handle or code; a
    number with anything attached (``$1``, ``25%``, ``1970s``, ``5-7``); initials; a word with inner punctuation
    other than an apostrophe (``Bre-X``, ``Do-Re-Mi``, ``and/or``); an abbreviation with its full stop."""
    if _URL.match(core) or _INITIALS.match(core):
        return True
    if _NUMERIC.search(core):
        return True
    if core.endswith(".") and core[:-1].lower() in ABBREVIATIONS:
        return True
    inner = core.strip("'")
    return any(not (ch.isalpha() or ch == "'") for ch in inner) and any(ch.isalpha() for ch in inner)


#: number words and their values ("a two members" is no English: no article is put before one)
CARDINALS = {
    word: value
    for value, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
CARDINALS |= {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORDS = frozenset(CARDINALS) | {"once", "twice", "thrice", "times", "many", "several"}
#: what a rate is counted per ("many miles a week", "$5 a head")
_RATE_NOUNS = frozenset(
    [
        "second",
        "minute",
        "hour",
        "day",
        "night",
        "week",
        "month",
        "year",
        "decade",
        "share",
        "head",
        "piece",
        "person",
        "pop",
        "time",
        "mile",
        "gallon",
        "pound",
        "dozen",
    ]
)
#: the quantities an article is part of: "a few" is not "few", "a lot" not "lot"
_QUANTITIES = frozenset(
    ["few", "little", "lot", "lots", "bit", "couple", "dozen", "handful", "hundred", "thousand", "million", "billion"]
)


def is_bound_article(cores: list[str], position: int) -> bool:
    """Whether the article at ``cores[position]`` (the cores of a sentence's tokens, "" for a dropped mark) is part
    of a figure or a quantity, not a free word: a rate after a number or a plural (``$1 a share``, ``50 cents a
    share``, ``twice a day``, ``many miles a week``), a quantity (``a few``, ``a lot``, ``a great deal``) or a
    paired comparative (``the older the story, the less likely``). A
    realiser choosing it freely writes "$1 share", "many miles this week", "few cities" (held-out
    damage)."""
    core = cores[position].lower()
    if core not in ("a", "an", "the", "per"):
        return False
    previous = [c.lower() for c in cores[:position] if c][-3:]
    following = [c.lower() for c in cores[position + 1 :] if c][:2]
    if core == "the":  # "the older the story, the less likely"
        if not following or not _comparative(following[0]):
            return False
        rest = [c.lower() for c in cores if c]
        return sum(a == "the" and _comparative(b) for a, b in zip(rest, rest[1:])) >= 2
    if following and following[0] in _QUANTITIES:
        return True
    if following[:1] in (["great"], ["good"]) and following[1:] in (["deal"], ["many"]):
        return True
    if any(_NUMERIC.search(c) or c in _NUMBER_WORDS for c in previous):
        return True
    return bool(following and following[0] in _RATE_NOUNS and previous and previous[-1].endswith("s"))


def _comparative(word: str) -> bool:
    word = word.strip(",;:")
    return word in ("more", "less", "fewer", "better", "worse", "further") or (len(word) > 4 and word.endswith("er"))


def ends_sentence(word: str) -> bool:
    """Whether a view word already ends with a sentence's stop (a quotation ``"... win."``, ``U.S.``): no further
    stop may follow it."""
    stripped = word.rstrip("\"')]")
    return stripped.endswith((".", "!", "?"))


#: the words that make a number mean one thing rather than another (time words are left out: "$10,000 a year" and
#: "an annual $10,000" say the same)
UNITS = {
    "percent": "%",
    "%": "%",
    "million": "million",
    "millions": "million",
    "billion": "billion",
    "billions": "billion",
    "trillion": "trillion",
    "thousand": "thousand",
    "thousands": "thousand",
    "hundred": "hundred",
    "dollars": "$",
    "dollar": "$",
    "bucks": "$",
    "cents": "cents",
    "cent": "cents",
    "pounds": "pounds",
    "euros": "euros",
    "miles": "miles",
    "mile": "miles",
    "acres": "acres",
    "feet": "feet",
    "ounces": "ounces",
    "tons": "tons",
    "barrels": "barrels",
    "gallons": "gallons",
    "degrees": "degrees",
}


def closed_gap(previous: str, word: str) -> bool:
    """Whether nothing may stand between two view words: a number and the unit or scale after it ("10 miles",
    "25 percent", "3.2 million") — a free word there detaches the unit."""
    return any(ch.isdigit() for ch in previous) and word.lower().strip(",;:") in UNITS
