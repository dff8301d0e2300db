"""The fidelity meter: does a rewrite say what its input says? A verdict per (input, output) pair, with the reason.

Reads both texts with spaCy's dependency parse (en_core_web_sm, shipped by a PyPI package) and compares what a
reader checks (docs/results/bottleneck/fidelity-reading.md):

- **content words** (nouns, proper nouns, verbs, adjectives, adverbs, numbers; lemmas): *recall*, the share of the
  input's that the output says, and *invention*, the share of the output's that the input does not support. A word
  is supported by the same lemma, a WordNet synonym of it, a shared stem (``decision`` / ``decide``) or a spelling
  variant (``colour`` / ``color``).
- **names and numbers**: those of the input the output drops, and those the output has that the input does not.
- **negations**: the number of negated clauses (``not``, ``n't``, ``never``, ``no`` …) on each side.
- **who does what**: (agent, verb, patient) triples from the parse, pronouns included, passives read as their
  active form; an output that gives a verb the input's patient as agent (or the reverse) swaps roles; one that gives
  a verb an agent the input never gives it changes who acts.
- **questions**: the number of questions on each side.
- **what copy-based rewriting breaks** (:mod:`authorguard.metrics.fidelity_atoms`): a unit, currency or scale
  detached from its number, a decade read as a year, an abbreviation cut short, a quotation altered or unmarked, a
  loop, a list run together — each makes the verdict ``changed``, named in the reason;
- **meaning that keeps every word** (:mod:`authorguard.metrics.fidelity_structure`): a speaker changed, two agents
  trading verbs, a number moved to another noun, two listed items merged (changes); a list item lost (a loss).

Verdict: ``changed`` when the output invents (invention above the threshold, a new name or number), flips a
negation, swaps or changes who does what, turns a question into an assertion (or the reverse), or breaks what
copy-based rewriting breaks (a unit, a quotation, a loop, a list); else ``unsure`` when the invention above the
threshold is only new words that may stand for words their aligned input sentence lost
(:mod:`authorguard.metrics.fidelity_substitution`: similar by word vectors, not known synonyms) — the meter cannot
settle it, and it is never counted as faithful (new words in a sentence that is rewritten and whose sentence
embedding stays close to its input sentence's are the paraphrase's, and settled: ``paraphrase_similarity``); else ``partial`` when it loses content (recall below the threshold,
a dropped name or number); else ``faithful``. An output equal to
its input up to whitespace is ``faithful`` without parsing; an empty output is not scored (``None``: a withheld
record). Thresholds were tuned on half the committed labels and measured on the other half
(docs/results/faithful.md); they are a :class:`FidelityThresholds`.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity_atoms import atom_findings, bracket_findings
from authorguard.metrics.fidelity_generalised import generalisation_findings
from authorguard.metrics.fidelity_structure import (
    PRONOUN,
    Structure,
    agent_of,
    numbers_of,
    read_structure,
    structure_findings,
)
from authorguard.metrics.fidelity_substitution import paraphrased, substitutions
from authorguard.text.normalise import RULES

#: the verdicts, from best to worst; ``generalised``: true but less specific — every difference a generalisation
#: (:mod:`.fidelity_generalised`: a name by what it is, a noun by a broader one, a date's day dropped, a figure
#: rounded with a hedge); ``unsure``: the meter cannot settle it (a new word that may stand for a lost one, or may
#: not) — neither is counted as faithful
VERDICTS = ("faithful", "generalised", "partial", "unsure", "changed")

_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV", "NUM"})
_NAME_ENTS = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW"})
_NEGATIONS = frozenset(
    {"not", "n't", "never", "no", "nothing", "nobody", "none", "neither", "nor", "nowhere", "cannot", "without"}
)
_SUBJECTS = frozenset({"nsubj", "csubj"})
_PASSIVE_SUBJECTS = frozenset({"nsubjpass", "csubjpass"})
_OBJECTS = frozenset({"dobj", "obj", "dative", "attr", "oprd"})


@dataclass(frozen=True)
class FidelityThresholds:
    """Where a verdict changes (docs/results/faithful.md says how each was chosen).

    Parameters
    ----------
    max_invented : float
        Above this share of the output's content words unsupported by the input: ``changed`` (invention).
    min_recall : float
        Below this share of the input's content words said by the output: ``partial`` (content lost).
    max_new_names : int
        More names or numbers than this in the output and not in the input: ``changed``.
    agents : bool
        Whether a verb given an agent the input never gives it makes the verdict ``changed`` (a swap of agent and
        patient always does). Off by default: on the tuning half it cost agreement (the parse of informal text
        is noisy); the findings are reported either way.
    negation : bool
        Whether a different number of negations makes the verdict ``changed``.
    substitution_similarity : float
        An output word WordNet does not relate to the input, whose GloVe cosine to a word its aligned input
        sentence lost reaches this, is a possible substitution (:mod:`authorguard.metrics.fidelity_substitution`):
        when only such words take invention over ``max_invented``, the verdict is ``unsure``. Above 1: off.
    paraphrase_similarity : float
        New words (invented or substituted) are a paraphrase's own when every output sentence holding one has an
        all-MiniLM-L6-v2 cosine of at least this to the input sentence it aligns with
        (:func:`~authorguard.metrics.fidelity_substitution.paraphrased`); they then count neither as invention
        nor as unsure. Above 1, or without the ``minilm`` extra: off.
    """

    # tuned on half the committed labels (scripts/faithful/meter_agreement.py; docs/results/faithful.md)
    max_invented: float = 0.1
    min_recall: float = 0.5
    max_new_names: int = 0
    agents: bool = False
    negation: bool = True
    substitution_similarity: float = 0.5  # scripts/faithful/substitution_threshold.py, development labels only
    paraphrase_similarity: float = 0.75  # the best mean kappa over the development labels (issue 65 page)

    def __post_init__(self) -> None:
        for name in ("max_invented", "min_recall"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise InputError(f"FidelityThresholds.{name} must be in [0, 1]; got {value}")
        if self.paraphrase_similarity < 0:
            raise InputError(f"FidelityThresholds.paraphrase_similarity must be >= 0; got {self.paraphrase_similarity}")
        if self.max_new_names < 0:
            raise InputError(f"FidelityThresholds.max_new_names must be >= 0; got {self.max_new_names}")


@dataclass
class FidelityScore:
    """The meter's reading of one (input, output) pair.

    ``recall`` and ``invented`` are shares in [0, 1] of content-word types; the lists hold the words behind each
    finding (lower case); ``verdict`` is one of :data:`VERDICTS`, or None for an empty output (not scored)."""

    verdict: str | None
    reasons: list[str] = field(default_factory=list)
    recall: float = 1.0
    invented: float = 0.0
    lost_words: list[str] = field(default_factory=list)
    invented_words: list[str] = field(default_factory=list)
    lost_names: list[str] = field(default_factory=list)
    new_names: list[str] = field(default_factory=list)
    negations: tuple[int, int] = (0, 0)
    questions: tuple[int, int] = (0, 0)
    swapped_roles: list[str] = field(default_factory=list)
    changed_agents: list[str] = field(default_factory=list)
    substituted_words: dict[str, str] = field(default_factory=dict)
    #: the lowest sentence cosine that settled new words as a paraphrase's (None: none settled so)
    paraphrase_cosine: float | None = None

    @property
    def reason(self) -> str | None:
        """The reasons in one line (None when faithful or not scored)."""
        return "; ".join(self.reasons) or None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["reason"] = self.reason
        return out


@dataclass
class _Reading:
    """What the meter reads off one parsed text."""

    content: set[str]
    names: set[str]
    numbers: tuple[str, ...]
    negations: int
    questions: int
    triples: list[tuple[str, str, str]]
    tokens: tuple[str, ...]
    bigrams: frozenset[str]
    sentences: tuple[frozenset[str], ...] = ()
    structure: Structure = Structure()
    sentence_texts: tuple[str, ...] = ()

    @property
    def words(self) -> set[str]:
        """Every word it says: content lemmas, words as written, pronouns as their person."""
        return self.content | set(self.tokens) | {PRONOUN.get(t, t) for t in self.tokens}


def require_meter() -> None:
    """Load the meter's parser now, or fail with one line: a command checks this before hours of rewriting."""
    _nlp()


