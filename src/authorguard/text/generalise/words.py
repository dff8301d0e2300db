"""The word rules of truthful generalisation: a date's day dropped, a figure rounded with a hedge, a rare noun
-> a common WordNet ancestor in every sense a reader may mean, a rare word withheld as ``[word]`` (never a negation
or a figure, at most a third of a sentence's content words), a rare modifier left out."""

from __future__ import annotations

import re

from authorguard.text.generalise.kinds import broader_word, plural
from authorguard.text.generalise.record import (
    CRY,
    UNKNOWN_NAME,
    WITHHELD_WORD,
    WITHHELD_WORDS,
    Record,
    at_sentence_start,
    is_figure_word,
    wordlist,
)
from authorguard.text.resources import wordnet
from authorguard.text.vocabulary import is_common, word_ranks

_MONTHS = sorted(
    wordlist(
        "january february march april may june july august september october november december jan feb mar apr jun jul "
        "aug sep sept oct nov dec"
    )
)


_DAY_MONTH = re.compile(
    rf"^(?:(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?({'|'.join(_MONTHS)})\.?"
    rf"|({'|'.join(_MONTHS)})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?)(?:,?\s+(\d{{4}}))?$",
    re.IGNORECASE,
)


def coarsen_date(record: Record, doc, ent) -> None:
    match = _DAY_MONTH.match(ent.text.strip())
    if not match:
        return
    month = match.group(1) or match.group(2)
    month = month[0].upper() + month[1:].lower()
    form = f"{month} {match.group(3)}" if match.group(3) else month
    start = ent.start_char
    if ent.start > 0 and doc[ent.start - 1].lower_ == "on":
        start = doc[ent.start - 1].idx
        form = f"in {form}"
    record.add(start, ent.end_char, form, "date")


_FIGURE = re.compile(r"^(?P<currency>[$\u00a3\u20ac])?(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d{3,})$")


_HEDGED = wordlist("about around approximately nearly almost roughly some over under than least most")


def _round(number: float) -> str:
    """``number`` to two significant digits, written as people write it (thousands separated)."""
    if number == 0:
        return "0"
    from math import floor, log10

    digits = 1 - int(floor(log10(abs(number))))
    rounded = round(number, digits)
    if digits > 0:
        return f"{rounded:,.{digits}f}".rstrip("0").rstrip(".")
    return f"{int(rounded):,}"


def round_figure(record: Record, doc, ent) -> None:
    if ent.start > 0 and doc[ent.start - 1].lower_ in _HEDGED:
        return  # "more than 5,370": a hedge on a bound is not entailed
    for token in ent:
        match = _FIGURE.match(token.text)
        if not match or (token.text.isdigit() and 1000 <= int(token.text) <= 2100):
            continue  # a year
        if token.i > 0 and doc[token.i - 1].lower_ in _HEDGED:
            continue  # "more than 5,370" inside the entity
        value = float(match.group("number").replace(",", ""))
        shown = _round(value)
        if shown.replace(",", "") == match.group("number").replace(",", ""):
            continue  # already round
        start, currency = token.idx, match.group("currency") or ""
        previous = doc[token.i - 1] if token.i > 0 else None
        if not currency and previous is not None and previous.text in ("$", "\u00a3", "\u20ac"):
            start, currency = previous.idx, previous.text  # "$ 5,370.15" -> "about $5,400"
        record.add(start, token.idx + len(token.text), f"about {currency}{shown}", "number")


