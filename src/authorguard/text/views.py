"""Style-free views of a text: deterministic text -> text functions that keep what a text says, not how.

A view is what the style bottleneck (:mod:`authorguard.methods.bottleneck`) lets its generator see. Everything a
view drops — function words, punctuation, casing, contractions, spelling of inflections, the choice among
synonyms — can never reach the output, whatever the generator does (data processing); everything a view keeps is
a floor no meaning-preserving rewrite goes below (docs/results/bottleneck.md measures it per corpus).

Views, from finest to coarsest (each is a function of the one before it, so their privacy is ordered):

- ``content``: the content words in order. A token is dropped when it is one of NLTK's English stop words
  (function words: pronouns, determiners, prepositions, auxiliaries, conjunctions) unless it carries meaning a
  reader needs: a negation (``not``, ``no``, ``never`` …; ``n't`` is read as ``not``), a modal (``can``,
  ``will``, ``should`` …; ``'ll`` as ``will``) or a quantifier (``all``, ``some``, ``more`` …). Numbers stay as
  written. Names stay as written: a capitalised token inside a sentence, or one starting a sentence that is not
  a known lower-case word (WordNet or a stop word); every other token is lower-cased. Punctuation is dropped;
  each sentence end becomes one fixed marker (:data:`SENTENCE_MARK`), so the view keeps the sentence count.
- ``content-minimal``: the words outside the stop-word list, lower-cased, no marker, nothing kept back — the
  view the issue's first floor table measured; here to measure what ``content``'s kept words cost.
- ``lemma``: ``content`` with every word lower-cased and lemmatised (:func:`~authorguard.text.analysis.lemmatize`).
- ``roles``: who does what — every word, the articles (:data:`FREE_WORDS`) marked optional
  (:data:`~authorguard.text.atoms.OPTIONAL_MARK`: a constrained realiser writes the text's own article there or
  none, and is shown the view without them), so the demonstratives, personal pronouns, prepositions, connectives, auxiliaries and question words stay, in
  order; contractions read out (``didn't`` -> ``did not``, ``we're`` -> ``we are``, ``he's`` -> ``he is``, a
  possessive kept whole: ``Anna's``), names and numbers as written, every other word lower-cased, sentence ends as
  :data:`SENTENCE_MARK` — read from the text after :func:`~authorguard.text.normalise.normalise` (spelling
  variants, elongation and shouting are style). It keeps more than ``content`` and is not ordered with it.
- ``canonical``: ``lemma`` with each word replaced by the representative of its most frequent WordNet sense
  (:func:`canonical_word`): synonyms collapse (``kid`` -> ``child``, ``big`` -> ``large``, ``movie`` ->
  ``film``), so the *choice* among them — a stylistic habit — is gone. WordNet rather than embedding clusters:
  GloVe neighbours are related words, often antonyms (``good``/``bad``), which would change the meaning.

Examples (``content``)::

    >>> content_view("I didn't like the movie, honestly. It was way too long!")
    'not like movie honestly | way long'
    >>> content_view("We met Anna in Paris on 3 May.")
    'met Anna Paris 3 may'
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.text.analysis import lemmatize
from authorguard.text.atoms import (
    ATOM_SPACE,
    CARDINALS,
    OPTIONAL_MARK,
    ends_sentence,
    hold_quotations,
    is_atom,
    is_bound_article,
    is_optional,
    is_quotation,
    split_token,
    without_optional_marks,
)
from authorguard.text.resources import english_stop_words, wordnet

#: the marker a view puts between sentences
SENTENCE_MARK = "|"
#: the last token of a question in the roles view: a question is not a statement (a constrained realiser ends
#: that sentence with "?", every other with ".")
QUESTION_MARK = "?"

#: function words a view keeps, by group: they carry meaning a reader needs (docs/results/bottleneck.md measures
#: what keeping them costs in privacy)
KEPT_FUNCTION_WORDS = {
    "negation": frozenset({"not", "no", "nor", "never", "nothing", "nobody", "none", "nowhere", "neither", "cannot"}),
    "modal": frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"}),
    "quantifier": frozenset({"all", "any", "both", "each", "few", "more", "most", "some", "only", "again"}),
}
_KEPT = frozenset().union(*KEPT_FUNCTION_WORDS.values())
# contraction endings: what a view reads them as ("" = a function word, dropped)
_CONTRACTIONS = {"n't": "not", "'ll": "will", "'s": "", "'re": "", "'ve": "", "'m": "", "'d": ""}
_IRREGULAR_NEGATIONS = {
    "can't": ("can", "not"),
    "won't": ("will", "not"),
    "shan't": ("shall", "not"),
    "cannot": ("can", "not"),
    "ain't": ("not",),
}
#: the words the ``roles`` view marks optional: a constrained realiser (:mod:`authorguard.generation.constraints`)
#: writes each as the text had it, or leaves it out — the article slot. The articles alone: nothing else chosen
#: freely is safe — issue 65 measured demonstratives, "very" and "such" as free words on held-out text, and most
#: damaged outputs were those ("This answers" -> "The answers", "To this end" -> "To end"); then articles chosen
#: freely, on the third held-out set: "the major voice" -> "a major voice", "a higher rates". An article that is
#: part of a figure or a quantity ("$1 a share", "a few"), or that a reader needs where it stands, is a required
#: view word (:func:`~authorguard.text.atoms.is_bound_article`).
FREE_WORDS = frozenset({"a", "an", "the"})
# NLTK stop-word entries that are pieces of split contractions ("didn", "ll"), never whole words of a text
_STOP_WORD_PIECES = frozenset(
    {
        "ain",
        "aren",
        "couldn",
        "d",
        "didn",
        "doesn",
        "don",
        "hadn",
        "hasn",
        "haven",
        "isn",
        "ll",
        "m",
        "ma",
        "mightn",
        "mustn",
        "needn",
        "o",
        "re",
        "s",
        "shan",
        "shouldn",
        "t",
        "ve",
        "wasn",
        "weren",
        "won",
        "wouldn",
        "y",
    }
)
# what "'s" / "'d" read as after a pronoun-like word in the roles view ("has" / "had" before "been" or "got")
_PRONOUN_S = frozenset(
    {
        "he",
        "she",
        "it",
        "that",
        "there",
        "what",
        "who",
        "here",
        "where",
        "how",
        "when",
        "why",
        "this",
        "everyone",
        "everybody",
        "someone",
        "somebody",
        "nobody",
        "nothing",
        "everything",
        "something",
        "let",
    }
)
# past participles after which "'s" reads "has" and "'d" reads "had" (before any other word: "is" / "would")
_PARTICIPLES = frozenset(
    {
        "been",
        "got",
        "gotten",
        "had",
        "seen",
        "taken",
        "given",
        "made",
        "written",
        "eaten",
        "driven",
        "spoken",
        "chosen",
        "forgotten",
        "begun",
        "become",
        "known",
        "heard",
        "told",
        "said",
        "found",
        "left",
        "lost",
        "won",
        "bought",
        "brought",
        "thought",
        "sent",
        "spent",
        "kept",
        "felt",
        "met",
        "gone",
        "come",
    }
)
_ROLES_CONTRACTIONS = {"n't": "not", "'ll": "will", "'re": "are", "'ve": "have", "'m": "am"}
# a word (letters, inner apostrophes) or a number (digits with inner . , :)
_TOKEN = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*|\d+(?:[.,:]\d+)*")
_PARAGRAPHS = re.compile(r"\n\s*\n")
_HARD_WRAP = re.compile(r"(?<![\n])[ \t]*\n[ \t]*(?![\n])")


@functools.cache
def _splitter():
    from authorguard.text.sentences import SentenceSplitter

    return SentenceSplitter()


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences: paragraphs (blank lines), then Punkt without training."""
    out: list[str] = []
    for paragraph in _PARAGRAPHS.split(text):
        if paragraph.strip():
            out.extend(_splitter().split(paragraph) or [paragraph.strip()])
    return out


