"""A style normaliser that cannot change what a text says: named, deterministic rules over the text.

Each rule maps a writing *habit* to one fixed form, so that writers who differ only in that habit write the same
text afterwards; none of them touches a word's meaning (a rule that would need to guess — ``'d`` as *had* or
*would*, ``ain't``, a date written ``03/04`` — leaves the text as it is). The rules, in the order they run:

====================  ==========================================================================================
rule                  what it does (examples)
====================  ==========================================================================================
``unicode``           curly quotes -> straight, en/em dashes and ``--`` -> `` - ``, ``…`` -> ``...``
``emoticons``         emoticons to one form per feeling: ``:-)`` ``=)`` ``:]`` -> ``:)``, ``:-(`` -> ``:(``,
                      ``XD`` ``:-D`` -> ``:D``, ``;-)`` -> ``;)``, ``:-P`` -> ``:P``
``decoration``        lines of only decoration (``*****``, ``~~~``, ``=-=-=``) dropped, runs of 3+ decoration
                      marks inside a line dropped
``emphasis``          emphasis marks around words dropped: ``*really*``, ``**this**``, ``_so_`` -> the words
``brackets``          round and square brackets dropped around an aside that stands alone as a sentence, the
                      aside kept: ``(Applause.)``; inside a sentence they stay (a gloss, an aside, a citation),
                      and around a citation, a name or a list: ``(Smith 1974)``, ``(Ballaro)``, ``(a, b, c)``;
                      never inside a quotation: ``"stalks [her]"``
``punctuation``       repeated marks once: ``!!!`` -> ``!``, ``?!?`` -> ``?`` (a question stays a question),
                      ``,,`` -> ``,``, ``....`` / ``. . .`` -> ``...``
``contractions``      expanded where the reading is fixed: ``don't`` -> ``do not``, ``I'm`` -> ``I am``, ``we'll`` ->
                      ``we will``, ``can't`` -> ``cannot``, ``won't`` -> ``will not``, ``dont`` -> ``do not``;
                      ``'s`` and ``'d`` only before ``been`` (``it's been`` -> ``it has been``)
``variants``          (outside quotations, as ``elongation`` and ``spelling``: a quotation keeps its words)
                      function-word and informal variants to one form: ``whilst`` -> ``while``, ``amongst`` ->
                      ``among``, ``gonna`` -> ``going to``, ``wanna`` -> ``want to``, ``kinda`` -> ``kind of``,
                      ``cuz`` -> ``because``, ``tho`` -> ``though``, ``u`` -> ``you``, ``pls`` -> ``please``,
                      ``ok`` -> ``okay``, ``yeah`` -> ``yes``
``elongation``        stretched words to their dictionary form: ``sooooo`` -> ``so``, ``goood`` -> ``good``,
                      ``hahahaha`` -> ``haha``
``spelling``          British spellings to American ones from a fixed table: ``colour`` -> ``color``,
                      ``realise`` -> ``realize``, ``centre`` -> ``center``, ``travelled`` -> ``traveled``
``numbers``           ``10 %`` / ``10 per cent`` -> ``10%``, ``5pm`` / ``5PM`` / ``5 p.m.`` -> ``5 pm`` (digits and
                      dates are never touched)
``spacing``           one space between words, none before ``, . ; : ! ?`` and one after them before a word,
                      no spaces at line ends, at most one blank line between paragraphs
``casing``            shouted words lower-cased (``GROSS`` -> ``gross``; only common English words of 5+ letters, or
                      shorter ones the text also writes in lower case, so ``US``, ``HR``, ``NASA`` stay), ``i`` ->
                      ``I``, sentence starts capitalised (not ``iPhone``, not after ``p.m.``)
====================  ==========================================================================================

What no rule touches: URLs, e-mail addresses, @handles, text in backticks (code) — they are set aside before the
rules run and put back after. Line breaks and paragraphs are kept (a decoration-only line is the one exception).

The word rules live in :mod:`authorguard.text.normalise.words` (their tables: ``VARIANTS``, ``SPELLING``), the
casing rule in :mod:`authorguard.text.normalise.casing`; this module holds the punctuation rules, the order and
:func:`normalise`.

What it protects against: the *surface* habits that character n-gram, function-word and WritePrints attackers read
(punctuation runs, contractions, casing, spelling variety, emoticons, informal forms). What it does not: the choice
of content words, topics, sentence length and structure, names — the content view's floor
(docs/results/bottleneck.md) is below what any normaliser can reach. docs/results/faithful.md measures both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.text.atoms import HTML_ENTITY_PATTERN, outside_quotations
from authorguard.text.normalise.casing import fix_casing
from authorguard.text.normalise.words import contractions, elongation, spelling, variants


def _unchanged(text: str) -> str:
    return text


@dataclass(frozen=True)
class Rule:
    """One normalisation rule: a name, the text -> text function, one line on what it does, and what it does to
    each span set aside before the rules run (URLs, code, emoticons: left as they are unless it says otherwise)."""

    name: str
    apply: Callable[[str], str]
    help: str
    protected: Callable[[str], str] = _unchanged
    #: whether the rule also rewrites the words inside quotations (False: a quotation keeps its speaker's words)
    in_quotations: bool = True


# ---------------------------------------------------------------------------------------------------------------
# protected spans: set aside before the rules, put back after

_PROTECTED = re.compile(
    r"`[^`\n]+`"  # code in backticks
    r"|\b(?:https?://|www\.)[^\s<>\"]+[^\s<>\".,;:!?)\]]"  # URLs (a final full stop or bracket is not part of it)
    r"|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"  # e-mail addresses
    r"|(?<![\w@])@\w+"  # handles
    r"|<3+|\^_+\^|-_+-|[oO0]_[oO0]|[tT]_[tT]"  # emoticons with no eyes-and-mouth form
    rf"|{HTML_ENTITY_PATTERN}"  # HTML entities ("AT&amp;T")
)
# an emoticon stands alone: not after a letter, digit or mark of its own kind (a ratio "3:2"), not before a letter
# or digit; "8)" is left (a list marker far more often than a face)
_EMOTICON = re.compile(r"(?<![\w:;=])(?:[:;=][-o'^]?[)(\]\[DPpOo3/\\|*]+|[xX]+D+)(?![\w])")
_SLOT = "\ue000{}\ue001"
_SLOT_RE = re.compile("\ue000(\\d+)\ue001")


def _protect(text: str) -> tuple[str, list[str]]:
    kept: list[str] = []

    def hold(match: re.Match) -> str:
        kept.append(match.group(0))
        return _SLOT.format(len(kept) - 1)

    text = _PROTECTED.sub(hold, text)
    return _EMOTICON.sub(hold, text), kept


def _restore(text: str, kept: list[str]) -> str:
    return _SLOT_RE.sub(lambda m: kept[int(m.group(1))], text)


# ---------------------------------------------------------------------------------------------------------------
# the rules

_UNICODE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        # Windows-1252 quotes and dashes read as Latin-1 (C1 control characters that no text means): mojibake
        "\u0091": "'",
        "\u0092": "'",
        "\u0093": '"',
        "\u0094": '"',
        "\u0096": "\u2013",
        "\u0097": "\u2014",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
    }
)
# a dash: an en or em dash anywhere, "--" between two words or spaced, a hyphen spaced on both sides; a hyphen
# before a digit or a letter ("-5", "ls -la", "--help") is a sign or an option, not a dash
_DASH = re.compile(r"[ \t]*[\u2014\u2013\u2015][ \t]*|(?<=\w)--+(?=\w)|[ \t]+--+[ \t]+|(?<=\S)[ \t]+-[ \t]+(?=\S)")


def unicode_punctuation(text: str) -> str:
    """Curly quotes and guillemets -> ``'`` and ``"`` (Windows-1252 quotes and dashes read as C1 control characters
    too); en/em dashes, ``--`` between words and a spaced hyphen ->
    `` - ``; ``…`` -> ``...``; non-breaking spaces -> spaces. A hyphen inside a word (``well-known``), before a
    number (``-5``) or an option (``-la``, ``--help``) is not a dash."""
    text = text.translate(_UNICODE).replace("\u2026", "...")
    return _DASH.sub(" - ", text)


_EMOTICON_FORMS = (
    (re.compile(r"^[:=][-o'^]?[)\]3]+$"), ":)"),
    (re.compile(r"^[:=][-o'^]?[(\[]+$"), ":("),
    (re.compile(r"^;[-o'^]?[)\]D]+$"), ";)"),
    (re.compile(r"^(?:[:=][-o'^]?D+|[xX]+D+)$"), ":D"),
    (re.compile(r"^[:;=][-o'^]?[Pp]+$"), ":P"),
)


def canonical_emoticon(emoticon: str) -> str:
    """One form per feeling (smile, frown, wink, laugh, tongue); any other emoticon as it is."""
    for pattern, form in _EMOTICON_FORMS:
        if pattern.match(emoticon):
            return form
    return emoticon


_DECORATION_LINE = re.compile(r"^[ \t]*[*~=#+_\-<>^\u2022|/\\]{3,}[ \t]*$", re.MULTILINE)
# inline: a run standing alone between spaces; "*" and "_" runs inside a line are text (a rating "*****", a blank
# "___", a censored "f***") and stay
_DECORATION_RUN = re.compile(r"(?<!\S)(?:[~=#+^\u2022][ \t]?){3,}(?!\S)")


def decoration(text: str) -> str:
    """Lines of decoration marks only (``*****``, ``~~~``, ``=-=-=``) are dropped with their line break; a run of
    3+ of ``~ = # + ^`` or bullets standing alone inside a line is dropped. A line of dots is an ellipsis, not
    decoration; ``*`` and ``_`` runs inside a line are text (a rating, a blank, a censored word)."""
    text = _DECORATION_LINE.sub("\ue002", text)
    text = re.sub(r"\ue002\n?", "", text)
    return _DECORATION_RUN.sub(" ", text)


_EMPHASIS = re.compile(r"(?<![\w*])(\*{1,2}|_{1,2}|~)(?=\S)([^*_~\n]{1,80}?)(?<=\S)\1(?![\w*])")


def emphasis(text: str) -> str:
    """Emphasis marks around a span of one line dropped: ``*really*``, ``**this**``, ``_so_``, ``~sigh~``."""
    previous = None
    while previous != text:
        previous, text = text, _EMPHASIS.sub(r"\2", text)
    # an unpaired mark at a word's edge ("*sigh", "wow*"), never one inside a word or a formula ("f***", "(a+b)*c")
    text = re.sub(r"(?:(?<=\s)|^)\*(?=\w)|(?<=\w)\*(?=\s|$)", "", text, flags=re.MULTILINE)
    return text


# a bracketed aside: opened after a space or a line start, closed before a space, a mark or the end, holding a
# letter and no operator; "f(x)", "friend(s)", "(500)", "(a+b)*c" are not asides and stay
_BRACKETS = re.compile(
    r"(?:(?<=\s)|^)[(\[]([^()\[\]\n+*/=<>^]*[^\W\d_][^()\[\]\n+*/=<>^]*)[)\]](?=[\s.,;:!?\"']|$)", re.MULTILINE
)


# an aside whose brackets say something even standing alone: one with a figure (a citation, "Schmitt 1974",
# "pg 327"; "85% or more": without brackets the figure reads as the sentence's own), a list (a comma)
_SAYS_SOMETHING = re.compile(r".*[\d$,]")


def _stands_alone(text: str, match: re.Match) -> bool:
    """Whether a bracketed span is a sentence of its own: nothing before it but a sentence's end (or the text's
    start), and the span ends with its own stop or the text ends after it ("Thank you. (Applause.) Now", "Ha.
    (lol)"). Read from the marks only, not from the casing after it: normalise capitalises later, and the rule must
    give the same answer on its own output."""
    before, after = text[: match.start()].rstrip(), text[match.end() :].strip()
    return (not before or before[-1] in ".!?\"'") and (not after or match.group(1).rstrip()[-1:] in ".!?")


def brackets(text: str) -> str:
    """Round and square brackets dropped around an aside that stands alone as a sentence (``(Applause.)``,
    ``(lol)``); the aside stays where it was. Inside a sentence a bracket marks what the sentence itself does not
    say — a gloss (``"muse" (model)``), an aside (``(and the rest of the world)``), a citation (``(pg 327)``) — and
    without it the span runs into the sentence: there it stays (on a held-out set every dropped one
    was read as damage). Never touched: a bracket inside a word (``friend(s)``, ``f(x)``), a bracketed number
    (``(500)``), a formula (``(a+b)*c``), a list marker (``1)``), and brackets that say something even alone: a
    citation (``(Schmitt 1974, p. 30)``), a figure's aside (``(85% or more)``), a list (a comma inside)."""

    def drop(match: re.Match) -> str:
        aside = match.group(1).strip()
        if _SAYS_SOMETHING.match(aside) or not _stands_alone(text, match):
            return match.group(0)
        return f" {aside} " if aside else " "

    previous = None
    while previous != text:
        previous, text = text, _BRACKETS.sub(drop, text)
    return text