def rare_words(record: Record, doc, top: int | None, targets: frozenset) -> None:
    """Rare nouns (outside ``top``) and ``targets`` to their broader word, when WordNet has one that reads right."""
    for token in doc:
        lemma = token.lemma_.lower()
        if token.pos_ != "NOUN" or token.ent_type_ or not token.is_alpha or token.is_stop:
            continue
        wanted = lemma in targets or token.lower_ in targets
        if not wanted and (top is None or is_common(lemma, top)):
            continue
        start, words = token.idx, lemma
        # a compound WordNet knows whole ("golden retriever"): the modifier goes with it
        previous = doc[token.i - 1] if token.i > 0 else None
        if previous is not None and previous.pos_ in ("ADJ", "NOUN") and not previous.ent_type_:
            compound = f"{previous.lower_} {lemma}"
            if wordnet().synsets(compound.replace(" ", "_"), pos="n"):
                start, words = previous.idx, compound
        broader = broader_word(words, BROADER_TOP)
        end = token.idx + len(token.text)
        if broader is None or not record.free(start, end) or not _more_common(broader, lemma):
            continue
        form = plural(broader) if token.tag_ == "NNS" else broader
        if form != broader and form not in word_ranks():
            continue  # a plural nobody writes ("equipments"): a mass noun, or a sense the text does not mean
        record.add(start, end, form, "word")


#: words never withheld whatever their commonness: a negation (a withheld one would say the opposite)
_NEGATIONS = wordlist("not no never nothing nobody none nor neither cannot nowhere without")


#: the share of a sentence's content words a withheld level may withhold (the rarest first)
WITHHELD_SHARE = 1 / 3


_CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "INTJ", "X"})


def _sentences(doc) -> list[list]:
    """``doc``'s tokens cut after each full stop, question or exclamation mark and line break (no parser runs)."""
    out: list[list] = [[]]
    for token in doc:
        out[-1].append(token)
        if token.text in (".", "!", "?") or "\n" in token.text or "\n" in token.whitespace_:
            out.append([])
    return [sentence for sentence in out if sentence]


def withholdable(word: str) -> bool:
    """Whether a marker may stand for ``word``: a word, never a figure, a negation or a modifier of how sure or how
    often (a withheld "never" leaves the sentence saying the opposite may hold). The meter reads markers by it."""
    lower = word.lower()
    return word.isalpha() and lower not in _NEGATIONS and lower not in KEPT_MODIFIERS and not is_figure_word(word)


def withhold_words(record: Record, doc, top: int | None, targets: frozenset) -> None:
    """Words left outside the ``top`` words the most authors use (None: none) and each of ``targets`` that no rule
    generalised -> a marker: a capitalised one inside a sentence that the tagger reads as a proper noun ->
    :data:`UNKNOWN_NAME`, else :data:`WITHHELD_WORD`; a run of withheld words -> one :data:`WITHHELD_WORDS`. Never
    a negation, a figure, a modifier that says how sure or how often (:data:`KEPT_MODIFIERS`) or a word in a
    quotation; and, targets aside, at most :data:`WITHHELD_SHARE` of a sentence's content words (the rarest first)
    and never its last verb: the third held-out set's readers found sentences with more withheld said nothing."""
    chosen = []
    for sentence in _sentences(doc):
        content = [t for t in sentence if t.is_alpha and not t.is_stop and t.pos_ in _CONTENT]
        budget = int(len(content) * WITHHELD_SHARE)
        verbs = sum(t.pos_ == "VERB" for t in content)
        rare = []
        for token in sentence:
            lower, lemma = token.lower_, token.lemma_.lower()
            end = token.idx + len(token.text)
            if not withholdable(token.text) or token.like_num or not record.free(token.idx, end):
                continue
            if lower in targets or lemma in targets:
                chosen.append(token)
            elif top is not None and not is_common(lower, top) and not is_common(lemma, top):
                rare.append(token)
        ranks = word_ranks()
        for token in sorted(rare, key=lambda t: -ranks.get(t.lemma_.lower(), 10**9)):
            if budget <= 0:
                break
            if token.pos_ == "VERB" and verbs <= 1:
                continue  # the sentence keeps a verb: what it says of its subject
            chosen.append(token)
            budget -= 1
            verbs -= token.pos_ == "VERB"
    runs: list[list] = []
    for token in sorted(chosen, key=lambda t: t.i):
        previous = runs[-1][-1] if runs else None
        if previous is not None and previous.i == token.i - 1 and previous.whitespace_ == " ":
            runs[-1].append(token)
        else:
            runs.append([token])
    for run in runs:
        first, last = run[0], run[-1]
        name = all(
            t.pos_ == "PROPN"
            and t.text[:1].isupper()
            and not at_sentence_start(record.text, t.idx)
            and not CRY.fullmatch(t.lower_)
            for t in run
        )
        form = UNKNOWN_NAME if name else WITHHELD_WORD if len(run) == 1 else WITHHELD_WORDS
        record.add(first.idx, last.idx + len(last.text), form, "name" if name else "withheld")