def _expand(token: str) -> list[str]:
    """A token with its contraction read: ``didn't`` -> [``did``, ``not``], ``we'll`` -> [``we``, ``will``]."""
    token = token.replace("\u2019", "'")
    lower = token.lower()
    if lower in _IRREGULAR_NEGATIONS:
        return list(_IRREGULAR_NEGATIONS[lower])
    for ending, reading in _CONTRACTIONS.items():
        if lower.endswith(ending) and len(lower) > len(ending):
            return [token[: -len(ending)]] + ([reading] if reading else [])
    return [token]


@functools.lru_cache(maxsize=200_000)
def _known_lower(word: str) -> bool:
    return word in english_stop_words() or bool(wordnet().synsets(word))


def _is_name(token: str, first: bool) -> bool:
    """A name is kept as written: capitalised (not all capitals: shouting is style) inside a sentence, or at its
    start when the lower-case word is unknown."""
    if not token[0].isupper() or token.isupper() and len(token) > 1:
        return False
    return not first or not _known_lower(token.lower())


def _content_words(sentence: str, keep: frozenset, names: bool) -> list[str]:
    words: list[str] = []
    for position, raw in enumerate(_TOKEN.findall(sentence)):
        for token in _expand(raw):
            if not token:
                continue
            lower = token.lower()
            if lower in english_stop_words() and lower not in keep:
                continue
            if lower in ("s", "t", "d", "ll", "m", "re", "ve"):  # pieces of split contractions
                continue
            words.append(token if names and (token[0].isdigit() or _is_name(token, position == 0)) else lower)
    return words


