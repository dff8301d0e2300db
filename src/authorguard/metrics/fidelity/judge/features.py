"""What the feature judge reads off one (input, output) pair: the rule meter's findings and the lexical differences
the rules do not weigh — hedges and modality, time and tense, who speaks (the persons of the pronouns), names and
numbers moved, a noun by a sibling (a co-hyponym), a word by its antonym, word order among the shared words — with
the sentence encoder's cosines of the passages and of their worst-aligned sentences.

:func:`feature_matrix` gives one row of :data:`FEATURES` per pair (float32, shape (n, len(FEATURES))).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from authorguard.metrics.fidelity.verdict import VERDICTS, FidelityScore, antonyms

_TOKEN = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\d+(?:[.,]\d+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|[\"(]\s*)([A-Z][A-Za-z]*)")
#: words of certainty, modality, frequency and quantity: reversing one reverses a claim without a negation word
HEDGES = frozenset(
    [
        "likely",
        "unlikely",
        "probably",
        "possibly",
        "perhaps",
        "maybe",
        "certainly",
        "definitely",
        "surely",
        "clearly",
        "obviously",
        "apparently",
        "seemingly",
        "may",
        "might",
        "could",
        "must",
        "should",
        "would",
        "will",
        "can",
        "cannot",
        "shall",
        "always",
        "never",
        "often",
        "rarely",
        "seldom",
        "sometimes",
        "usually",
        "generally",
        "occasionally",
        "frequently",
        "all",
        "every",
        "each",
        "none",
        "some",
        "few",
        "many",
        "most",
        "several",
        "only",
        "almost",
        "nearly",
        "exactly",
        "precisely",
        "more",
        "less",
        "fewer",
        "much",
        "mostly",
        "partly",
        "entirely",
        "completely",
        "fully",
        "hardly",
        "barely",
        "scarcely",
        "doubt",
        "sure",
        "unsure",
        "believe",
        "think",
        "guess",
        "suppose",
        "seem",
        "seems",
        "seemed",
        "appear",
        "appears",
        "possible",
        "impossible",
        "probable",
        "improbable",
        "certain",
        "uncertain",
        "least",
        "at",
        "best",
        "worst",
    ]
)
_MONTHS = "january february march april may june july august september october november december"
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
#: words that place a claim in time
TIMES = frozenset(
    f"{_MONTHS} {_DAYS} today yesterday tomorrow tonight now then currently recently soon later earlier before "
    "after ago next last previous past future ever already still yet once formerly morning afternoon evening night "
    "week weekend month year decade century spring summer autumn fall winter daily weekly yearly annually first "
    "second third former latter new old".split()
)
#: the least WordNet depth of a shared hypernym that makes two nouns siblings ("animal" is 6, "entity" 0)
SPECIFIC_DEPTH = 6
FUTURE = frozenset(["will", "shall", "'ll", "going", "gonna"])
PAST = frozenset(["was", "were", "had", "did", "used", "been", "'d"])
NEGATIONS = frozenset(
    ["not", "no", "never", "none", "nothing", "nobody", "neither", "nor", "n't", "without", "cannot", "nowhere"]
)
#: pronouns by grammatical person: a speaker or actor changed shows as a shift between these
PERSONS = {
    **dict.fromkeys(["i", "me", "my", "mine", "myself"], 0),
    **dict.fromkeys(["we", "us", "our", "ours", "ourselves"], 1),
    **dict.fromkeys(["you", "your", "yours", "yourself", "yourselves"], 2),
    **dict.fromkeys(["he", "him", "his", "himself"], 3),
    **dict.fromkeys(["she", "her", "hers", "herself"], 4),
    **dict.fromkeys(["they", "them", "their", "theirs", "themselves"], 5),
}
_STOP = (
    HEDGES
    | TIMES
    | FUTURE
    | PAST
    | NEGATIONS
    | frozenset(PERSONS)
    | frozenset(
        [
            "the",
            "a",
            "an",
            "and",
            "or",
            "but",
            "of",
            "to",
            "in",
            "on",
            "at",
            "by",
            "for",
            "with",
            "from",
            "as",
            "is",
            "are",
            "be",
            "being",
            "it",
            "its",
            "this",
            "that",
            "these",
            "those",
            "there",
            "here",
            "what",
            "which",
            "who",
            "whom",
            "whose",
            "when",
            "where",
            "why",
            "how",
            "if",
            "so",
            "than",
            "too",
            "very",
            "also",
            "just",
            "about",
            "into",
            "over",
            "under",
            "up",
            "down",
            "out",
            "off",
            "again",
            "further",
            "do",
            "does",
            "doing",
            "have",
            "has",
            "having",
            "am",
            "i'm",
            "it's",
            "that's",
            "don't",
        ]
    )
)

RULE_FEATURES = tuple(f"rule_{v}" for v in VERDICTS) + (
    "recall",
    "invented",
    "new_names",
    "lost_names",
    "negations_differ",
    "questions_differ",
    "swapped_roles",
    "changed_agents",
    "substituted",
    "paraphrase_cosine",
    "atom_findings",
    "reasons",
)
LEXICAL_FEATURES = (
    "hedges_differ",
    "times_differ",
    "future_differ",
    "past_differ",
    "negation_words_differ",
    "persons_differ",
    "capitals_added",
    "capitals_lost",
    "numbers_added",
    "numbers_lost",
    "numbers_moved",
    "content_added",
    "content_lost",
    "co_hyponyms",
    "antonyms",
    "order_inversions",
    "word_jaccard",
    "length_ratio",
)
ENCODER_FEATURES = ("passage_cosine", "worst_sentence_cosine")
FEATURES = RULE_FEATURES + LEXICAL_FEATURES + ENCODER_FEATURES


def _tokens(text: str) -> list[str]:
    return [t.lower().replace("\u2019", "'") for t in _TOKEN.findall(text.replace("n't", " n't"))]


def _differ(a: Sequence[str], b: Sequence[str], words: frozenset[str]) -> int:
    """The size of the multiset difference, both ways, of the tokens in ``words``."""
    left, right = Counter(t for t in a if t in words), Counter(t for t in b if t in words)
    return sum(((left - right) + (right - left)).values())


def _persons(tokens: Sequence[str]) -> np.ndarray:
    counts = np.zeros(6)
    for token in tokens:
        if token in PERSONS:
            counts[PERSONS[token]] += 1
    return counts


def _capitals(text: str) -> set[str]:
    """Capitalised words not at a sentence's start: names, as a reader without a parser sees them."""
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    return {m.group().lower() for m in re.finditer(r"\b[A-Z][A-Za-z]+", text) if m.start() not in starts}