def _nlp():
    from authorguard.text.resources import spacy_pipeline

    return spacy_pipeline()


#: how many of a word's WordNet senses (most frequent first) lend their hypernyms and derivations; synonyms come
#: from every sense (2 senses for both was tried: equal kappa on the tuning half, lower on the held-out one)
SENSES = 4


@functools.lru_cache(maxsize=200_000)
def _related(word: str) -> frozenset[str]:
    """``word``, its spelling variant, its WordNet synonyms, the lemmas of the direct hypernyms of its :data:`SENSES`
    most frequent senses, their derivationally related forms and their Porter stems: what an output may say for
    ``word`` and stay supported."""
    from authorguard.text.analysis import wordnet_synonyms
    from authorguard.text.normalise_words import SPELLING
    from authorguard.text.resources import english_stop_words, wordnet
    from authorguard.text.validity import stem

    forms = {word, SPELLING.get(word, word)} | wordnet_synonyms(word, "all")
    for synset in wordnet().synsets(word)[:SENSES]:
        # one level up: "mom" is said by "mother", "discuss" by "talk about"
        for kin in [synset, *synset.hypernyms()]:
            for lemma in kin.lemmas():
                forms.update(part for part in lemma.name().lower().split("_") if part not in english_stop_words())
                forms.update(related.name().lower() for related in lemma.derivationally_related_forms())
    return frozenset(forms | {stem(f) for f in forms})


