"""Is a language model's output a rewrite of its input? The validity gate every LM rewriter's output passes.

A small instruction-tuned model asked to rewrite a paragraph often does something else: it comments on the text
("The author's style is ..."), echoes the instruction, refuses, loops ("Mood: sad," x26), stops mid-sentence at the
token limit, copies the input, writes far more or far less, drops the input's names and numbers, or writes fluent
text that is mostly about something else (invented events, reversed claims: what a policy trained against the other
rules learned to do). Rewards built
from embeddings score some of these well (a comment shares nothing of the author's style), so every place that
produces or scores a rewrite asks :class:`RewriteGate` first. Each rule is one check below, in the order
:data:`REASONS` lists them (the first that fires is the reason given); the thresholds were set on a hand-labelled
development set of real policy outputs and are measured on a held-out one (docs/results/tarot.md#validity-gate).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: why a rewrite is refused, in the order the rules are checked
REASONS = (
    "empty",
    "refusal",
    "instruction",
    "meta",
    "loop",
    "truncated",
    "copy",
    "length",
    "entities",
    "invented",
    "coverage",
)
#: what a rewriter gives a unit (a chunk, a document) left without a valid rewrite: ``keep`` it as written or
#: ``withhold`` it (nothing); either way its record is flagged and counted in the method's ``release_report``
FALLBACKS = ("keep", "withhold")

_WORD = re.compile(r"[a-z0-9']+")
_REFUSAL = re.compile(
    r"^\W*(?:i'?m sorry|i am sorry|sorry,|i apologi[sz]e|i can(?:no|')t\b|i cannot|i'?m unable|"
    r"i am unable|i'?m not able|as an ai|unfortunately,? i\b)",
    re.IGNORECASE,
)
# words that talk *about* a text or its writer; one counts only when the input does not use that phrase itself
_META = re.compile(
    r"\b(?:the (?:author|writer|narrator|speaker|poster|blogger)s?\b|author'?s|writer'?s|"
    r"rewrit\w*|paraphras\w*|obfuscat\w*|original (?:text|paragraph|sentence|post|version)|"
    r"(?:this|the|that) (?:text|paragraph|passage|excerpt|post|piece|sentence)\b|"
    r"(?:writing|narrative|conversational|informal|casual|humorous) (?:style|tone)|"
    r"\b(?:style|tone) (?:of|is)\b|this (?:quote|phrase|version|sentence|statement|example)\b|"
    r"helpful (?:ai|assistant)|\bai (?:assistant|model)|language model|chatbot|i hope this helps|"
    r"here to help|let me know if)",
    re.IGNORECASE,
)
_ENDING = re.compile(
    r"[.!?\"')\]\u201d\u2019:;\u2026*~]\s*$|[\U0001F300-\U0001FAFF]\s*$|\b(?:lol|haha)\s*$", re.IGNORECASE
)
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_SENTENCE_START = re.compile(
    r"(?:^|[.!?:;]\s+|\n|\.\.+\s*|[\"(\[\u201c\u2014\u2013\x97-]\s*)[\"'(\[\u201c]*([A-Z][\w'-]*)"
)
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'-]+\b")


@dataclass(frozen=True)
class GateConfig:
    """The gate's thresholds (defaults from the labelled development set).

    ``max_copy``: the largest share of the rewrite's word bigrams found in the input (a near-copy above);
    ``min_length_ratio`` .. ``max_length_ratio``: the rewrite's words over the input's (for the upper limit,
    inputs shorter than ``short_input`` words count as that many: two words rewritten as ten is no problem);
    ``max_repetition``: the largest share of the rewrite's word trigrams that repeat an earlier one (beyond the
    input's own share); ``max_dropped``: the largest share of the input's numbers and names (capitalised words not
    at a sentence start) missing from the rewrite, checked when the input has ``min_entities`` or more;
    ``max_instruction``: the largest share of the instruction's word bigrams the rewrite may contain;
    ``max_invented``: the largest share of the rewrite's content words (stems of words that are not stop words)
    absent from the input (1: the rewrite talks about other things entirely), checked when the input has
    ``min_content`` or more content words (a paraphrase of a few words is mostly new words)."""

    max_copy: float = 0.7
    min_length_ratio: float = 0.4
    max_length_ratio: float = 2.5
    short_input: int = 8
    max_repetition: float = 0.25
    max_dropped: float = 0.67
    min_entities: int = 2
    max_instruction: float = 0.5
    max_invented: float = 0.5
    min_content: int = 6

    def __post_init__(self) -> None:
        for name in ("max_copy", "max_repetition", "max_dropped", "max_instruction", "max_invented"):
            check_number(getattr(self, name), name, "GateConfig", low=0, high=1, closed="both")
        for name in ("min_length_ratio", "max_length_ratio"):
            check_number(getattr(self, name), name, "GateConfig", low=0, closed="neither")
        for name in ("short_input", "min_entities", "min_content"):
            check_number(getattr(self, name), name, "GateConfig", kind=int, low=1, closed="left")
        if self.min_length_ratio > self.max_length_ratio:
            raise InputError(
                f"GateConfig: min_length_ratio {self.min_length_ratio} > max_length_ratio {self.max_length_ratio}"
            )


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters, digits, apostrophes)."""
    return _WORD.findall(text.lower())


