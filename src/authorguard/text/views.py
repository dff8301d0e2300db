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
- ``roles``: who does what — every word except :data:`FREE_WORDS` (articles, demonstrative determiners and two
  intensifiers), so the personal pronouns, prepositions, connectives, auxiliaries and question words stay, in
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

from authorguard.exceptions import InputError
from authorguard.text.analysis import lemmatize
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
#: the words the ``roles`` view drops: a constrained realiser (:mod:`authorguard.generation.constraints`) may put
#: them back anywhere between the view's words. Articles and demonstrative determiners ("this morning") choose
#: between readings a reader recovers from the nouns (a demonstrative standing alone, "come to this", is a view
#: word); "very" and "such" only grade. Everything else a sentence says is in the view ("just" too: "I just died").
FREE_WORDS = frozenset({"a", "an", "the", "this", "that", "these", "those", "such", "very"})
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
            return [base, "us" if base.lower() == "let" else ("has" if perfect else "is")]
        return [token]  # a possessive
    if lower.endswith("'d") and len(lower) > 2:
        return [token[:-2], "had" if perfect else "would"]
    return [token]


def _following(tokens: list[str], position: int) -> str:
    """The next token after ``position`` that is not a free word or an adverb standing between an auxiliary and its
    verb ("he's *just* arrived"): what decides "'s" = is / has."""
    for token in tokens[position + 1 :]:
        if token.lower() not in FREE_WORDS and token.lower() not in (
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


_DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})


def _roles_pieces(sentence: str) -> list[tuple[str, bool, str]]:
    """A sentence read for the roles view: (word as the view writes it, whether it is a free word, the comma,
    semicolon or colon right after it in the text or ""). A demonstrative is free only as a determiner (before a
    content word: "this morning"); as a pronoun ("come to this", "that was") it is a view word."""
    matches = list(_TOKEN.finditer(sentence))
    raw = [m.group(0) for m in matches]
    out: list[tuple[str, bool, str]] = []
    for position, match in enumerate(matches):
        pieces = [
            p
            for p in _roles_expand(raw[position], _following(raw, position))
            if p.lower() not in ("s", "t", "d", "ll", "m", "re", "ve")
        ]
        after = sentence[match.end() : match.end() + 1]
        for number, piece in enumerate(pieces):
            lower = piece.lower()
            following = raw[position + 1].lower() if position + 1 < len(raw) else ""
            # a determiner is the whole token ("That's" is a pronoun and its verb) right before a content word
            determiner = (
                lower in _DEMONSTRATIVES
                and len(pieces) == 1
                and following
                and following not in english_stop_words()
                and not sentence[match.end() : matches[position + 1].start()].strip()
            )
            free = lower in FREE_WORDS and (lower not in _DEMONSTRATIVES or bool(determiner))
            word = (
                "I"
                if lower == "i"
                else lower
                if free or not (piece[0].isdigit() or _is_name(piece, position == 0))
                else piece
            )
            out.append((word, free, after if number == len(pieces) - 1 and after in (",", ";", ":") else ""))
    return out


def _roles_words(sentence: str) -> list[str]:
    return [word for word, free, _ in _roles_pieces(sentence) if not free]


def _normalised(text: str) -> str:
    """The text through every rule of :func:`~authorguard.text.normalise.normalise` (meaning kept: 100 of 100
    blind-labelled faithful, docs/results/faithful.md): spelling variants, elongation, shouting go before the view."""
    from authorguard.text.normalise import normalise

    # a single line break inside a paragraph is layout (20 Newsgroups wraps at ~72 characters), not a sentence start
    return normalise(_HARD_WRAP.sub(" ", text))


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().rstrip("\"')]").endswith("?")


def roles_view(text: str) -> str:
    """Every word but :data:`FREE_WORDS`, contractions read out, names and numbers as written, the rest lower-cased,
    sentence ends as :data:`SENTENCE_MARK`, a question's end as :data:`QUESTION_MARK` too: who does what to whom,
    when and how, without the casing, punctuation, contractions, articles or layout it was written with."""
    parts = []
    for sentence in sentences(_normalised(text)):
        words = _roles_words(sentence)
        if words and _is_question(sentence):
            words.append(QUESTION_MARK)
        parts.append(words)
    return _join(parts, True)


#: the views a constrained realiser can write from, with the words it may add between the view's words and how
#: many in one gap: ``roles`` (the articles, demonstratives and intensifiers it drops), ``content`` (every stop
#: word it drops except the contraction pieces: pronouns, prepositions, auxiliaries — what the probe in issue 56
#: measured; a free ``not`` is impossible, negations are view words). Lemma and canonical views are not here: their
#: words are lemmas the text must inflect, which an ordered-words constraint cannot allow.
CONSTRAINED_VIEWS: dict = {
    "roles": (FREE_WORDS, 2),
    "content": (
        frozenset(
            "I" if w == "i" else w
            for w in english_stop_words()
            if w not in _KEPT and "'" not in w and w not in _STOP_WORD_PIECES
        ),
        4,
    ),
}


def constraint_words(view_name: str) -> tuple[frozenset, int]:
    """(free words, most free words in one gap) of a view a constrained realiser can write from."""
    if view_name not in CONSTRAINED_VIEWS:
        raise InputError(
            f"view {view_name!r} cannot be written under a constraint (views: {', '.join(CONSTRAINED_VIEWS)})"
        )
    return CONSTRAINED_VIEWS[view_name]


def roles_surface(text: str) -> str:
    """``text`` as a constrained realiser writes its roles view: the view's words (a sentence's first word
    capitalised), the free words the text had between them (at most the constraint's number a gap), a comma,
    semicolon or colon where the text had one after a view word, each sentence ended by its own stop or a full
    stop. The realiser's training target (:mod:`authorguard.neural.realiser.data`): what it learns is exactly
    what the constraint lets it write."""
    _, most = CONSTRAINED_VIEWS["roles"]
    out_sentences = []
    for sentence in sentences(_normalised(text)):
        read = _roles_pieces(sentence)
        pieces: list[str] = []
        frees: list[bool] = []
        gap = 0
        for k, (word, free, after) in enumerate(read):
            if free:
                if gap < most:
                    pieces.append(word)
                    frees.append(True)
                    gap += 1
                continue
            pieces.append(word + (after if k + 1 < len(read) else ""))
            frees.append(False)
            gap = 0
        while pieces and frees[-1]:  # the constraint ends on a view word
            pieces.pop()
            frees.pop()
        if not any(not f for f in frees):
            continue
        stop = "?" if _is_question(sentence) else "."
        first = pieces[0]
        pieces[0] = first[0].upper() + first[1:]
        out_sentences.append(" ".join(pieces).rstrip(",;:") + stop)
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
    """The words of a view, sentence and question marks left out."""
    return [w for w in view.split() if w not in (SENTENCE_MARK, QUESTION_MARK)]


def view_sentences(view: str) -> list[str]:
    """A view cut at its sentence marks (each part a view of one sentence; none empty)."""
    return [part.strip() for part in view.split(f" {SENTENCE_MARK} ") if part.strip() and part.strip() != SENTENCE_MARK]