_QUESTION_END = re.compile(r"\?[!?.\s\"')]*$")


#: words that say "not" in one word: a paraphrase writes "unless Congress acts" for "if Congress does not act",
#: "unable" for "cannot" ("unusual" / "rare", "failure" / "failed" are not negations: left out)
_LEXICAL_NEGATIONS = frozenset({"unless", "unable"})


def _negates(token) -> bool:
    """Whether a token says "not": a negation word or one of :data:`_LEXICAL_NEGATIONS`; not the "or not" of
    "whether or not" (which asks, and negates nothing)."""
    word = token.lower_
    if word in _NEGATIONS or token.norm_ in _NEGATIONS:
        after_whether = (
            token.i >= 2 and token.doc[token.i - 1].lower_ == "or" and token.doc[token.i - 2].lower_ == "whether"
        )
        return not (word == "not" and after_whether)
    return word in _LEXICAL_NEGATIONS


def _read(doc) -> _Reading:
    content, names, numbers, triples = set(), set(), [], []
    sentences: list[frozenset[str]] = []
    for entity in doc.ents:  # names: what the entity recogniser calls one (a capitalised interjection is not)
        if entity.label_ in _NAME_ENTS:
            names.update(t.lower_ for t in entity if t.is_alpha and not t.is_stop and len(t) > 1)
        elif entity.label_ in ("DATE", "TIME"):  # the named days and months of a date: "Sunday", "May"
            names.update(t.lower_ for t in entity if t.is_alpha and t.pos_ == "PROPN")
    for token in doc:
        found = (
            numbers_of(token) if token.like_num or token.pos_ == "NUM" or any(c.isdigit() for c in token.text) else []
        )
        if found:
            numbers.extend(found)
            continue
        if token.pos_ in _CONTENT_POS and token.is_alpha and not token.is_stop and len(token.text) > 1:
            content.add(token.lemma_.lower())
        if token.pos_ in ("VERB", "AUX") and token.dep_ != "aux" and token.dep_ != "auxpass":
            agents, patients = [], []
            for child in token.children:
                if child.dep_ in _SUBJECTS:
                    agents.append(agent_of(child))
                elif child.dep_ in _PASSIVE_SUBJECTS or child.dep_ in _OBJECTS:
                    patients.append(agent_of(child))
                elif child.dep_ == "agent":  # "by X" of a passive
                    agents.extend(agent_of(g) for g in child.children if g.dep_ == "pobj")
            verb = token.lemma_.lower()
            for agent in agents or ["-"]:
                for patient in patients or ["-"]:
                    if agent != "-" or patient != "-":
                        triples.append((agent, verb, patient))
    # words, not the parse: the parse of the same words moves with casing and punctuation ("n't" is normed "not")
    negations = sum(1 for t in doc if _negates(t))
    # a question ends in a run of marks that holds a "?" ("really?!" is one, as its normalised "really?" is)
    questions = sum(1 for sentence in doc.sents if _QUESTION_END.search(sentence.text))
    tokens = tuple(t.lower_ for t in doc if t.is_alpha)
    bigrams = frozenset(a + b for a, b in zip(tokens, tokens[1:]))
    for sentence in doc.sents:
        sentences.append(
            frozenset(
                t.lemma_.lower()
                for t in sentence
                if t.pos_ in _CONTENT_POS and t.is_alpha and not t.is_stop and len(t.text) > 1
            )
        )
    return _Reading(
        content,
        names,
        tuple(numbers),
        negations,
        questions,
        triples,
        tokens,
        bigrams,
        tuple(sentences),
        read_structure(doc),
        tuple(sentence.text for sentence in doc.sents),
    )