def meta_phrases(text: str) -> set[str]:
    """The phrases of the text that talk about a text or its writer ("the author's", "this post", ...), each word
    lower-cased and cut to its first six characters (so "rewrites" and "rewritten" are one phrase). A rewrite's
    phrase counts against it only when the input has that phrase: an input that says "ignore this post" does not
    license "The author's style is obfuscated"."""
    return {" ".join(word[:6] for word in m.group().lower().split()) for m in _META.finditer(text)}


def _ngrams(tokens: list[str], n: int) -> list[tuple]:
    return list(zip(*(tokens[i:] for i in range(n))))


def copy_share(original: str, rewrite: str) -> float:
    """Share of the rewrite's word bigrams that occur in the original (1 = a copy, 0 = no two words kept together)."""
    mine = _ngrams(words(rewrite), 2)
    if not mine:
        return 0.0
    theirs = set(_ngrams(words(original), 2))
    return sum(b in theirs for b in mine) / len(mine)


def sequence_similarity(original: str, rewrite: str) -> float:
    """difflib's ratio of the two word sequences (2 x matched words / all words; 1 = the same words in order):
    catches near-copies of short texts, where one changed word already halves the shared bigrams."""
    return difflib.SequenceMatcher(None, words(original), words(rewrite), autojunk=False).ratio()


def repetition_share(text: str) -> float:
    """Share of the text's word trigrams that repeat an earlier trigram of it (0: none; a loop approaches 1)."""
    grams = _ngrams(words(text), 3)
    if len(grams) < 2:
        return 0.0
    return 1.0 - len(set(grams)) / len(grams)


def content_stems(text: str) -> set[str]:
    """Porter stems of the text's content words: words of three or more letters that are not English stop words
    (scikit-learn's list; nltk's stemmer needs no data files)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return {_stem(w) for w in words(text) if len(w) > 2 and w not in ENGLISH_STOP_WORDS and not w.isdigit()}


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _porter().stem(word)


def stem(word: str) -> str:
    """The Porter stem of a lower-case word (cached)."""
    return _stem(word)


@functools.lru_cache(maxsize=1)
def _porter():
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def invented_share(original: str, rewrite: str) -> float:
    """Share of the rewrite's :func:`content_stems` that the original does not have (0 when it has none)."""
    return _new_share(content_stems(original), content_stems(rewrite))


def _new_share(theirs: set, mine: set) -> float:
    return len(mine - theirs) / len(mine) if mine else 0.0


def key_terms(text: str) -> set[str]:
    """The text's numbers and names: digit groups, and capitalised words that do not start a sentence, a quote or
    a parenthesis (lower-cased, possessive 's removed; "I" and its contractions excluded)."""
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    names = {
        _bare(m.group())
        for m in _CAPITALISED.finditer(text)
        if m.start() not in starts and not m.group().isupper() and not m.group().startswith(("I'", "I\u2019"))
    }
    return names | set(_NUMBER.findall(text))


def _bare(word: str) -> str:
    """Lower-cased, without a possessive ending."""
    return re.sub(r"'s$", "", word.lower())


