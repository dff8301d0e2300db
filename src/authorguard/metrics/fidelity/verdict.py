"""The fidelity meter's verdict on two readings (:func:`judge_pair`): what the output drops, invents, flips or swaps
against its input, the verdict (:data:`VERDICTS`) and its reason (a :class:`FidelityScore`), where each verdict
changes set by :class:`FidelityThresholds` (:mod:`authorguard.metrics.fidelity` describes the rules)."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import asdict, dataclass, field

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity.reading import Reading, related_words
from authorguard.metrics.fidelity.structure import (
    structure_findings,
)
from authorguard.metrics.fidelity.substitution import paraphrased, substitutions

#: the verdicts, from best to worst; ``generalised``: true but less specific — every difference a generalisation
#: (:mod:`.generalised`: a name by what it is, a noun by a broader one, a date's day dropped, a figure
#: rounded with a hedge); ``unsure``: the meter cannot settle it (a new word that may stand for a lost one, or may
#: not) — neither is counted as faithful
VERDICTS = ("faithful", "generalised", "partial", "unsure", "changed")


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
        sentence lost reaches this, is a possible substitution (:mod:`authorguard.metrics.fidelity.substitution`):
        when only such words take invention over ``max_invented``, the verdict is ``unsure``. Above 1: off.
    paraphrase_similarity : float
        New words (invented or substituted) are a paraphrase's own when every output sentence holding one has an
        all-MiniLM-L6-v2 cosine of at least this to the input sentence it aligns with
        (:func:`~authorguard.metrics.fidelity.substitution.paraphrased`); they then count neither as invention
        nor as unsure. Above 1, or without the ``minilm`` extra: off.
    """

    # tuned on half the committed labels (scripts/faithful/meter_agreement.py; docs/results/faithful.md)
    max_invented: float = 0.1
    min_recall: float = 0.5
    max_new_names: int = 0
    agents: bool = False
    negation: bool = True
    substitution_similarity: float = 0.5  # scripts/faithful/substitution_threshold.py, development labels only
    paraphrase_similarity: float = 0.75  # the best mean kappa over the development labels (faithful-heldout.md)

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
    #: what copy-based rewriting broke (units, quotations, loops, lists): a finding no judge overrules
    atom_findings: list[str] = field(default_factory=list)
    #: the meter that gave the verdict: ``rules``, or ``judge`` (the rules joined with the learned judge)
    meter: str = "rules"

    @property
    def reason(self) -> str | None:
        """The reasons in one line (None when faithful or not scored)."""
        return "; ".join(self.reasons) or None

    def to_dict(self) -> dict:
        out = asdict(self)
        out["reason"] = self.reason
        return out


@functools.lru_cache(maxsize=100_000)
def antonyms(word: str) -> frozenset[str]:
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
    related = related_words(word)
    return (
        bool(related & others)
        or bool(related & other_stems)
        or any(word in related_words(o) for o in others)
        or any(_typo(word, o) for o in others)
    )


def _stems(words: set[str]) -> set[str]:
    from authorguard.text.validity import stem

    return {stem(w) for w in words}


def _same_verb(a: str, b: str) -> bool:
    return a == b or b in related_words(a)


def _role_findings(source: Reading, output: Reading) -> tuple[list[str], list[str]]:
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


def _appears(word: str, reading: Reading) -> bool:
    """``word`` (a name or a number) is said by ``reading``: a number as one of its numbers; a name as one of its
    words, two of its words written together (``superbowl`` / ``super bowl``) or a typing slip away
    (:func:`_typo`)."""
    words = set(reading.tokens)
    if word in words or word in reading.bigrams:
        return True
    return any(_typo(word, other) or (len(word) >= 4 and word in other) for other in words)


def judge_pair(source: Reading, output: Reading, thresholds: FidelityThresholds) -> FidelityScore:
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
    reversed_words = sorted(w for w in invented if antonyms(w) & source.content)
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
    settled = _settle_inventions(score, invented_share, source, output, thresholds)
    inventions = [] if settled else [w for w in invented if w not in score.substituted_words]
    changes = _changes(score, source, output, inventions, reversed_words, thresholds)
    losses = _losses(score, recall, source, output, thresholds, changes)
    if changes:
        score.verdict, score.reasons = "changed", changes + losses
    elif invented_share > thresholds.max_invented and not settled:  # only substitutions took it over the threshold
        pairs = ", ".join(f"{w} for {c}" for w, c in list(score.substituted_words.items())[:5])
        score.verdict = "unsure"
        score.reasons = [f"new words that may stand for lost ones (not known synonyms): {pairs}", *losses]
    elif losses:
        score.verdict, score.reasons = "partial", losses
    return score


def _settle_inventions(
    score: FidelityScore, invented_share: float, source: Reading, output: Reading, thresholds: FidelityThresholds
) -> bool:
    """When the output invents more than the threshold allows: whether its sentences say what their input sentences
    said (a paraphrase's own words: settled, ``score.paraphrase_cosine`` set), else which new words stand where the
    aligned input sentence lost a similar one (``score.substituted_words``: a paraphrase's choice, or not)."""
    invented, lost = score.invented_words, score.lost_words
    over = invented_share > thresholds.max_invented  # unrounded: the score's share is rounded for display
    substituted = (
        substitutions(invented, lost, output.sentences, source.sentences, thresholds.substitution_similarity)
        if over and thresholds.substitution_similarity <= 1
        else {}
    )
    if over and thresholds.paraphrase_similarity <= 1:
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
    return settled


def _changes(
    score: FidelityScore,
    source: Reading,
    output: Reading,
    inventions: list[str],
    reversed_words: list[str],
    thresholds: FidelityThresholds,
) -> list[str]:
    """What the output says that the input does not: inventions, opposites, new names, negations, roles, questions,
    and the structural changes (a speaker, who acts, a number moved) that keep every word."""
    changes = []
    if len(inventions) / max(len(output.content), 1) > thresholds.max_invented:
        changes.append(
            f"invents {len(inventions)} of {len(output.content)} content words ({', '.join(inventions[:5])})"
        )
    if reversed_words:
        changes.append(
            "says the opposite: "
            f"{', '.join(f'{w} (input: {sorted(antonyms(w) & source.content)[0]})' for w in reversed_words[:3])}"
        )
    if len(score.new_names) > thresholds.max_new_names:
        changes.append(f"new names or numbers: {', '.join(score.new_names[:5])}")
    if thresholds.negation and source.negations != output.negations:
        changes.append(f"negations {source.negations} -> {output.negations}")
    if score.swapped_roles:
        changes.append(f"who does what swapped: {'; '.join(score.swapped_roles[:3])}")
    if thresholds.agents and score.changed_agents:
        changes.append(f"who acts changed: {'; '.join(score.changed_agents[:3])}")
    if (source.questions > 0) != (output.questions > 0):
        changes.append(f"questions {source.questions} -> {output.questions}")
    return changes


def _losses(
    score: FidelityScore,
    recall: float,
    source: Reading,
    output: Reading,
    thresholds: FidelityThresholds,
    changes: list[str],
) -> list[str]:
    """What the input says that the output lost (a list item, content words below the recall floor, names or
    numbers); the structural changes found on the way are added to CHANGES."""
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
        losses.append(f"says {recall:.0%} of the input's content words (lost: {', '.join(score.lost_words[:5])})")
    if score.lost_names:
        losses.append(f"drops names or numbers: {', '.join(score.lost_names[:5])}")
    return losses
