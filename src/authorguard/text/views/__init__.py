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
  none, and is shown the view without them), so the demonstratives, personal pronouns, prepositions, connectives,
  auxiliaries and question words stay, in
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
from collections.abc import Callable

from authorguard.exceptions import InputError
from authorguard.text.analysis import lemmatize
from authorguard.text.atoms import is_optional
from authorguard.text.resources import english_stop_words, wordnet
from authorguard.text.views.reading import (
    KEPT_WORDS,
    QUESTION_MARK,
    SENTENCE_MARK,
    WORD_TOKEN,
    expand_contractions,
    is_name,
    join_sentences,
    sentences,
)
from authorguard.text.views.roles import roles_view


def _content_words(sentence: str, keep: frozenset, names: bool) -> list[str]:
    words: list[str] = []
    for position, raw in enumerate(WORD_TOKEN.findall(sentence)):
        for token in expand_contractions(raw):
            if not token:
                continue
            lower = token.lower()
            if lower in english_stop_words() and lower not in keep:
                continue
            if lower in ("s", "t", "d", "ll", "m", "re", "ve"):  # pieces of split contractions
                continue
            words.append(token if names and (token[0].isdigit() or is_name(token, position == 0)) else lower)
    return words


def content_view(text: str) -> str:
    """The content words in order, names and numbers as written, sentence ends as :data:`SENTENCE_MARK`."""
    return join_sentences([_content_words(s, KEPT_WORDS, True) for s in sentences(text)], True)


def content_minimal_view(text: str) -> str:
    """The words outside the stop-word list, lower-cased, in order, no sentence marks."""
    return join_sentences([_content_words(s, frozenset(), False) for s in sentences(text)], False)


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
    TAROT's anchored decoding keeps (:class:`~authorguard.generation.anchors.AnchorPlan`)."""
    anchors: list[tuple[str, ...]] = []
    for sentence in sentences(text):
        for position, raw in enumerate(WORD_TOKEN.findall(sentence)):
            for token in expand_contractions(raw):
                if not token:
                    continue
                lower = token.lower()
                if lower in _NEGATION_FORMS:
                    anchors.append(_NEGATION_FORMS[lower])
                elif token[0].isdigit() or (lower not in english_stop_words() and is_name(token, position == 0)):
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
    if word in KEPT_WORDS:
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