def _join(parts: list[list[str]], mark: bool) -> str:
    parts = [p for p in parts if p]
    return f" {SENTENCE_MARK} ".join(" ".join(p) for p in parts) if mark else " ".join(w for p in parts for w in p)


def content_view(text: str) -> str:
    """The content words in order, names and numbers as written, sentence ends as :data:`SENTENCE_MARK`."""
    return _join([_content_words(s, _KEPT, True) for s in sentences(text)], True)


def content_minimal_view(text: str) -> str:
    """The words outside the stop-word list, lower-cased, in order, no sentence marks."""
    return _join([_content_words(s, frozenset(), False) for s in sentences(text)], False)


def _roles_expand(token: str, following: str) -> list[str]:
    """A token of the roles view with its contraction read out; a possessive (``Anna's``, ``dog's``) stays whole."""
    token = token.replace("\u2019", "'")
    lower = token.lower()
    if lower in _IRREGULAR_NEGATIONS:
        return list(_IRREGULAR_NEGATIONS[lower]) if lower != "ain't" else ["is", "not"]
    for ending, reading in _ROLES_CONTRACTIONS.items():
        if lower.endswith(ending) and len(lower) > len(ending):
            return [token[: -len(ending)], reading]
    after = following.lower()
    perfect = after in _PARTICIPLES
    if lower.endswith("'d") and after.endswith("ed"):  # "he'd left", "they'd finished": had; "he'd go": would
        perfect = True
    if lower.endswith("'s") and len(lower) > 2:
        base = token[:-2]
        if base.lower() in _PRONOUN_S:
            if base.lower() == "let":
                return [base, "us"]
            if not perfect and _participle(after) or base.lower() in _POSSESSIVE_PRONOUNS and _noun(after):
                # "it's called" (is) or "it's happened" (has); "everyone's wages" (a possessive) or "everyone's
                # here": the reading is a guess, so the token is copied as written
                return [token]
            return [base, "has" if perfect else "is"]
        return [token]  # a possessive
    if lower.endswith("'d") and len(lower) > 2:
        return [token[:-2], "had" if perfect else "would"]
    return [token]


@functools.lru_cache(maxsize=100_000)
def _is_acronym(word: str) -> bool:
    """A word in capitals that WordNet writes so ("WHO", "IRA", "US") or that is no English word in lower case
    ("NFL", "MSF"): its case is its meaning ("the WHO" is not "the who"). A shouted word ("LOUD") is lower-cased
    like any other."""
    if len(word) < 2 or not word.isupper() or not word.isalpha():
        return False
    return not _known_lower(word.lower()) or any(
        lemma.name() == word for synset in wordnet().synsets(word) for lemma in synset.lemmas()
    )


#: pronouns whose "'s" may be a possessive ("everyone's wages")
_POSSESSIVE_PRONOUNS = frozenset({"everyone", "everybody", "someone", "somebody", "nobody"})


def _participle(word: str) -> bool:
    """A past participle by its form ("called", "happened", "taken"): after "'s" it reads "is" (passive) or "has"
    (perfect), which the form does not tell."""
    return len(word) > 3 and word.endswith(("ed", "en")) and word not in ("even", "seven", "often", "garden")


@functools.lru_cache(maxsize=100_000)
def _noun(word: str) -> bool:
    """A word WordNet knows as a noun ("wages"; not "here", "happy"): after "everyone's" it may be owned."""
    return word.isalpha() and any(s.pos() == "n" for s in wordnet().synsets(word))


def _following(tokens: list[str], position: int) -> str:
    """The next token after ``position`` that is not a determiner or an adverb standing between an auxiliary and its
    verb ("he's *just* arrived"): what decides "'s" = is / has."""
    for token in tokens[position + 1 :]:
        if token.lower() not in DETERMINERS and token.lower() not in (
            "such",
            "very",
            "already",
            "never",
            "always",
            "ever",
            "also",
            "really",
            "still",
        ):
            return token
    return ""