@functools.lru_cache(maxsize=100_000)
def _antonyms(word: str) -> frozenset[str]:
    """WordNet antonyms of ``word`` in any sense: an output that puts one where the input had the other reverses a
    claim ("friends" / "enemies", "won" / "lost")."""
    from authorguard.text.resources import wordnet

    return frozenset(
        antonym.name().lower()
        for synset in wordnet().synsets(word)
        for lemma in synset.lemmas()
        for antonym in lemma.antonyms()
    )


def _supported(word: str, others: set[str], other_stems: set[str]) -> bool:
    """True when ``others`` say ``word``: the same lemma or a related form, either way round (one is the other's
    synonym, stem, derivation or one-level hypernym)."""
    if word in others:
        return True
    related = _related(word)
    return (
        bool(related & others)
        or bool(related & other_stems)
        or any(word in _related(o) for o in others)
        or any(_typo(word, o) for o in others)
    )


def _stems(words: set[str]) -> set[str]:
    from authorguard.text.validity import stem

    return {stem(w) for w in words}


def _same_verb(a: str, b: str) -> bool:
    return a == b or b in _related(a)


def _role_findings(source: _Reading, output: _Reading) -> tuple[list[str], list[str]]:
    swapped, changed = [], []
    for agent, verb, patient in output.triples:
        theirs = [(a, p) for a, v, p in source.triples if _same_verb(verb, v)]
        if not theirs:
            continue
        if (
            "-" not in (agent, patient)
            and any(a == patient and p == agent and a != p for a, p in theirs)
            and (agent, patient) not in theirs
        ):
            swapped.append(f"{agent} {verb} {patient}")
        elif (
            agent != "-"
            and all(a != "-" for a, _ in theirs)
            and agent not in {a for a, _ in theirs}
            and not any(_same_verb(agent, a) for a, _ in theirs)
        ):
            changed.append(f"{agent} {verb} (input: {', '.join(sorted({a for a, _ in theirs}))})")
    return swapped, changed


