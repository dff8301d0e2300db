"""What a constrained realiser may add to a view's words, and where: the free words (the article slot), the
determiners that never stand twice or before a pronoun, the loop rules (:func:`free_word_allowed`,
:func:`word_after_gap_allowed`) and each constrained view's :class:`ConstraintSpec`
(:mod:`authorguard.generation.ordered_words` enforces them while decoding)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.text.atoms import CARDINALS
from authorguard.text.resources import english_stop_words, wordnet
from authorguard.text.views.reading import KEPT_WORDS

#: the words the ``roles`` view marks optional: a constrained realiser (:mod:`authorguard.generation.ordered_words`)
#: writes each as the text had it, or leaves it out — the article slot. The articles alone: nothing else chosen
#: freely is safe — held-out text showed demonstratives, "very" and "such" as free words on held-out text, and most
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
        # of the cases", "bring a with me" — held-out garbles); the ones that are nouns or adjectives
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
#: pronouns, prepositions, auxiliaries — what a probe measured; a free ``not`` is impossible,
#: negations are view words). Lemma and canonical views are not here: their words are lemmas the text must
#: inflect, which an ordered-words constraint cannot allow.
CONSTRAINED_VIEWS: dict[str, ConstraintSpec] = {
    # no free word: the articles are the view's optional words, each written as the text had it or not at all
    "roles": ConstraintSpec(frozenset(), 0, punctuation=False),
    "content": ConstraintSpec(
        frozenset(
            "I" if w == "i" else w
            for w in english_stop_words()
            if w not in KEPT_WORDS and "'" not in w and w not in _STOP_WORD_PIECES
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
    held-out garbles. A stop word is left to :data:`NO_ARTICLE_BEFORE`; a name or a word WordNet
    does not know may follow one."""
    if not word or _is_number(word):
        return False
    if word in english_stop_words() or not word.isalpha():
        return True
    synsets = wordnet().synsets(word)
    return not synsets or any(s.pos() in ("n", "a", "s") for s in synsets)