#: determiners: at most one in a gap of free words, and none right before a word that is one (or a possessive, a
#: pronoun, a quantifier): "the this", "a a", "the my" are loops, never English
DETERMINERS = frozenset({"a", "an", "the", "this", "that", "these", "those"})
NO_ARTICLE_BEFORE = DETERMINERS | frozenset(
    [
        "my",
        "your",
        "his",
        "her",
        "its",
        "our",
        "their",
        "whose",
        "some",
        "any",
        "no",
        "every",
        "each",
        "all",
        "both",
        "either",
        "neither",
        "much",
        "many",
        "several",
        "i",
        "me",
        "we",
        "us",
        "you",
        "he",
        "him",
        "she",
        "they",
        "them",
        "it",
        "what",
        "which",
        "who",
        "whom",
        "such",
        # words no article stands before: prepositions, conjunctions, auxiliaries ("paint peels the off", "both the
        # of the cases", "bring a with me" — issue 65's held-out garbles); the ones that are nouns or adjectives
        # too ("the will", "a can", "the down payment", "the after party") are left out
        "of",
        "in",
        "on",
        "at",
        "to",
        "from",
        "with",
        "by",
        "for",
        "about",
        "into",
        "onto",
        "upon",
        "through",
        "between",
        "among",
        "against",
        "during",
        "without",
        "within",
        "across",
        "toward",
        "towards",
        "than",
        "as",
        "via",
        "and",
        "or",
        "but",
        "nor",
        "if",
        "because",
        "although",
        "though",
        "while",
        "whether",
        "unless",
        "since",
        "until",
        "is",
        "are",
        "was",
        "were",
        "am",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "does",
        "did",
        "not",
        "shall",
        "should",
        "would",
        "could",
        "there",
        "then",
        "also",
        "too",
        "where",
        "when",
        "why",
        "how",
        "once",
    ]
)
#: view words after which no free determiner stands: a determiner ("the this", "a a"; "that" is left — a conjunction
#: as often: "said that the plan failed") and "very" ("very the")
_NO_DETERMINER_AFTER = frozenset({"a", "an", "the", "this", "these", "those", "very"})
#: the quantities "a" changes: "few cities" and "a few cities" say different things (the text's own "a" is a view
#: word: :func:`~authorguard.text.atoms.is_bound_article`)
_NO_FREE_A_BEFORE = frozenset({"few", "little"})


@dataclass(frozen=True)
class RolesPiece:
    """One word of a sentence as the roles view reads it: the word as the view writes it (its punctuation
    attached; a quotation with :data:`~authorguard.text.atoms.ATOM_SPACE` for its spaces), whether it is a free
    word, and the whitespace token of the normalised text it came from ("" for a contraction's first piece)."""

    word: str
    free: bool
    source: str


#: the punctuation the roles view keeps around a word: what groups a sentence's parts and marks who said what (list
#: and appositive commas, a semicolon or colon, an aside's brackets, quotation marks, single or double). Stops go to the sentence
#: marks; ellipses, exclamations, emoticons, decoration are style (docs/results/faithful.md, issue 65, measures the
#: cost of each).
KEPT_PUNCTUATION = frozenset(",;:()\"'")
#: a token of punctuation alone that the roles view keeps: a dash around an aside, and the symbols that say
#: something ("$ 8.40", "A & B", "x = 5")
KEPT_MARKS = frozenset({"-", "$", "\u00a3", "\u20ac", "\u00a5", "%", "&", "+", "#", "/", "="})


def _meaningful(lead: str, core: str, trail: str) -> tuple[str, str, str]:
    """A token's parts with only :data:`KEPT_PUNCTUATION` around its core ("" core: a mark the view leaves out)."""
    if not any(ch.isalnum() for ch in core) and ATOM_SPACE not in core:
        return ("", core, "") if core in KEPT_MARKS else ("", "", "")
    keep = "".join
    return keep(c for c in lead if c in KEPT_PUNCTUATION), core, keep(c for c in trail if c in KEPT_PUNCTUATION)


