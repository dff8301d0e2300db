"""The ``roles`` view: who does what — every word, contractions read out, names, numbers and atoms as written, the
punctuation inside a sentence attached, the articles optional — with the stretch of text each view word stands for
(what the bottleneck releases for a chunk it cannot write) and the text as a constrained realiser writes it."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from authorguard.text.atoms import (
    ATOM_SPACE,
    OPTIONAL_MARK,
    ends_sentence,
    hold_quotations,
    is_atom,
    is_bound_article,
    is_quotation,
    split_token,
    without_optional_marks,
)
from authorguard.text.resources import english_stop_words, wordnet
from authorguard.text.views.constraints import DETERMINERS, FREE_WORDS, free_word_allowed, word_after_gap_allowed
from authorguard.text.views.reading import (
    IRREGULAR_NEGATIONS,
    QUESTION_MARK,
    is_name,
    join_sentences,
    known_lower,
    sentences,
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
_HARD_WRAP = re.compile(r"(?<![\n])[ \t]*\n[ \t]*(?![\n])")


def _roles_expand(token: str, following: str) -> list[str]:
    """A token of the roles view with its contraction read out; a possessive (``Anna's``, ``dog's``) stays whole."""
    token = token.replace("\u2019", "'")
    lower = token.lower()
    if lower in IRREGULAR_NEGATIONS:
        return list(IRREGULAR_NEGATIONS[lower]) if lower != "ain't" else ["is", "not"]
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
    return not known_lower(word.lower()) or any(
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


@dataclass(frozen=True)
class RolesPiece:
    """One word of a sentence as the roles view reads it: the word as the view writes it (its punctuation
    attached; a quotation with :data:`~authorguard.text.atoms.ATOM_SPACE` for its spaces), whether it is a free
    word, and the whitespace token of the normalised text it came from ("" for a contraction's first piece)."""

    word: str
    free: bool
    source: str


#: the punctuation the roles view keeps around a word: what groups a sentence's parts and marks who said what (list
#: and appositive commas, a semicolon or colon, an aside's brackets, quotation marks, single or double). Stops go to the
#: sentence
#: marks; ellipses, exclamations, emoticons, decoration are style (docs/results/faithful.md measures the
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
                or is_name(piece, position == first and number == 0)
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
    return join_sentences(parts, True)


def roles_sources(text: str) -> list[str]:
    """For each token of ``roles_view(text).split()``, the stretch of the normalised text it stands for: a view
    word's own token and the marks the view leaves out before it (the sentence's last word: the rest of the sentence
    too, its
    stop included); "" for the marks. Joined over a chunk of the view it is ``normalise``'s text of that chunk: what
    the bottleneck releases for a chunk it cannot write (docs/results/faithful.md)."""
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