_ELLIPSIS = re.compile(r"\.(?:[ \t]?\.){2,}")
# "!!!", "?!?", "! !"; a "1" typed with "!" ("!!1") only when it touches the marks and no word or bracket
# follows; "," and ";" repeated. Colons are left ("std::vector", "fe80::1").
_MARK_RUN = re.compile(r"[!?](?:[ \t]*[!?])+1*(?![\w)])|[!?]1+(?![\w).])|([,;])(?:[ \t]*\1)+")


def _one_mark(match: re.Match) -> str:
    run = match.group(0)
    if match.group(1):
        return match.group(1)
    return "?" if "?" in run else "!"


def punctuation(text: str) -> str:
    """Repeated marks once: ``!!!`` -> ``!``, ``?!?`` and ``!?`` -> ``?`` (a question stays a question), ``!!1``
    -> ``!``, ``,,`` -> ``,``; any run of dots of three or more (``....``, ``. . .``) -> ``...``. A number after a
    mark (``Wow! 1 person``, ``Why? 1) …``) and colons (``std::vector``) are left."""
    text = _ELLIPSIS.sub("...", text)
    return _MARK_RUN.sub(_one_mark, text)


_PERCENT = re.compile(r"(\d)[ \t]*(?:%|per[ \t]?cent\b|percent\b)", re.IGNORECASE)
# a clock time: "5pm", "5PM", "5p.m.", "5:30 pm", "5 p.m."; a spaced capital "3 AM" may be a name ("AM radio")
_CLOCK = re.compile(r"\b(\d{1,2}(?::\d{2})?)(?:([aApP])\.?[mM]\b\.?|[ \t]([ap])(?:\.m\.|\.m\b|m\b))")