def _roles_pieces(sentence: str) -> list[RolesPiece]:
    """A sentence (quotations held: :func:`~authorguard.text.atoms.hold_quotations`) read for the roles view. A
    whitespace token's core is copied as written when it is an atom (a quotation, a number with what is attached,
    an abbreviation, a word with inner punctuation), else its contraction is read out and it is lower-cased unless
    a name; the punctuation around it stays attached; the sentence's final stop is left to the sentence mark. A
    free word (an article) has no punctuation attached; an article of a rate or a quantity ("$1 a share", "a few"),
    or one the constraint could not write where it stands (before a number or a word that names no thing), is
    not free."""
    tokens = sentence.split()
    parts = [_meaningful(*split_token(t)) for t in tokens]
    kept = [i for i, (_, core, _) in enumerate(parts) if core]
    if kept:  # a sentence's last word keeps no comma or colon: the sentence mark ends it
        lead, core, trail = parts[kept[-1]]
        parts[kept[-1]] = (lead, core, trail.rstrip(",;:"))
    first = kept[0] if kept else 0  # the sentence's first word (a dropped emoticon before it does not count)
    capitals = {i for i, (_, core, _) in enumerate(parts) if len(core) > 1 and core.isalpha() and core.isupper()}

    def shouting(position: int) -> bool:
        return position - 1 in capitals or position + 1 in capitals

    cores = [core for _, core, _ in parts]
    out: list[RolesPiece] = []
    for position, (token, (lead, core, trail)) in enumerate(zip(tokens, parts)):
        if not core:  # a mark that carries no meaning (an emoticon, "...", "~*~"): style, left out of the view
            out.append(RolesPiece("", True, token))
            continue
        lower = core.lower()
        # a capital "A" inside a sentence is a name ("Vitamin A", "plan A"), not the article
        name_a = core == "A" and position != first
        if not lead and not trail and lower in FREE_WORDS and not name_a and not is_bound_article(cores, position):
            # an article the constraint could not put back here is the text's own: a view word ("the once great",
            # "in the 1970s", "the \"Great Society\"")
            previous = next((p.word for p in reversed(out) if not p.free), "")
            following = next((c for c in cores[position + 1 :] if c), "")
            if not following or free_word_allowed(lower, (), previous) and word_after_gap_allowed(following, (lower,)):
                out.append(RolesPiece(lower, True, token))
                continue
        if is_quotation(core) or is_atom(core) or not any(ch.isalnum() for ch in core):
            out.append(RolesPiece(lead + core + trail, False, token))
            continue
        following = _following(cores, position)
        pieces = [
            p for p in _roles_expand(core, following) if p.lower() not in ("s", "t", "d", "ll", "m", "re", "ve")
        ] or [core]
        for number, piece in enumerate(pieces):
            word = (
                "I"
                if piece.lower() == "i"
                else piece
                if piece[0].isdigit()
                # an acronym, unless a function word shouted with its neighbours ("I LOVE IT", "HELP US": style)
                or _is_acronym(piece)
                and not (piece.lower() in english_stop_words() and shouting(position))
                or _is_name(piece, position == first and number == 0)
                else piece.lower()
            )
            word = (lead if number == 0 else "") + word + (trail if number == len(pieces) - 1 else "")
            out.append(RolesPiece(word, False, token if number == len(pieces) - 1 else ""))
    return out


def _normalised(text: str) -> str:
    """The text through every rule of :func:`~authorguard.text.normalise.normalise` (meaning kept: 100 of 100
    blind-labelled faithful, docs/results/faithful.md): spelling variants, elongation, shouting go before the view."""
    from authorguard.text.normalise import normalise

    # a single line break inside a paragraph is layout (20 Newsgroups wraps at ~72 characters), not a sentence start
    return normalise(_HARD_WRAP.sub(" ", text))


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().rstrip("\"')]").endswith("?")


def _at_spaces(text: str, parts: list[str]) -> list[str]:
    """Sentences cut only at whitespace: a cut inside a token (Punkt ends a sentence at '."' even inside a held
    quotation) is undone."""
    out: list[str] = []
    position = 0
    for part in parts:
        start = text.find(part, position)
        if out and start > 0 and not text[start - 1].isspace():
            out[-1] += part
        else:
            out.append(part)
        position = max(position, start + len(part)) if start >= 0 else position
    return out


#: titles before a name: the sentence goes on after them ("Mr. Brown went home")
_TITLES = frozenset({"mr", "mrs", "ms", "dr", "prof", "gen", "gov", "sen", "rep", "col", "lt", "sgt", "capt", "st"})
_ELLIPSIS_BREAK = re.compile(r"(?<=\.\.\.)\s+(?=[\"(]?[A-Z])")


