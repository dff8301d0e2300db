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
- **what copy-based rewriting breaks** (:mod:`authorguard.metrics.fidelity.atoms`): a unit, currency or scale
  detached from its number, a decade read as a year, an abbreviation cut short, a quotation altered or unmarked, a
  loop, a list run together — each makes the verdict ``changed``, named in the reason;
- **meaning that keeps every word** (:mod:`authorguard.metrics.fidelity.structure`): a speaker changed, two agents
  trading verbs, a number moved to another noun, two listed items merged (changes); a list item lost (a loss).

Verdict: ``changed`` when the output invents (invention above the threshold, a new name or number), flips a
negation, swaps or changes who does what, turns a question into an assertion (or the reverse), or breaks what
copy-based rewriting breaks (a unit, a quotation, a loop, a list); else ``unsure`` when the invention above the
threshold is only new words that may stand for words their aligned input sentence lost
(:mod:`authorguard.metrics.fidelity.substitution`: similar by word vectors, not known synonyms) — the meter cannot
settle it, and it is never counted as faithful (new words in a sentence that is rewritten and whose sentence
embedding stays close to its input sentence's are the paraphrase's, and settled: ``paraphrase_similarity``); else
``partial`` when it loses content (recall below the threshold,
a dropped name or number); else ``faithful``. An output equal to
its input up to whitespace is ``faithful`` without parsing; an empty output is not scored (``None``: a withheld
record). Thresholds were tuned on half the committed labels and measured on the other half
(docs/results/faithful.md); they are a :class:`FidelityThresholds`.
"""

from __future__ import annotations

from collections.abc import Sequence

from authorguard.exceptions import InputError
from authorguard.metrics.fidelity.atoms import atom_findings, bracket_findings
from authorguard.metrics.fidelity.generalised import generalisation_findings
from authorguard.metrics.fidelity.reading import METERS, Reading, check_meter, parser, read_parse
from authorguard.metrics.fidelity.verdict import VERDICTS, FidelityScore, FidelityThresholds, judge_pair
from authorguard.text.normalise import RULES

# the meter's whole interface, read from here (the reading and the verdict live in their own modules)
__all__ = [
    "CANONICAL_RULES",
    "METERS",
    "VERDICTS",
    "FidelityMeter",
    "FidelityScore",
    "FidelityThresholds",
    "check_meter",
    "faithful_share",
    "judge",
    "require_meter",
    "verdict_counts",
]

#: the meter reads both texts through every rule of the normaliser: "idk" and "I do not know", "cant" and "cannot",
#: "sooo" and "so", "25 percent" and "25%", "GROSS" and "gross", an aside standing alone as a sentence and the
#: same words without brackets are the same text to it (inside a sentence brackets stay and their loss is read) (a
#: tagger reads "dunno" without its negation; a parse moves with casing and
#: punctuation, and read raw it found who-does-what changes in 24 of 1,000 normalise outputs of blog paragraphs,
#: none after). So the meter cannot see an error the normaliser makes: the blind labels check those.
CANONICAL_RULES = tuple(RULES)

#: from how many pairs :meth:`FidelityMeter.score` parses in several processes
PARALLEL_FROM = 200
#: the longest text the meter reads, in characters (spaCy's own limit: a longer one is not scored, and says so)
MAX_CHARACTERS = 1_000_000


def canonical_text(text: str) -> str:
    """``text`` read through :data:`CANONICAL_RULES`, as the meter reads both sides of a pair."""
    from authorguard.text.normalise import normalise

    return normalise(text, CANONICAL_RULES)


def require_meter(meter: str = "rules") -> None:
    """Load the meter's parser now (and its judge, for a meter other than ``rules``; the feature judge's sentence
    encoder too), or fail with one line: a command checks this before hours of rewriting; an unknown meter is
    refused too."""
    check_meter(meter)
    parser()
    if meter != "rules":
        from authorguard.metrics.fidelity.judge import shared_judge

        shared_judge(meter)
    if meter == "judge":  # its cosines need the minilm extra, read only after the rewriting otherwise
        from authorguard.embeddings.sentence import load_sentence_encoder

        load_sentence_encoder()


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
    meter : {"rules", "judge", "cross-encoder"}, default="rules"
        ``rules``: the rule meter; ``judge``: the rules joined with the packaged feature judge
        (:mod:`authorguard.metrics.fidelity.judge`, the ``minilm`` extra); ``cross-encoder``: joined with a MiniLM
        cross-encoder trained by ``authorguard train judge``. Their agreement with blind readers on the frozen
        held-out pairs: docs/results/judge.md.
    """

    def __init__(
        self,
        thresholds: FidelityThresholds | None = None,
        batch_size: int = 64,
        n_process: int | None = None,
        meter: str = "rules",
    ) -> None:
        self.thresholds = thresholds or FidelityThresholds()
        self.batch_size = batch_size
        self.n_process = n_process
        self.meter = check_meter(meter)

    def read(self, texts: Sequence[str]) -> list[Reading]:
        """Parse ``texts`` once (a researcher scoring many thresholds reads once and judges many times), each read
        through the normaliser first (:data:`CANONICAL_RULES`)."""
        return self._parse([canonical_text(text) for text in texts])

    def _parse(self, canonical: list[str]) -> list[Reading]:
        """Readings of texts already read through :data:`CANONICAL_RULES`."""
        from authorguard.utils.parallel import usable_cores

        if not canonical:
            return []
        cores = usable_cores()
        processes = self.n_process or (min(4, cores) if len(canonical) >= 2 * PARALLEL_FROM else 1)
        return [read_parse(doc) for doc in parser().pipe(canonical, batch_size=self.batch_size, n_process=processes)]

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
                        f"not scored: longer than the meter reads ({max(len(source or ''), len(output)):,} characters "
                        "> "
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
        sources = [canonical_text(inputs[i] or "") for i in todo]
        released = [canonical_text(outputs[i] or "") for i in todo]
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
            score = judge_pair(readings[j], readings[len(judged) + j], self.thresholds)
            if broken[k]:
                score.verdict = "changed"
                score.reasons = broken[k] + score.reasons
                score.atom_findings = list(broken[k])
            elif score.verdict in ("faithful", "partial") and (lost := bracket_findings(sources[k], released[k])):
                # an aside run into its sentence: the words are there, what they were is lost
                score.verdict, score.reasons = "partial", lost + score.reasons
            scores[todo[k]] = score
        done = [score for score in scores if score is not None]
        if len(done) != len(scores):  # every pair gets a score above; a gap would be a bug here, never an input's
            raise RuntimeError("fidelity meter: a pair was left without a score")
        # the feature judge reads the texts as the rules read them; the cross-encoder was trained and calibrated on
        # the texts as written
        as_written = self.meter == "cross-encoder"
        judged_inputs = [inputs[i] or "" for i in todo] if as_written else sources
        judged_outputs = [outputs[i] or "" for i in todo] if as_written else released
        return self._judged(done, judged_inputs, judged_outputs, todo)

    def _judge(self):
        """The consistency judge of :attr:`meter` (loaded once), or None for the rules alone."""
        if self.meter == "rules":
            return None
        if not hasattr(self, "_loaded_judge"):
            from authorguard.metrics.fidelity.judge import shared_judge

            self._loaded_judge = shared_judge(self.meter)
        return self._loaded_judge

    def _judged(self, scores: list[FidelityScore], sources: list[str], outputs: list[str], todo: list[int]):
        """The rule scores of the parsed pairs (positions ``todo``; their texts as the judge reads them) joined with
        the judge's (:mod:`.judge.verdict`)."""
        judge = self._judge()
        if judge is None:
            return scores
        from authorguard.metrics.fidelity.judge.verdict import combined

        if todo:
            rules_only = FidelityMeter(self.thresholds, self.batch_size, n_process=1).score
            found = judge.passage_probabilities([scores[i] for i in todo], sources, outputs, rules_only)
            low, high = judge.calibration.get("low", 0.5), judge.calibration.get("high", 0.5)
            for row, index in zip(found, todo):
                scores[index] = combined(scores[index], row, low, high)
        for score in scores:  # the copies and withheld records too: this meter read them
            score.meter = self.meter
        return scores


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