def numbers(text: str) -> str:
    """Number habits to one form: ``10 %``, ``10 per cent`` and ``10 percent`` -> ``10%``; clock times ``5pm``,
    ``5PM``, ``5p.m.``, ``5 p.m.`` -> ``5 pm``. Digits themselves are never touched: thousands separators were
    tried and left out (a ZIP code, a phone or an order number is digits too, and the rule moved no attacker:
    docs/results/faithful.md); dates are left (``03/04`` has two readings)."""
    text = _PERCENT.sub(r"\1%", text)
    return _CLOCK.sub(lambda m: f"{m.group(1)} {(m.group(2) or m.group(3)).lower()}m", text)


_SPACES = re.compile(r"[ \t\f\v]+")
_SPACE_BEFORE = re.compile(r"[ \t]+(?=[,.;:!?](?:\s|$|[\"')]))|[ \t]+(?=[,;:!?]\S)")
_SPACE_AFTER = re.compile(
    r"(?<=[a-z][,;!?])(?=[A-Za-z])|(?<=\w\.\.\.)(?=[A-Za-z])|(?<=[a-z]{2}[.])(?=[A-Z][a-z])|(?<=[A-Za-z][,])(?=[A-Za-z])"
)
_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def spacing(text: str) -> str:
    """One space between words; none before ``, . ; : ! ?``; one after ``, ; ! ?`` (and after a full stop that
    ends a word and is followed by a capitalised word) when a word follows at once; no spaces at the start or end
    of a line; paragraphs separated by one blank line. Numbers (``3.5``, ``1,000``), abbreviations (``U.S.``) and
    times (``10:30``) are left as written."""
    text = _SPACES.sub(" ", text)
    text = _SPACE_BEFORE.sub("", text)
    text = _SPACE_AFTER.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANK_LINES.sub(lambda m: "\n\n" if m.group(0).count("\n") > 1 else "\n", text).strip()