def _whole_sentences(parts: list[str]) -> list[str]:
    """Sentences with the splitter's cuts after an abbreviation undone — a part that starts with a lower-case
    letter after one that ends with an abbreviation ("in the U.S. | in the 1970s") is the same sentence — and cut
    where an ellipsis ends one ("Damn it... School has become a drag": the view drops the ellipsis, its break
    stays)."""
    out: list[str] = []
    for part in (piece for whole in parts for piece in _ELLIPSIS_BREAK.split(whole)):
        last = split_token(out[-1].split()[-1])[1] if out and out[-1].split() else ""
        if out and (part[:1].islower() and is_atom(last) or last.lower().rstrip(".") in _TITLES):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def roles_sentences(text: str) -> list[tuple[list[RolesPiece], bool]]:
    """``text`` normalised, its quotations held, cut into sentences, each read as :class:`RolesPiece` s, with
    whether it is a question. Sentences without a view word are left out."""
    out = []
    held = hold_quotations(_normalised(without_optional_marks(text)))
    for sentence in _whole_sentences(_at_spaces(held, sentences(held))):
        pieces = _roles_pieces(sentence)
        if any(not p.free for p in pieces):
            out.append((pieces, _is_question(sentence)))
    return out


def roles_view(text: str) -> str:
    """Every word, an article (:data:`FREE_WORDS`) marked optional (``"\u2e3dthe"``), contractions read out,
    names, numbers and atoms (quotations, units, abbreviations: :mod:`authorguard.text.atoms`) as written, the
    punctuation inside a sentence attached to its word, the rest lower-cased, sentence ends as
    :data:`SENTENCE_MARK`, a question's end as :data:`QUESTION_MARK` too: who does what to whom, when and how,
    without the casing, contractions or layout it was written with."""
    return _roles_view_of(roles_sentences(text))


def _roles_view_of(read: list[tuple[list[RolesPiece], bool]]) -> str:
    parts = []
    for pieces, question in read:
        # an article: optional, the text's own ("\u2e3dthe"); a mark without meaning (word ""): left out
        words = [OPTIONAL_MARK + p.word if p.free else p.word for p in pieces if p.word]
        if question:
            words.append(QUESTION_MARK)
        parts.append(words)
    return _join(parts, True)


def roles_sources(text: str) -> list[str]:
    """For each token of ``roles_view(text).split()``, the stretch of the normalised text it stands for: a view
    word's own token and the marks the view leaves out before it (the sentence's last word: the rest of the sentence too, its
    stop included); "" for the marks. Joined over a chunk of the view it is ``normalise``'s text of that chunk: what
    the bottleneck releases for a chunk it cannot write (docs/results/faithful.md, issue 65)."""
    return _roles_sources_of(roles_sentences(text))


def roles_view_and_sources(text: str) -> tuple[str, list[str]]:
    """:func:`roles_view` and :func:`roles_sources` of ``text`` from one reading (normalised and cut once)."""
    read = roles_sentences(text)
    return _roles_view_of(read), _roles_sources_of(read)


def _roles_sources_of(read: list[tuple[list[RolesPiece], bool]]) -> list[str]:
    out: list[str] = []
    for number, (pieces, question) in enumerate(read):
        if number:
            out.append("")  # the sentence mark
        pending: list[str] = []
        for piece in pieces:
            if piece.source:
                pending.append(piece.source.replace(ATOM_SPACE, " "))
            if piece.word:
                out.append(" ".join(pending))
                pending = []
        if pending:
            out[-1] = " ".join([out[-1], *pending]).strip()
        if question:
            out.append("")
    return out


@dataclass(frozen=True)
class ConstraintSpec:
    """What a constrained realiser may add to a view's words: ``free_words``, at most ``max_free`` in one gap
    (never one twice, never two determiners, no determiner before a word of :data:`NO_ARTICLE_BEFORE`);
    ``punctuation``: whether it may put a comma, semicolon or colon after a word and join two words with a hyphen
    (False when the view carries the text's own punctuation, as ``roles`` does)."""

    free_words: frozenset
    max_free: int
    punctuation: bool


#: the views a constrained realiser can write from: ``roles`` (the articles it
#: drops; its words carry their punctuation), ``content`` (every stop word it drops except the contraction pieces:
#: pronouns, prepositions, auxiliaries — what the probe in issue 56 measured; a free ``not`` is impossible,
#: negations are view words). Lemma and canonical views are not here: their words are lemmas the text must
#: inflect, which an ordered-words constraint cannot allow.
CONSTRAINED_VIEWS: dict[str, ConstraintSpec] = {
    # no free word: the articles are the view's optional words, each written as the text had it or not at all
    "roles": ConstraintSpec(frozenset(), 0, punctuation=False),
    "content": ConstraintSpec(
        frozenset(
            "I" if w == "i" else w
            for w in english_stop_words()
            if w not in _KEPT and "'" not in w and w not in _STOP_WORD_PIECES
        ),
        4,
        punctuation=True,
    ),
}