#: the words a broader form is chosen among: the 5,000 the most authors use, at every level (the level says which
#: words are rare; what they become must be common and more common than they are)
BROADER_TOP = 5000


#: adjectives that do not say "a kind of" their noun: without them the noun says something else ("a former
#: minister" is no minister), or less of a quantity or a reference ("the only", "other")
_KEEP_ADJECTIVES = wordlist(
    "former fake false alleged supposed so-called would-be imaginary fictional fictitious pretend mock counterfeit "
    "artificial ex potential possible probable likely unlikely future past previous late near apparent virtual only "
    "sole mere other same different certain main next last first second third few many several non-existent "
    "nonexistent hypothetical theoretical nominal acting deputy vice"
)


#: adverbs that say how sure, how often or how much: without them the sentence claims more than it did
_KEEP_ADVERBS = wordlist(
    "hardly barely scarcely rarely seldom never nearly almost only merely partly partially allegedly supposedly "
    "reportedly purportedly seemingly apparently arguably presumably possibly probably perhaps maybe likely hopefully "
    "theoretically hypothetically falsely wrongly formerly previously nominally ostensibly occasionally sometimes "
    "usually mostly largely slightly somewhat relatively fairly"
)


#: the modifiers generalise never leaves out (the meter reads leaving one out as no generalisation)
KEPT_MODIFIERS = _KEEP_ADJECTIVES | _KEEP_ADVERBS


def _more_common(broader: str, word: str) -> bool:
    ranks = word_ranks()
    return ranks.get(broader, 10**9) < ranks.get(word, 10**9)


def drop_modifiers(record: Record, doc, top: int) -> None:
    """A rare adjective before its noun and a rare manner adverb ("-ly") beside its verb are left out: "a suave
    founder" is a founder, "he smiled charmingly" says he smiled. Not an adjective that is no kind of its noun
    (:data:`_KEEP_ADJECTIVES`), nor an adverb of how sure or how often (:data:`_KEEP_ADVERBS`), nor one a comma or a
    sentence start sets apart ("Sadly, …")."""
    for token in doc:
        if (
            not token.is_alpha
            or token.ent_type_
            or is_common(token.lower_, top)
            or is_common(token.lemma_.lower(), top)
        ):
            continue
        following = doc[token.i + 1] if token.i + 1 < len(doc) else None
        previous = doc[token.i - 1] if token.i > 0 else None
        if token.tag_ in ("JJ", "JJR", "JJS") and token.lower_ not in _KEEP_ADJECTIVES:
            if following is None or following.pos_ not in ("NOUN", "ADJ") or following.ent_type_:
                continue  # predicative ("it was delicious") or before a name: the sentence needs it
        elif token.tag_ == "RB" and token.lower_.endswith("ly") and token.lower_ not in _KEEP_ADVERBS:
            beside_verb = any(t is not None and t.pos_ in ("VERB", "AUX") for t in (previous, following))
            if (
                not beside_verb
                or following is not None
                and following.text in ",;:"
                or at_sentence_start(record.text, token.idx)
            ):
                continue
        else:
            continue
        start, end = token.idx, token.idx + len(token.text)
        # the space after it goes with it; a hyphenated or comma-listed modifier is left ("bright, shiny")
        if following is not None and following.text in ",-" or previous is not None and previous.text in ",-":
            continue
        if record.free(start, end + 1) and record.text[end : end + 1] == " ":
            record.add(start, end + 1, "", "modifier")