#: every rule, in the order :func:`normalise` runs them
RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule("unicode", unicode_punctuation, "curly quotes, dashes and the ellipsis character to ASCII forms"),
        # emoticons are set aside with the other protected spans (so that no punctuation rule breaks them): this rule
        # rewrites those spans, not the text around them
        Rule(
            "emoticons", _unchanged, "emoticons to one form per feeling (:) :( ;) :D :P)", protected=canonical_emoticon
        ),
        Rule("decoration", decoration, "decoration-only lines and runs of decoration marks dropped"),
        Rule("emphasis", emphasis, "emphasis marks around words dropped (*really*, _so_)"),
        # a quotation's brackets are the quoting writer's ("[it]", "(says he)"): without them the words read as
        # the speaker's (a held-out set's readers)
        Rule(
            "brackets",
            brackets,
            "brackets around an aside that stands alone dropped, the aside kept",
            in_quotations=False,
        ),
        Rule("punctuation", punctuation, "repeated marks once (!!! ?!? ,,), dots to one ellipsis"),
        Rule("contractions", contractions, "contractions with one reading expanded (don't, I'm, we'll)"),
        Rule(
            "variants",
            variants,
            "function-word and informal variants to one form (whilst, gonna, u, ok)",
            in_quotations=False,
        ),
        Rule("elongation", elongation, "stretched words to their dictionary form (sooo, hahaha)", in_quotations=False),
        Rule("spelling", spelling, "British spellings to American ones (colour, realise, centre)", in_quotations=False),
        Rule("numbers", numbers, "percent and clock times to one form (digits never touched)"),
        Rule("spacing", spacing, "spaces around punctuation, between words, and blank lines"),
        Rule("casing", fix_casing, "shouted words lower-cased, i -> I, sentence starts capitalised"),
    )
}