def constraint_spec(view_name: str) -> ConstraintSpec:
    """What a constrained realiser may add to the words of view ``view_name``."""
    if view_name not in CONSTRAINED_VIEWS:
        raise InputError(
            f"view {view_name!r} cannot be written under a constraint (views: {', '.join(CONSTRAINED_VIEWS)})"
        )
    return CONSTRAINED_VIEWS[view_name]


def free_word_allowed(word: str, gap: tuple[str, ...], previous: str = "") -> bool:
    """Whether a free ``word`` may follow the free words ``gap`` already written in this gap (lower case), or, in an
    empty gap, the view word ``previous``: never one twice ("a a"), never a second determiner ("the this"), none
    after a view determiner or "very" ("this the", "very the"), no article after a number ("75 a new"), never
    "such" after a determiner ("the such"), no determiner after "very"."""
    word = word.lower()
    if not gap and previous:
        if word in _ARTICLES and _is_number(previous):  # "75 a new team", "10% the": a rate's article is a view word
            return False
        # the word a view word ends in: "Fly(the" ends in "the" (no "Fly(the the developers)")
        previous = re.split(r"[^\w']+", previous.lower().rstrip(",;:()\"'"))[-1]
        return word != previous and not (word in DETERMINERS and previous in _NO_DETERMINER_AFTER)
    if word in gap or word in DETERMINERS and any(g in DETERMINERS for g in gap):
        return False
    # "such" comes before an article ("such a day"), never after a determiner ("the such"); "very" before none
    return not (word == "such" and any(g in DETERMINERS for g in gap) or word in DETERMINERS and "very" in gap)


def word_after_gap_allowed(word: str, gap: tuple[str, ...]) -> bool:
    """Whether a view word may follow the free words ``gap``: not after a determiner when it is one of
    :data:`NO_ARTICLE_BEFORE` ("the my", "the of"), not "few"/"little" after a free "a" (a quantity changed), nor
    right after the same word as a free one ("that that"), nor after any free word when it starts with punctuation
    (a quotation: "these very \"We subscribe…\"")."""
    if not gap:
        return True
    lower = word.lower()
    if not lower[:1].isalnum() and lower[:1] not in "$\u00a3\u20ac\u00a5#":  # a quotation, a bracket, a dash
        return False
    if gap[-1] in ("a", "an") and lower in _NO_FREE_A_BEFORE:
        return False
    if gap[-1] in _ARTICLES and not _may_follow_an_article(lower.strip(",;:()\"'")):
        return False
    return lower != gap[-1] and not (gap[-1] in DETERMINERS | {"very", "such"} and lower in NO_ARTICLE_BEFORE)


_ARTICLES = frozenset({"a", "an", "the"})
_NUMBER_WORDS = frozenset(word for word, value in CARDINALS.items() if value >= 2)


def _is_number(word: str) -> bool:
    word = word.lower().strip(",;:()\"'")
    return any(ch.isdigit() for ch in word) or word in _NUMBER_WORDS


@functools.lru_cache(maxsize=100_000)
def _may_follow_an_article(word: str) -> bool:
    """Whether a free article may stand before view word ``word``: not before a number ("a two members", "the
    75"), nor before a word WordNet knows only as a verb or an adverb ("a often", "a benefitted", "a around") —
    the held-out garbles of issue 65. A stop word is left to :data:`NO_ARTICLE_BEFORE`; a name or a word WordNet
    does not know may follow one."""
    if not word or _is_number(word):
        return False
    if word in english_stop_words() or not word.isalpha():
        return True
    synsets = wordnet().synsets(word)
    return not synsets or any(s.pos() in ("n", "a", "s") for s in synsets)


def roles_surface(text: str) -> str:
    """``text`` as a constrained realiser writes its roles view: the view's words (a sentence's first word
    capitalised, quotations and atoms as written, their punctuation attached), every optional article where the
    text had it, each sentence ended by its own stop or a full stop (none after a word that ends with one). The
    realiser's training target (:mod:`authorguard.neural.realiser.data`): what it learns is in the constraint's
    language."""
    out_sentences = []
    for pieces, question in roles_sentences(text):
        words = [piece.word.replace(ATOM_SPACE, " ") for piece in pieces if piece.word]
        first = words[0]
        if first[:1].islower():
            words[0] = first[0].upper() + first[1:]
        sentence = " ".join(words)
        last = words[-1].rstrip("\"')]")
        if not ends_sentence(words[-1]) or question and not last.endswith("?"):
            sentence += "?" if question else "."
        out_sentences.append(sentence)
    return " ".join(out_sentences)