@functools.lru_cache(maxsize=100_000)
def _lemma(word: str) -> str:
    from authorguard.text.resources import wordnet

    return wordnet().morphy(word) or word


@functools.lru_cache(maxsize=100_000)
def _noun_parents(word: str) -> frozenset[str]:
    """Hypernyms up to two levels above the first two noun senses of ``word``, none too general to tell things
    apart (WordNet depth at least :data:`SPECIFIC_DEPTH`): siblings and cousins share one ("dog", "cat":
    carnivore)."""
    from authorguard.text.resources import wordnet

    found = set()
    for synset in wordnet().synsets(word, pos="n")[:2]:
        parents = synset.hypernyms()
        for parent in [*parents, *(g for p in parents for g in p.hypernyms())]:
            if parent.min_depth() >= SPECIFIC_DEPTH:
                found.add(parent.name())
    return frozenset(found)


@functools.lru_cache(maxsize=100_000)
def _relatives(word: str) -> frozenset[str]:
    """Synonyms, hypernyms and hyponyms of ``word`` (one level, any part of speech): words that keep it true."""
    from authorguard.text.resources import wordnet

    out: set[str] = set()
    for synset in wordnet().synsets(word)[:4]:
        for related in [synset, *synset.hypernyms(), *synset.hyponyms()]:
            out.update(lemma.name().lower() for lemma in related.lemmas())
    return frozenset(out)


def _content(tokens: Sequence[str]) -> set[str]:
    return {_lemma(t) for t in tokens if t not in _STOP and not t[0].isdigit() and len(t) > 1}


def _numbers_moved(a: Sequence[str], b: Sequence[str]) -> int:
    """Numbers both sides say whose next word differs (a figure attached to another noun)."""

    def attached(tokens: Sequence[str]) -> dict[str, str]:
        return {t: tokens[i + 1] if i + 1 < len(tokens) else "" for i, t in enumerate(tokens) if t[0].isdigit()}

    left, right = attached(a), attached(b)
    return sum(left[n] != right[n] for n in set(left) & set(right))


def _inversions(a: Sequence[str], b: Sequence[str]) -> float:
    """The share of pairs of shared content words (each said once on both sides) in the other order."""
    once_a = {t for t, c in Counter(a).items() if c == 1 and t not in _STOP}
    once_b = {t for t, c in Counter(b).items() if c == 1}
    shared = [t for t in a if t in once_b and t in once_a]
    if len(shared) < 3:
        return 0.0
    position = {t: i for i, t in enumerate(b)}
    order = [position[t] for t in shared]
    pairs = len(order) * (len(order) - 1) / 2
    return sum(order[i] > order[j] for i in range(len(order)) for j in range(i + 1, len(order))) / pairs


