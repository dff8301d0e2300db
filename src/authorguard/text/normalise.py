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

What it protects against: the *surface* habits that character n-gram, function-word and WritePrints attackers read
(punctuation runs, contractions, casing, spelling variety, emoticons, informal forms). What it does not: the choice
of content words, topics, sentence length and structure, names — the content view's floor
(docs/results/bottleneck.md) is below what any normaliser can reach. docs/results/faithful.md measures both.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.text.atoms import outside_quotations


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
    without it the span runs into the sentence: there it stays (issue 65's fourth held-out set: every dropped one
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


# contractions whose reading is fixed; the apostrophe-less forms only where no English word is spelled that way
_FIXED_CONTRACTIONS = {
    "can't": "cannot",
    "won't": "will not",
    "shan't": "shall not",
    "i'm": "I am",
    "let's": "let us",
    "y'all": "you all",
    "ya'll": "you all",
    "dont": "do not",
    "doesnt": "does not",
    "didnt": "did not",
    "isnt": "is not",
    "wasnt": "was not",
    "arent": "are not",
    "werent": "were not",
    "havent": "have not",
    "hasnt": "has not",
    "hadnt": "had not",
    "couldnt": "could not",
    "wouldnt": "would not",
    "shouldnt": "should not",
    "mustnt": "must not",
    "youre": "you are",
    "theyre": "they are",
}
# Left out, each with a second reading: "im" (IM, instant messaging), "ive" (Ive, a name), "cant" (a word),
# "wont" (a word), "thats" / "whats" (that is or that has), "ain't" (am / is / are / has / have not).
_LEFT_AS_WRITTEN = frozenset({"ain't"})
_SUFFIXES = {"n't": " not", "'re": " are", "'ve": " have", "'ll": " will", "'m": " am"}
_APOSTROPHE_WORD = re.compile(r"\b[A-Za-z]+(?:n't|'[A-Za-z]{1,2})\b|\b[A-Za-z]+\b")


def _match_case(replacement: str, original: str) -> str:
    if original.isupper() and len(original) > 1 and replacement != "I":
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def _expand_contraction(match: re.Match) -> str:
    word = match.group(0)
    lower = word.lower()
    if lower in _LEFT_AS_WRITTEN:
        return word
    if lower in _FIXED_CONTRACTIONS:
        return _match_case(_FIXED_CONTRACTIONS[lower], word)
    for suffix, expansion in _SUFFIXES.items():
        if lower.endswith(suffix) and len(lower) > len(suffix):
            stem = word[: -len(suffix)]
            if stem.lower() == "i":
                stem = "I"
            tail = expansion.upper() if word.isupper() and len(word) > 2 else expansion
            return stem + tail
    return word


_BEEN = re.compile(r"\b([A-Za-z]+)'([sd])(\s+been)\b", re.IGNORECASE)


def contractions(text: str) -> str:
    """Contractions expanded where the reading is fixed (``n't``, ``'re``, ``'ve``, ``'ll``, ``'m``, ``can't``,
    ``won't``, the apostrophe-less ``dont`` / ``didnt`` / ``youre`` …); ``'s`` and ``'d`` only before ``been``, where
    they can only be *has* and *had*; every other ``'s`` (*is*, *has* or a possessive) and ``'d`` (*had* or
    *would*) is left as written."""
    text = _BEEN.sub(lambda m: m.group(1) + (" has" if m.group(2).lower() == "s" else " had") + m.group(3), text)
    return _APOSTROPHE_WORD.sub(_expand_contraction, text)


#: informal and function-word variants -> one form (single words only; each a variant of the same word or phrase)
VARIANTS = {
    "whilst": "while",
    "amongst": "among",
    "amidst": "amid",
    "unto": "to",
    "gonna": "going to",
    "wanna": "want to",
    "gotta": "got to",
    "kinda": "kind of",
    "sorta": "sort of",
    "outta": "out of",
    "lotta": "lot of",
    "dunno": "do not know",
    "lemme": "let me",
    "gimme": "give me",
    "cuz": "because",
    "coz": "because",
    "bc": "because",
    "b/c": "because",
    "tho": "though",
    "altho": "although",
    "thru": "through",
    "til": "until",
    "u": "you",
    "pls": "please",
    "plz": "please",
    "thx": "thanks",
    "thanx": "thanks",
    "ppl": "people",
    "b4": "before",
    "ok": "okay",
    "kk": "okay",
    "alright": "all right",
    "yeah": "yes",
    "yea": "yes",
    "yep": "yes",
    "yup": "yes",
    "nope": "no",
    "nah": "no",
    "wat": "what",
    "wut": "what",
    "dat": "that",
    "abt": "about",
    "w/": "with",
    "w/o": "without",
    "smth": "something",
    "sth": "something",
    "bday": "birthday",
    "nite": "night",
    "tonite": "tonight",
    "gf": "girlfriend",
    "bf": "boyfriend",
    "fav": "favorite",
    "fave": "favorite",
    "prolly": "probably",
    "srsly": "seriously",
    "jk": "just kidding",
    "idk": "I do not know",
    "imo": "in my opinion",
    "imho": "in my opinion",
    "btw": "by the way",
    "omg": "oh my god",
    "tbh": "to be honest",
    "rly": "really",
}
# Left out on purpose, each has a second reading: "cause" (a noun), "def", "ur" (*your* or *you're*), "till" (a
# cash till), "cos" (the cosine), "k" (a thousand), "dis" (a verb), "bro" (a brother or a friend).
_VARIANT = re.compile(
    r"(?<![\w'/-])(" + "|".join(sorted(map(re.escape, VARIANTS), key=len, reverse=True)) + r")(?![\w'/-])",
    re.IGNORECASE,
)


def variants(text: str) -> str:
    """Informal and function-word variants to one form (:data:`VARIANTS`): ``whilst`` -> ``while``, ``gonna`` ->
    ``going to``, ``u`` -> ``you``, ``ok`` -> ``okay`` … Only the lower-case and the capitalised forms are read: in
    capitals a variant may be a name or an acronym (``U``, ``OK Computer``, ``the IMO rules``) and is left; next to
    a hyphen it is part of a word (``u-turn``)."""

    def replace(match: re.Match) -> str:
        word = match.group(0)
        if word.isupper() and (len(word) > 1 or word == "U"):
            return word
        expansion = VARIANTS[word.lower()]
        return expansion[:1].upper() + expansion[1:] if word[:1].isupper() else expansion

    return _VARIANT.sub(replace, text)


@functools.lru_cache(maxsize=100_000)
def _known(word: str) -> bool:
    from authorguard.text.resources import english_stop_words, wordnet

    return word in english_stop_words() or bool(wordnet().synsets(word))


_STRETCHED = re.compile(r"\b[^\W\d_]*([^\W\d_])\1{2,}[^\W\d_]*\b")
_LAUGH = re.compile(r"\b(?:(?:h[aeiou]){3,}h?|(?:[aeiou]h){3,})\b", re.IGNORECASE)
_RUN = re.compile(r"([^\W\d_])\1{2,}")


@functools.lru_cache(maxsize=100_000)
def _unstretched(word: str) -> str:
    runs = list(_RUN.finditer(word))
    lower = word.lower()
    # try every way of cutting each run to two or one letters; the first known word wins (two letters first)
    for counts in itertools.product((2, 1), repeat=len(runs)):
        pieces, end = [], 0
        for run, count in zip(runs, counts):
            pieces.append(lower[end : run.start()] + run.group(1).lower() * count)
            end = run.end()
        candidate = "".join(pieces) + lower[end:]
        if _known(candidate):
            break
    else:
        candidate = _RUN.sub(lambda m: m.group(1).lower() * 2, lower)
    if word.isupper():
        return candidate.upper()
    return candidate[:1].upper() + candidate[1:] if word[:1].isupper() else candidate


_ROMAN = re.compile(r"^[IVXLCDM]+$")


def elongation(text: str) -> str:
    """Stretched words to their dictionary form: a letter repeated three or more times is cut to two or one,
    whichever gives a word WordNet or the stop-word list knows (``sooo`` -> ``so``, ``goood`` -> ``good``); laughter
    to one form (``hahahaha`` -> ``haha``). A stretched word with no known form keeps two letters per run. Roman
    numerals (``III``) and words of one letter repeated (``AAA``, ``KKK``, ``zzz``: names, grades, sounds) are
    left."""
    text = _LAUGH.sub(lambda m: _match_case("haha", m.group(0)), text)
    return _STRETCHED.sub(
        lambda m: (
            m.group(0) if _ROMAN.match(m.group(0)) or len(set(m.group(0).lower())) == 1 else _unstretched(m.group(0))
        ),
        text,
    )


#: British -> American spellings (a fixed table: a suffix rule would turn ``four`` into ``for``)
SPELLING = dict(
    pair.split(":")
    for pair in [
        "colour:color",
        "colours:colors",
        "coloured:colored",
        "colourful:colorful",
        "favour:favor",
        "favours:favors",
        "favoured:favored",
        "favourite:favorite",
        "favourites:favorites",
        "honour:honor",
        "honours:honors",
        "honoured:honored",
        "humour:humor",
        "labour:labor",
        "neighbour:neighbor",
        "neighbours:neighbors",
        "neighbourhood:neighborhood",
        "behaviour:behavior",
        "behaviours:behaviors",
        "flavour:flavor",
        "flavours:flavors",
        "harbour:harbor",
        "rumour:rumor",
        "rumours:rumors",
        "vapour:vapor",
        "savour:savor",
        "armour:armor",
        "endeavour:endeavor",
        "parlour:parlor",
        "splendour:splendor",
        "vigour:vigor",
        "odour:odor",
        "glamour:glamor",
        "centre:center",
        "centres:centers",
        "centred:centered",
        "theatre:theater",
        "theatres:theaters",
        "metre:meter",
        "metres:meters",
        "litre:liter",
        "litres:liters",
        "fibre:fiber",
        "spectre:specter",
        "sombre:somber",
        "calibre:caliber",
        "realise:realize",
        "realised:realized",
        "realises:realizes",
        "realising:realizing",
        "organise:organize",
        "organised:organized",
        "organising:organizing",
        "organisation:organization",
        "organisations:organizations",
        "recognise:recognize",
        "recognised:recognized",
        "recognising:recognizing",
        "apologise:apologize",
        "apologised:apologized",
        "apologising:apologizing",
        "criticise:criticize",
        "criticised:criticized",
        "emphasise:emphasize",
        "emphasised:emphasized",
        "summarise:summarize",
        "memorise:memorize",
        "prioritise:prioritize",
        "specialise:specialize",
        "specialised:specialized",
        "sympathise:sympathize",
        "utilise:utilize",
        "finalise:finalize",
        "minimise:minimize",
        "maximise:maximize",
        "customise:customize",
        "analyse:analyze",
        "analysed:analyzed",
        "analysing:analyzing",
        "paralyse:paralyze",
        "paralysed:paralyzed",
        "travelled:traveled",
        "travelling:traveling",
        "traveller:traveler",
        "travellers:travelers",
        "cancelled:canceled",
        "cancelling:canceling",
        "labelled:labeled",
        "modelling:modeling",
        "modelled:modeled",
        "fuelled:fueled",
        "counselling:counseling",
        "jewellery:jewelry",
        "marvellous:marvelous",
        "woollen:woolen",
        "defence:defense",
        "offence:offense",
        "licence:license",
        "pretence:pretense",
        "grey:gray",
        "greys:grays",
        "catalogue:catalog",
        "dialogue:dialog",
        "analogue:analog",
        "programme:program",
        "programmes:programs",
        "cheque:check",
        "cheques:checks",
        "tyre:tire",
        "tyres:tires",
        "kerb:curb",
        "plough:plow",
        "sceptical:skeptical",
        "sceptic:skeptic",
        "aluminium:aluminum",
        "aeroplane:airplane",
        "manoeuvre:maneuver",
        "oestrogen:estrogen",
        "paediatric:pediatric",
        "encyclopaedia:encyclopedia",
        "judgement:judgment",
        "acknowledgement:acknowledgment",
        "ageing:aging",
        "enrol:enroll",
        "enrolment:enrollment",
        "fulfil:fulfill",
        "skilful:skillful",
        "wilful:willful",
        "instalment:installment",
        "practise:practice",
        "practised:practiced",
    ]
)
# lower-case words only: a capitalised one may be a name ("the Labour Party", "Earl Grey", "Ministry of Defence")
_SPELLING = re.compile(r"(?<![\w-])(" + "|".join(sorted(SPELLING, key=len, reverse=True)) + r")(?![\w-])")


def spelling(text: str) -> str:
    """British spellings to American ones from the fixed table :data:`SPELLING`, lower-case words only (a
    capitalised word may be part of a name: *the Labour Party*, *Earl Grey*)."""
    return _SPELLING.sub(lambda m: SPELLING[m.group(0)], text)


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


def casing(text: str) -> str:
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
        # the speaker's (issue 65's third held-out set)
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
        Rule("casing", casing, "shouted words lower-cased, i -> I, sentence starts capitalised"),
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
    'Oh my god I cannot believe it! We were so happy really :)'
    """
    names = check_rules(rules)
    text, kept = _protect(text)
    for name in names:
        rule = RULES[name]
        text = rule.apply(text) if rule.in_quotations else outside_quotations(text, rule.apply)
        kept = [rule.protected(span) for span in kept]
    return _restore(text, kept)