def _typo(a: str, b: str) -> bool:
    """One typing slip apart: two neighbouring letters swapped, or one letter changed, added or dropped; words of
    five letters or more only ("detriot" / "detroit"; not "austria" / "australia")."""
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _appears(word: str, reading: _Reading) -> bool:
    """``word`` (a name or a number) is said by ``reading``: a number as one of its numbers; a name as one of its
    words, two of its words written together (``superbowl`` / ``super bowl``) or a typing slip away
    (:func:`_typo`)."""
    words = set(reading.tokens)
    if word in words or word in reading.bigrams:
        return True
    return any(_typo(word, other) or (len(word) >= 4 and word in other) for other in words)


def judge(source: _Reading, output: _Reading, thresholds: FidelityThresholds) -> FidelityScore:
    """The verdict for one pair of readings (see the module's docstring)."""
    source_stems, output_stems = _stems(source.content), _stems(output.content)
    lost = sorted(w for w in source.content if not _supported(w, output.content, output_stems))
    invented = sorted(w for w in output.content if not _supported(w, source.content, source_stems))
    recall = 1 - len(lost) / len(source.content) if source.content else 1.0
    invented_share = len(invented) / len(output.content) if output.content else 0.0
    # numbers as multisets: "Room 5 costs $50" -> "Room 50 costs $50" has a 50 the input does not
    lost_numbers = Counter(source.numbers) - Counter(output.numbers)
    new_numbers = Counter(output.numbers) - Counter(source.numbers)
    lost_names = sorted([n for n in source.names if not _appears(n, output)] + list(lost_numbers))
    new_names = sorted([n for n in output.names if not _appears(n, source)] + list(new_numbers))
    swapped, changed_agents = _role_findings(source, output)
    reversed_words = sorted(w for w in invented if _antonyms(w) & source.content)
    score = FidelityScore(
        verdict="faithful",
        recall=round(recall, 4),
        invented=round(invented_share, 4),
        lost_words=lost,
        invented_words=invented,
        lost_names=lost_names,
        new_names=new_names,
        negations=(source.negations, output.negations),
        questions=(source.questions, output.questions),
        swapped_roles=swapped,
        changed_agents=changed_agents,
    )
    # a new word that stands where its aligned input sentence lost a similar one may be a paraphrase's choice: what
    # is left after those is invention; the rest cannot be settled by this meter (unsure, never faithful)
    substituted = (
        substitutions(invented, lost, output.sentences, source.sentences, thresholds.substitution_similarity)
        if invented_share > thresholds.max_invented and thresholds.substitution_similarity <= 1
        else {}
    )
    # ... unless the sentences they stand in say what their input sentences said (a paraphrase's own words)
    if invented_share > thresholds.max_invented and thresholds.paraphrase_similarity <= 1:
        score.paraphrase_cosine = paraphrased(
            invented,
            output.sentences,
            source.sentences,
            output.sentence_texts,
            source.sentence_texts,
            thresholds.paraphrase_similarity,
        )
    settled = score.paraphrase_cosine is not None
    if settled:
        substituted = {}
    score.substituted_words = {w: f"{c} ({sim:.2f})" for w, (c, sim) in substituted.items()}
    inventions = [] if settled else [w for w in invented if w not in substituted]
    changes = []
    if len(inventions) / max(len(output.content), 1) > thresholds.max_invented:
        changes.append(
            f"invents {len(inventions)} of {len(output.content)} content words ({', '.join(inventions[:5])})"
        )
    if reversed_words:
        changes.append(
            f"says the opposite: {', '.join(f'{w} (input: {sorted(_antonyms(w) & source.content)[0]})' for w in reversed_words[:3])}"
        )
    if len(new_names) > thresholds.max_new_names:
        changes.append(f"new names or numbers: {', '.join(new_names[:5])}")
    if thresholds.negation and source.negations != output.negations:
        changes.append(f"negations {source.negations} -> {output.negations}")
    if swapped:
        changes.append(f"who does what swapped: {'; '.join(swapped[:3])}")
    if thresholds.agents and changed_agents:
        changes.append(f"who acts changed: {'; '.join(changed_agents[:3])}")
    if (source.questions > 0) != (output.questions > 0):
        changes.append(f"questions {source.questions} -> {output.questions}")
    # meaning that keeps every word: a speaker changed, who acts moved, a number moved, a list item lost
    structural_changes, structural_losses = structure_findings(
        source.triples,
        output.triples,
        source.words,
        output.words,
        source.structure,
        output.structure,
        lambda word, words: _supported(word, words, _stems(words)),
    )
    changes.extend(structural_changes)
    losses = list(structural_losses)
    if recall < thresholds.min_recall:
        losses.append(f"says {recall:.0%} of the input's content words (lost: {', '.join(lost[:5])})")
    if lost_names:
        losses.append(f"drops names or numbers: {', '.join(lost_names[:5])}")
    if changes:
        score.verdict, score.reasons = "changed", changes + losses
    elif invented_share > thresholds.max_invented and not settled:  # only substitutions took it over the threshold
        pairs = ", ".join(f"{w} for {c}" for w, c in list(score.substituted_words.items())[:5])
        score.verdict = "unsure"
        score.reasons = [f"new words that may stand for lost ones (not known synonyms): {pairs}", *losses]
    elif losses:
        score.verdict, score.reasons = "partial", losses
    return score