def check_rules(rules: Sequence[str] | str | None) -> tuple[str, ...]:
    """The rule names to run, in :data:`RULES` order: ``None`` or ``"all"`` for every rule, or a sequence (or a
    comma-separated string) of names; an unknown name is a one-line :class:`InputError`."""
    if rules is None or rules == "all":
        return tuple(RULES)
    names = [r.strip() for r in rules.split(",")] if isinstance(rules, str) else list(rules)
    unknown = [name for name in names if name not in RULES]
    if unknown:
        raise InputError(f"unknown normalise rule(s) {', '.join(map(repr, unknown))}; known: {', '.join(RULES)}")
    return tuple(name for name in RULES if name in names)


def normalise(text: str, rules: Sequence[str] | str | None = None) -> str:
    """``text`` with every rule in ``rules`` (default: all of :data:`RULES`) applied in order; URLs, e-mail
    addresses, handles and code are left as written, and emoticons are canonicalised only by the ``emoticons``
    rule.

    >>> normalise("omg i can't believe it!!! We were sooo HAPPY (really) :-)")
    'Oh my god I cannot believe it! We were so happy (really) :)'
    """
    names = check_rules(rules)
    text, kept = _protect(text)
    for name in names:
        rule = RULES[name]
        text = rule.apply(text) if rule.in_quotations else outside_quotations(text, rule.apply)
        kept = [rule.protected(span) for span in kept]
    return _restore(text, kept)