#: the negation words an anchored rewrite must keep (each with the forms that count for it)
_NEGATION_FORMS = {
    "not": ("not", "n't"),
    "cannot": ("cannot", "not", "n't"),
    "never": ("never",),
    "no": ("no",),
    "nothing": ("nothing",),
    "nobody": ("nobody",),
    "none": ("none",),
    "neither": ("neither",),
    "nor": ("nor",),
    "nowhere": ("nowhere",),
}


def anchor_words(text: str) -> list[tuple[str, ...]]:
    """The words a rewrite of ``text`` must copy, in order, each as a tuple of the forms that count: its names (as
    :func:`content_view` finds them) and numbers as written, and its negations (``n't`` counts for ``not``). What
    TAROT's anchored decoding keeps (:class:`~authorguard.generation.constraints.AnchorPlan`)."""
    anchors: list[tuple[str, ...]] = []
    for sentence in sentences(text):
        for position, raw in enumerate(_TOKEN.findall(sentence)):
            for token in _expand(raw):
                if not token:
                    continue
                lower = token.lower()
                if lower in _NEGATION_FORMS:
                    anchors.append(_NEGATION_FORMS[lower])
                elif token[0].isdigit() or (lower not in english_stop_words() and _is_name(token, position == 0)):
                    anchors.append((token,))
    return anchors


def _map_words(view: str, word: Callable[[str], str]) -> str:
    return " ".join(w if w == SENTENCE_MARK or w[0].isdigit() else word(w) for w in view.split())


def lemma_from_content(view: str) -> str:
    """A content view's words lower-cased and lemmatised (numbers and sentence marks as they are)."""
    return _map_words(view, lambda w: lemmatize(w.lower()))


def lemma_view(text: str) -> str:
    """:func:`content_view`, every word lower-cased and lemmatised: a function of the content view alone."""
    return lemma_from_content(content_view(text))


@functools.lru_cache(maxsize=200_000)
def _representative(word: str) -> str:
    """The one-word lemma with the highest SemCor count in ``word``'s most frequent WordNet sense (``word`` itself
    when WordNet does not know it, or the sense has no other one-word lemma)."""
    best, best_count = None, -1
    for synset in wordnet().synsets(word):
        for lemma in synset.lemmas():
            if lemma.name().lower() == word and lemma.count() > best_count:
                best, best_count = synset, lemma.count()
    if best is None:
        return word
    names = [
        (lemma.count(), -i, lemma.name().lower())
        for i, lemma in enumerate(best.lemmas())
        if "_" not in lemma.name() and "-" not in lemma.name() and lemma.name().isalpha()
    ]
    return max(names)[2] if names else word


@functools.lru_cache(maxsize=200_000)
def canonical_word(word: str) -> str:
    """``word``'s synonym-cluster representative, followed to a fixed point (``kid`` -> ``child``); a cycle ends
    at its alphabetically first member. Kept function words are their own representative."""
    if word in _KEPT:
        return word
    seen = [word]
    while True:
        nxt = _representative(seen[-1])
        if nxt == seen[-1]:
            return nxt
        if nxt in seen:
            return min(seen[seen.index(nxt) :])
        seen.append(nxt)


def canonical_from_lemma(view: str) -> str:
    """A lemma view with each word replaced by :func:`canonical_word`."""
    return _map_words(view, canonical_word)


def canonical_view(text: str) -> str:
    """:func:`lemma_view` with each word replaced by :func:`canonical_word`: a function of the lemma view alone."""
    return canonical_from_lemma(lemma_view(text))


#: the deterministic views, finest first (``syntf`` is the bottleneck's randomised level, not a function of text)
VIEWS: dict[str, Callable[[str], str]] = {
    "roles": roles_view,
    "content": content_view,
    "content-minimal": content_minimal_view,
    "lemma": lemma_view,
    "canonical": canonical_view,
}


def get_view(name: str) -> Callable[[str], str]:
    """The view called ``name`` (one of :data:`VIEWS`)."""
    if name not in VIEWS:
        raise InputError(f"unknown view {name!r} (views: {', '.join(VIEWS)})")
    return VIEWS[name]


def view_words(view: str) -> list[str]:
    """The words of a view, sentence and question marks and optional words (the roles view's articles) left out."""
    return [w for w in view.split() if w not in (SENTENCE_MARK, QUESTION_MARK) and not is_optional(w)]


def view_sentences(view: str) -> list[str]:
    """A view cut at its sentence marks (each part a view of one sentence; none empty)."""
    return [part.strip() for part in view.split(f" {SENTENCE_MARK} ") if part.strip() and part.strip() != SENTENCE_MARK]