#: the meter reads both texts through every rule of the normaliser: "idk" and "I do not know", "cant" and "cannot",
#: "sooo" and "so", "25 percent" and "25%", "GROSS" and "gross", an aside standing alone as a sentence and the
#: same words without brackets are the same text to it (inside a sentence brackets stay and their loss is read) (a tagger reads "dunno" without its negation; a parse moves with casing and
#: punctuation, and read raw it found who-does-what changes in 24 of 1,000 normalise outputs of blog paragraphs,
#: none after). So the meter cannot see an error the normaliser makes: the blind labels check those.
CANONICAL_RULES = tuple(RULES)

#: from how many pairs :meth:`FidelityMeter.score` parses in several processes
PARALLEL_FROM = 200
#: the longest text the meter reads, in characters (spaCy's own limit: a longer one is not scored, and says so)
MAX_CHARACTERS = 1_000_000


def _canonical(text: str) -> str:
    from authorguard.text.normalise import normalise

    return normalise(text, CANONICAL_RULES)


class FidelityMeter:
    """Score (input, output) pairs: ``score(inputs, outputs)`` -> one :class:`FidelityScore` per pair.

    Parameters
    ----------
    thresholds : FidelityThresholds, optional
        Where verdicts change (default: the ones tuned on the committed labels).
    batch_size : int, default=64
        Texts per spaCy batch.
    n_process : int or None, default=None
        Parsing processes; None: every core this process may use (at most 4) for :data:`PARALLEL_FROM` pairs or
        more, else one (a process costs about a second to start; parsing is most of the meter's time: 5,400
        words/s a core). Callers that already run in parallel workers pass 1.
    """

    def __init__(
        self, thresholds: FidelityThresholds | None = None, batch_size: int = 64, n_process: int | None = None
    ) -> None:
        self.thresholds = thresholds or FidelityThresholds()
        self.batch_size = batch_size
        self.n_process = n_process

    def read(self, texts: Sequence[str]) -> list[_Reading]:
        """Parse ``texts`` once (a researcher scoring many thresholds reads once and judges many times), each read
        through the normaliser first (:data:`CANONICAL_RULES`)."""
        return self._parse([_canonical(text) for text in texts])

    def _parse(self, canonical: list[str]) -> list[_Reading]:
        """Readings of texts already read through :data:`CANONICAL_RULES`."""
        import os

        if not canonical:
            return []
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        processes = self.n_process or (min(4, cores) if len(canonical) >= 2 * PARALLEL_FROM else 1)
        return [_read(doc) for doc in _nlp().pipe(canonical, batch_size=self.batch_size, n_process=processes)]

    def score(self, inputs: Sequence[str | None], outputs: Sequence[str | None]) -> list[FidelityScore]:
        """One score per pair, in order. An output equal to its input up to whitespace is faithful unparsed; an
        empty or missing output (a withheld record) gets ``verdict=None``; an empty input with a non-empty output is
        ``changed`` (everything in it is invented)."""
        inputs, outputs = list(inputs), list(outputs)
        if len(inputs) != len(outputs):
            raise InputError(f"the fidelity meter got {len(inputs)} inputs but {len(outputs)} outputs")
        scores: list[FidelityScore | None] = [None] * len(inputs)
        todo = []
        for index, (source, output) in enumerate(zip(inputs, outputs)):
            for name, value in (("input", source), ("output", output)):
                if value is not None and not isinstance(value, str):
                    raise InputError(f"pair {index}: the {name} must be a str; got {type(value).__name__}")
            if not output or not output.strip():
                scores[index] = FidelityScore(verdict=None, reasons=["no output (withheld): not scored"])
            elif max(len(source or ""), len(output)) > MAX_CHARACTERS:
                scores[index] = FidelityScore(
                    verdict=None,
                    reasons=[
                        f"not scored: longer than the meter reads ({max(len(source or ''), len(output)):,} characters > "
                        f"{MAX_CHARACTERS:,})"
                    ],
                )
            elif " ".join((source or "").split()) == " ".join(output.split()):
                scores[index] = FidelityScore(verdict="faithful")
            elif not source or not source.strip():
                scores[index] = FidelityScore(
                    verdict="changed", reasons=["the input is empty: everything is invented"], invented=1.0
                )
            else:
                todo.append(index)
        # both sides through the normaliser once, for the parse and the atom findings alike ("I'm" in a
        # quotation is "I am" written out)
        sources = [_canonical(inputs[i] or "") for i in todo]
        released = [_canonical(outputs[i] or "") for i in todo]
        # what copy-based rewriting breaks and content words do not show: units, quotations, loops, lists; a pair
        # whose every difference is a truthful generalisation is settled here, unparsed (the parse is the cost)
        broken = [atom_findings(a, b) for a, b in zip(sources, released)]
        judged = []
        for k, index in enumerate(todo):
            generalised = None if broken[k] else generalisation_findings(sources[k], released[k])
            if generalised:  # every difference makes the text less specific, none makes it false
                scores[index] = FidelityScore(verdict="generalised", reasons=generalised)
            else:
                judged.append(k)
        readings = self._parse([sources[k] for k in judged] + [released[k] for k in judged])
        for j, k in enumerate(judged):
            score = judge(readings[j], readings[len(judged) + j], self.thresholds)
            if broken[k]:
                score.verdict = "changed"
                score.reasons = broken[k] + score.reasons
            elif score.verdict in ("faithful", "partial") and (lost := bracket_findings(sources[k], released[k])):
                # an aside run into its sentence: the words are there, what they were is lost
                score.verdict, score.reasons = "partial", lost + score.reasons
            scores[todo[k]] = score
        return scores  # type: ignore[return-value]


def verdict_counts(scores: Sequence[FidelityScore]) -> dict[str, int]:
    """``{"faithful": n, "generalised": n, "partial": n, "unsure": n, "changed": n, "not scored": n}`` (zeros
    included)."""
    counts = dict.fromkeys(VERDICTS, 0) | {"not scored": 0}
    for score in scores:
        counts[score.verdict or "not scored"] += 1
    return counts


def faithful_share(scores: Sequence[FidelityScore]) -> float | None:
    """The share of scored pairs that are faithful (None when none was scored)."""
    scored = [s for s in scores if s.verdict is not None]
    return sum(s.verdict == "faithful" for s in scored) / len(scored) if scored else None