def _word_pairs(added: set[str], lost: set[str]) -> tuple[int, int]:
    """(co-hyponym pairs, antonym pairs) between the output's new content words and the input's lost ones."""
    siblings = reversed_pairs = 0
    for new in added:
        for old in lost:
            if old in antonyms(new) or new in antonyms(old):
                reversed_pairs += 1
            elif _noun_parents(new) & _noun_parents(old) and new not in _relatives(old) and old not in _relatives(new):
                siblings += 1
    return siblings, reversed_pairs


def rule_features(rule: FidelityScore) -> list[float]:
    """:data:`RULE_FEATURES` of one rule score."""
    onehot = [float(rule.verdict == v) for v in VERDICTS]
    return onehot + [
        rule.recall,
        rule.invented,
        len(rule.new_names),
        len(rule.lost_names),
        float(rule.negations[0] != rule.negations[1]),
        float((rule.questions[0] > 0) != (rule.questions[1] > 0)),
        len(rule.swapped_roles),
        len(rule.changed_agents),
        len(rule.substituted_words),
        rule.paraphrase_cosine or 0.0,
        len(rule.atom_findings),
        len(rule.reasons),
    ]


def lexical_features(source: str, output: str) -> list[float]:
    """:data:`LEXICAL_FEATURES` of one pair."""
    a, b = _tokens(source), _tokens(output)
    content_a, content_b = _content(a), _content(b)
    added, lost = content_b - content_a, content_a - content_b
    siblings, reversed_pairs = _word_pairs(added, lost)
    numbers_a, numbers_b = Counter(t for t in a if t[0].isdigit()), Counter(t for t in b if t[0].isdigit())
    capitals_a, capitals_b = _capitals(source), _capitals(output)
    words_a, words_b = set(a), set(b)
    return [
        _differ(a, b, HEDGES),
        _differ(a, b, TIMES),
        _differ(a, b, FUTURE),
        _differ(a, b, PAST),
        _differ(a, b, NEGATIONS),
        float(np.abs(_persons(a) - _persons(b)).sum()),
        len(capitals_b - capitals_a - words_a),
        len(capitals_a - capitals_b - words_b),
        sum((numbers_b - numbers_a).values()),
        sum((numbers_a - numbers_b).values()),
        _numbers_moved(a, b),
        len(added),
        len(lost),
        siblings,
        reversed_pairs,
        _inversions(a, b),
        len(words_a & words_b) / max(1, len(words_a | words_b)),
        float(np.log((len(b) + 1) / (len(a) + 1))),
    ]


def encoder_features(sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """:data:`ENCODER_FEATURES`, (n, 2): all-MiniLM-L6-v2 cosines of each pair's passages and the lowest cosine
    of an output sentence to the input sentences it aligns with (:func:`.verdict.aligned_sentences`)."""
    from authorguard.embeddings.sentence import load_sentence_encoder
    from authorguard.metrics.fidelity.judge.verdict import aligned_sentences

    encoder = load_sentence_encoder()
    spans = [aligned_sentences(s, o) for s, o in zip(sources, outputs)]
    texts = sorted({t for pair in zip(sources, outputs) for t in pair} | {t for ss in spans for p in ss for t in p})
    vectors = encoder.encode(texts, normalize_embeddings=True, convert_to_numpy=True, batch_size=64)
    index = {t: i for i, t in enumerate(texts)}

    def cosine(x: str, y: str) -> float:
        return float(vectors[index[x]] @ vectors[index[y]])

    return np.array(
        [[cosine(s, o), min(cosine(x, y) for x, y in pairs)] for s, o, pairs in zip(sources, outputs, spans)],
        dtype=np.float32,
    ).reshape(len(sources), len(ENCODER_FEATURES))


def feature_matrix(rules: Sequence[FidelityScore], sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """(n, len(:data:`FEATURES`)) float32: each pair's rule, lexical and encoder features."""
    rows = [rule_features(r) + lexical_features(s, o) for r, s, o in zip(rules, sources, outputs)]
    found = np.array(rows, dtype=np.float32).reshape(len(rows), len(RULE_FEATURES) + len(LEXICAL_FEATURES))
    return np.hstack([found, encoder_features(sources, outputs)]) if rows else np.zeros((0, len(FEATURES)), np.float32)