def dropped_share(original: str, rewrite: str) -> tuple[float, int]:
    """(share of :func:`key_terms` of ``original`` absent from ``rewrite``'s words and numbers, how many it has)."""
    terms = key_terms(original)
    if not terms:
        return 0.0, 0
    present = {_bare(w) for w in words(rewrite)} | set(_NUMBER.findall(rewrite))
    missing = sum(not (term in present or all(w in present for w in words(term))) for term in terms)
    return missing / len(terms), len(terms)


def form_problem(
    output: str,
    reference: str,
    instruction_bigrams: set,
    max_instruction: float,
    max_repetition: float,
    truncated: bool,
) -> str | None:
    """The rules any generated text must pass, whatever it was written from: ``empty``, ``refusal``,
    ``instruction`` (more than ``max_instruction`` of the instruction's word bigrams echoed), ``meta`` (talk about a
    text), ``loop`` (repeated trigrams beyond ``max_repetition``), ``truncated`` (cut at the token limit mid-sentence).
    Refusals, meta phrases and repetition already in ``reference`` (the input, or "" when the input is not text)
    are not held against the output."""
    mine = words(output)
    if not mine:
        return "empty"
    if _REFUSAL.search(output) and not _REFUSAL.search(reference):
        return "refusal"
    if instruction_bigrams and len(set(_ngrams(mine, 2)) & instruction_bigrams) > max_instruction * len(
        instruction_bigrams
    ):
        return "instruction"
    if meta_phrases(output) - meta_phrases(reference):
        return "meta"
    if repetition_share(output) > repetition_share(reference) + max_repetition:
        return "loop"
    if truncated and not _ENDING.search(output):
        return "truncated"
    return None


class RewriteGate:
    """``gate.problem(original, rewrite, truncated=False)`` -> a reason of :data:`REASONS` or None (a rewrite);
    ``gate.problems(originals, rewrites, truncated)`` -> one per pair. ``instruction``: the prompt's instruction,
    to recognise it echoed back (None: not checked). ``truncated`` says the generation hit its token limit."""

    def __init__(self, config: GateConfig = GateConfig(), instruction: str | None = None) -> None:
        self.config = config
        self.instruction = instruction
        self._instruction_bigrams = set(_ngrams(words(instruction), 2)) if instruction else set()

    def problem(self, original: str, rewrite: str, truncated: bool = False) -> str | None:
        config = self.config
        form = form_problem(
            rewrite, original, self._instruction_bigrams, config.max_instruction, config.max_repetition, truncated
        )
        if form is not None:
            return form
        mine = words(rewrite)
        if max(copy_share(original, rewrite), sequence_similarity(original, rewrite)) > config.max_copy:
            return "copy"
        theirs = len(words(original))
        if len(mine) < config.min_length_ratio * theirs or len(mine) > config.max_length_ratio * max(
            theirs, config.short_input
        ):
            return "length"
        dropped, terms = dropped_share(original, rewrite)
        if terms >= config.min_entities and dropped > config.max_dropped:
            return "entities"
        theirs_content = content_stems(original)
        if (
            len(theirs_content) >= config.min_content
            and _new_share(theirs_content, content_stems(rewrite)) > config.max_invented
        ):
            return "invented"
        return None

    def problems(
        self, originals: Sequence[str], rewrites: Sequence[str], truncated: Sequence[bool] | None = None
    ) -> list[str | None]:
        if len(originals) != len(rewrites) or (truncated is not None and len(truncated) != len(rewrites)):
            raise InputError(
                f"rewrite gate: {len(originals)} originals, {len(rewrites)} rewrites"
                + ("" if truncated is None else f", {len(truncated)} truncation flags")
            )
        flags = truncated if truncated is not None else [False] * len(rewrites)
        return [self.problem(o, r, bool(t)) for o, r, t in zip(originals, rewrites, flags)]


def count_reasons(problems: Sequence[str | None]) -> dict:
    """{"valid": n, reason: n, ...} over the reasons that occur (the counts a method report gives)."""
    counts = Counter("valid" if p is None else p for p in problems)
    return {key: counts[key] for key in ("valid",) + REASONS if counts[key]}
