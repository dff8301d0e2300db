"""A check kept for its follow-ups (:class:`CheckSession`): the candidate sets, the attackers fitted on them and
their calibration, re-used to re-check an edit or a rewrite; rewrites of the background kept on disk
(:class:`RewriteStore`)."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from authorguard.check.background import Background
from authorguard.check.calibration import probabilities
from authorguard.check.candidates import Candidates, background_runs, candidate_sets, runs_of
from authorguard.check.config import MAX_KNOWN_WORDS, PIECE_WORDS, WRITER, CheckConfig
from authorguard.check.feature_cache import stack_blocks
from authorguard.check.features import AUTHOR_WORDS, BLOCK_WORDS, cut_blocks
from authorguard.check.models import MODELS, SVM_CANDIDATES, merge_parts
from authorguard.check.result import AttackerRanking, CheckResult, RewriteCheck
from authorguard.check.scoring import (
    PARALLEL_CANDIDATES,
    PieceSource,
    calibrate,
    calibration_objective,
    fit_count_model,
    fit_model,
    make_model,
    model_scores,
    writer_rank,
)
from authorguard.check.texts import cut_pieces, word_count
from authorguard.exceptions import AuthorguardError, InputError


def warm_word_tables() -> threading.Thread:
    """Load WordNet (the evidence's common synonyms; ~3 s) in a thread while worker processes fit the attackers
    (in this process it would hold the interpreter the fitting needs)."""

    def load() -> None:
        try:
            from authorguard.text.views import canonical_word

            canonical_word("house")
        except Exception:
            pass

    thread = threading.Thread(target=load, name="authorguard-wordnet", daemon=True)
    thread.start()
    return thread


class FitJob(NamedTuple):
    """One count model to fit (:func:`~authorguard.check.scoring.fit_count_model`'s arguments, in order)."""

    name: str
    seed: int
    train: dict
    labels: list
    vocabulary: dict
    part: tuple[int, int] | None


class CheckSession:
    """A check kept for its follow-ups: the candidate sets (the writer's and the background's pieces as counted
    blocks), the attackers fitted on them, their calibration. ``result``: the check's :class:`CheckResult`;
    :meth:`recheck` scores an edited text with the same attackers (no refit); :meth:`rewrite` rewrites the text with
    a method and checks it under the static and augmented threat models."""

    def __init__(
        self,
        text: str,
        known: list,
        config: CheckConfig,
        piece: int,
        background: Background | None,
        runnable: list,
        say: Callable[[str], None],
    ) -> None:
        self.text, self.known, self.config, self.piece = text, known, config, piece
        self.background, self.runnable, self.say = background, runnable, say
        self.fitted: dict = {}
        self.fits = 0  # attackers fitted (the rewrite step reuses the check's; tests count them)
        self.result: CheckResult | None = None
        self._rewritten_writer: dict = {}
        self._places: dict = {}  # family -> ({column name: column}, the writer's and the others' sums): rates
        self._block_texts: list[str] | None = None  # the text of each row of the block matrix, made when first read
        self._first_source: PieceSource | None = None  # the checked text as first ranked
        self._warming: threading.Thread | None = None  # WordNet loading while the attackers are fitted

    def _checked(self) -> CheckResult:
        """The check's result, which :func:`~authorguard.check.run.prepare` sets before the session is used."""
        if self.result is None:
            raise RuntimeError("the session has no check yet: make it with authorguard.check.prepare")
        return self.result

    def _background(self) -> Background:
        if self.background is None:
            raise InputError("check: no background authors to fit the attackers among")
        return self.background

    # --- the candidates ---------------------------------------------------------------------------------------

    def fit(self) -> None:
        """Place the writer's and the background's pieces in one block matrix, then fit and calibrate every attacker
        at every candidate-set size (the count models as jobs, two workers when the sets are large)."""
        self._place_pieces()
        jobs, local, held_of, parallel = self._fit_jobs()
        self.say(
            f"fitting {len(held_of) + len(local)} attacks ({len(self.runnable)} "
            f"{'attacker' if len(self.runnable) == 1 else 'attackers'} x {len(self.sets)} candidate-set "
            f"{'size' if len(self.sets) == 1 else 'sizes'})"
        )
        models = self._run_jobs(jobs, parallel)
        for key, parts in models.items():
            model = (
                parts[0][1] if parts[0][0] is None else merge_parts([m for _, m in sorted(parts, key=lambda p: p[0])])
            )
            held_counts, candidates = held_of[key]
            scores = model.scores(held_counts)
            self.fitted[key] = (
                model,
                calibrate(
                    scores,
                    model.classes_,
                    candidates.names,
                    candidates.held_labels,
                    self.config.seed,
                    calibration_objective(model),
                ),
            )
        for name, candidates, train, held in local:
            self.say(f"{name}: {len(candidates.names)} candidates")
            model = fit_model(make_model(name, self.config.seed), train, candidates.labels, self.matrix.vocabulary)
            self.fitted[(name, len(candidates.names))] = (model, self._calibrate(model, candidates, held))
        self.fits += len(models) + len(local)
        # the rankings in the order of the sizes, then the attackers asked for
        self.fitted = {key: self.fitted[key] for key in [(n, len(c.names)) for c in self.sets for n in self.runnable]}

    def _place_pieces(self) -> None:
        """The block matrix of the writer's known writing beside the drawn background authors', and the candidate
        sets of each size over it (``self.matrix``, ``self.sets``)."""
        from authorguard.check.feature_cache import background_key, pool_features

        background, config = self._background(), self.config
        pool = background.pool if background.pool is not None else background.authors
        features = pool_features(background_key(background.genre, pool), pool, say=self.say)
        self.features = features
        known_words = min(sum(word_count(k) for k in self.known), MAX_KNOWN_WORDS)
        own_blocks = cut_blocks(self.known, MAX_KNOWN_WORDS)
        blocks = max(1, self.piece // BLOCK_WORDS)
        chosen = background_runs(
            features,
            blocks,
            known_words,
            config.calibration_pieces,
            np.random.default_rng(config.seed),
            max(config.sizes) - 1,
            None if pool is background.authors else set(background.authors),
        )
        used = [range(runs[0][0], runs[-1][-1] + 1) for _, runs in chosen]
        # "words" always: the evidence's rates per 1,000 words read it
        counted = sorted({f for name in self.runnable if name in MODELS for f in MODELS[name].families} | {"words"})
        self.say(f"counting your writing ({len(own_blocks)} blocks) beside {len(chosen)} background authors")
        self.matrix, placed = stack_blocks(features, used, own_blocks, counted)
        self._own_blocks = own_blocks
        self._placed = list(zip([name for name, _ in chosen], used, placed))

        def moved(runs, source: range, target: range):
            return [[target.start + (row - source.start) for row in run] for run in runs]

        drawn: list[tuple[str, list[list[int]], list[list[int]]]] = []
        for (name, runs), source, target in zip(chosen, used, placed):
            runs = moved(runs, source, target)
            drawn.append((name, runs[: -config.calibration_pieces], runs[-config.calibration_pieces :]))
        writer_runs = runs_of(placed[-1], blocks)
        self.sets = candidate_sets(config.sizes, writer_runs, drawn, self._checked().statements)

    def _fit_jobs(self) -> tuple[list[FitJob], list, dict, bool]:
        """(count-model jobs, largest first; the attackers fitted here instead, with their pieces; each count
        model's held-out counts and candidates by (attacker, size); whether two workers share the jobs)."""
        jobs: list[FitJob] = []
        local, held_of = [], {}
        parallel = max(len(c.names) for c in self.sets) >= PARALLEL_CANDIDATES
        for candidates in self.sets:
            train, held = PieceSource(self, candidates.train), PieceSource(self, candidates.held)
            for name in self.runnable:
                if name not in MODELS:
                    local.append((name, candidates, train, held))
                    continue
                families = MODELS[name].families
                held_of[(name, len(candidates.names))] = (held.counts(families), candidates)
                # the character n-gram SVM is most of the work: two workers fit its classes in halves
                halves = parallel and name == "char-ngrams" and len(candidates.names) <= SVM_CANDIDATES
                vocabulary = {f: self.matrix.vocabulary[f] for f in families}
                for part in [(0, 2), (1, 2)] if halves else [None]:
                    jobs.append(
                        FitJob(name, self.config.seed, train.counts(families), candidates.labels, vocabulary, part)
                    )
        jobs.sort(key=lambda job: -sum(matrix.nnz for matrix in job.train.values()) * len(set(job.labels)))
        return jobs, local, held_of, parallel

    def _run_jobs(self, jobs: list[FitJob], parallel: bool) -> dict:
        """Each job's fitted model, grouped by (attacker, candidate-set size) as (part, model) pairs."""
        if parallel and len(jobs) > 1:
            from joblib import Parallel, delayed

            if self.config.evidence:  # this process waits on the workers meanwhile
                self._warming = warm_word_tables()
            done = Parallel(n_jobs=2, backend="loky")(delayed(fit_count_model)(*job) for job in jobs)
        else:
            done = [fit_count_model(*job) for job in jobs]
        models: dict = {}
        for job, model in zip(jobs, done):
            models.setdefault((job.name, len(set(job.labels))), []).append((job.part, model))
        return models

    def run_text(self, run: Sequence[int]) -> str:
        """The text of a piece of the block matrix (its blocks joined by a space)."""
        if self._block_texts is None:
            texts: list[str] = []
            for name, used, _ in self._placed:
                author_blocks = cut_blocks(self._background().authors[name], AUTHOR_WORDS)
                first = used.start - int(self.features.starts[self.features.authors.index(name)])
                texts.extend(author_blocks[first : first + len(used)])
            self._block_texts = texts + list(self._own_blocks)
        return " ".join(self._block_texts[i] for i in run)

    def _calibrate(self, model, candidates: Candidates, held: PieceSource) -> tuple:
        return calibrate(
            model_scores(model, held),
            model.classes_,
            candidates.names,
            candidates.held_labels,
            self.config.seed,
            calibration_objective(model),
        )

    # --- scoring a text ---------------------------------------------------------------------------------------

    def _text_source(self, text: str) -> PieceSource:
        """The text as the attackers read it: whole up to 500 words; longer, cut into pieces of the check's length
        (whose scores are averaged: read at the length the attackers learnt and were calibrated on)."""
        return PieceSource(self, texts=[text] if word_count(text) <= PIECE_WORDS[1] else cut_pieces([text], self.piece))

    def _ranking(
        self, key: tuple, model, source: PieceSource, threat_model: str = "static", calibration: tuple | None = None
    ) -> AttackerRanking:
        name, size = key
        candidates = next(c for c in self.sets if len(c.names) == size)
        order = [list(model.classes_).index(n) for n in candidates.names]
        row = model_scores(model, source).mean(0)[order]
        temperature, error, n, pairs = calibration if calibration is not None else self.fitted[key][1]
        rank, margin = writer_rank(row, 0)
        spread = probabilities(row[None, :], temperature)[0]
        return AttackerRanking(
            name,
            size,
            rank,
            margin,
            float(spread[0]),
            error,
            n,
            temperature,
            threat_model,
            float(spread.max()),
            pairs if threat_model == "static" and calibration is None and source is self._first_source else [],
        )

    def rank(self, text: str) -> tuple[list, list]:
        """(rankings, evidence) of ``text`` by the fitted attackers (nothing refitted)."""
        source = self._text_source(text)
        if self._first_source is None:
            self._first_source = source
        rankings = [self._ranking(key, model, source) for key, (model, _) in self.fitted.items()]
        return rankings, self._evidence(text, source)

    def recheck(self, text: str) -> CheckResult:
        """The check of an edited ``text`` with the attackers fitted for the first (the candidates' pieces keep
        the first text's length): rankings and evidence, in a second or so."""
        start = time.perf_counter()
        if not isinstance(text, str) or not text.strip():
            raise InputError("check: the text is empty")
        first = self._checked()
        result = CheckResult(
            word_count(text),
            first.known_words,
            first.piece_words,
            first.genre,
            first.background,
            first.background_authors,
            statements=list(first.statements),
            genre_reason=first.genre_reason,
        )
        if self.fitted:
            result.rankings, result.evidence = self.rank(text)
        result.seconds = round(time.perf_counter() - start, 2)
        return result

    def _evidence(self, text: str, source: PieceSource) -> list:
        from authorguard.check.evidence import read_evidence

        if self._warming is not None:
            self._warming.join()
            self._warming = None
        largest = len(self.sets[-1].names) if self.fitted else 0
        # the evidence reads the whole text: the ranking's source when it is the whole text (up to 500 words)
        whole = source if source.runs is None and source.texts() == [text] else PieceSource(self, texts=[text])
        out = []
        for (name, size), (model, _) in self.fitted.items():
            if size != largest or self.config.evidence == 0 or name not in MODELS:
                continue
            counts = whole.counts(model.families)
            scores = model.scores(counts).ravel()
            classes = list(model.classes_)
            writer = classes.index(WRITER)
            rival = int(np.argmax(np.where(np.arange(len(classes)) == writer, -np.inf, scores)))
            out.extend(read_evidence(model, self, text, counts, writer, rival, self.config.evidence))
        from authorguard.check.generalisation import with_offers

        return with_offers(text, out)

    def rates(self, family: str, keys: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per 1,000 words: how often the writer's training pieces and the background's (largest set) use each
        of ``keys`` of ``family`` (word counts from the ``words`` family)."""
        if family not in self._places:
            candidates = self.sets[-1]
            own = [row for run, label in zip(candidates.train, candidates.labels) if label == WRITER for row in run]
            others = [row for run, label in zip(candidates.train, candidates.labels) if label != WRITER for row in run]
            sums = []
            for rows in (own, others):
                counts = self.matrix.pieces([rows], [family, "words"])
                sums.append((counts[family].toarray()[0], max(float(counts["words"].sum()), 1.0)))
            self._places[family] = ({k: j for j, k in enumerate(self.matrix.vocabulary[family])}, sums)
        place, sums = self._places[family]
        out = [np.asarray([1000 * row[place[k]] / words if k in place else 0.0 for k in keys]) for row, words in sums]
        return out[0], out[1]

    # --- rewrites ---------------------------------------------------------------------------------------------

    def rewrite(self, method, shown: Callable[[dict], None] | None = None, text: str | None = None) -> RewriteCheck:
        """Rewrite ``text`` (default: the checked text; the page sends the text as it stands after the writer's
        edits) with ``method`` (a registered name, a spec such as ``"bottleneck(level=lemma)"`` or a built text
        method) and check the rewrite: the fitted attackers (static) and, at the smallest set, attackers that also
        learnt from each candidate's first pieces rewritten by the method (augmented; the background's rewrites are
        kept on disk per method and seed, so they are made once). ``shown`` receives the rewrite, its status,
        meaning and fidelity as soon as they are known, before the rankings."""
        from authorguard.methods.build import build_text_method, parse_method_spec

        begin = time.perf_counter()
        result = self._checked()
        if isinstance(method, str):
            name = method
            # the method's own fallback: a rewrite the method cannot protect is shown as written, to its writer
            rewriter = build_text_method(*parse_method_spec(method), self.config.seed, safe_fallback=False)
        else:
            name, rewriter = getattr(method, "name", type(method).__name__), method
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise InputError("check: the text to rewrite is empty")
        written = self.text if text is None else text
        self.say(f"rewriting with {name}")
        from authorguard.batch.obfuscation import obfuscate_texts

        done = obfuscate_texts(rewriter, [written], meter="rules")  # the one pipeline: rewrite, status, fidelity
        output, status = done.texts[0], done.statuses[0]
        if not output or not output.strip():
            found = RewriteCheck(name, None, status["status"], float("nan"), [], round(time.perf_counter() - begin, 2))
            result.rewrites.append(found)
            return found
        from authorguard.metrics.content import embedding_cosines

        cosines = embedding_cosines([written], [output])
        meaning = float(cosines[0]) if cosines else float("nan")
        if not done.scores:  # scored with meter="rules" above: a missing score is a broken pipeline
            raise AuthorguardError("check: the obfuscation pipeline returned no fidelity score for the rewrite")
        fidelity = done.scores[0]
        self.say(f"{name}: fidelity {fidelity.verdict}")
        if shown is not None:
            shown(
                {
                    "method": name,
                    "text": output,
                    "status": status["status"],
                    "meaning": None if np.isnan(meaning) else meaning,
                    "fidelity": fidelity.verdict,
                    "fidelity_reason": fidelity.reason,
                }
            )
        source = self._text_source(output)
        rankings = [self._ranking(key, model, source) for key, (model, _) in self.fitted.items()]
        smallest = self.sets[0]
        self.say(f"{name}: the augmented attackers ({len(smallest.names)} candidates)")
        train = self._augmented(rewriter, name, smallest)
        for attacker in self.runnable:
            model = fit_model(make_model(attacker, self.config.seed), train[0], train[1], self.matrix.vocabulary)
            self.fits += 1
            calibration = self._calibrate(model, smallest, PieceSource(self, smallest.held))
            rankings.append(self._ranking((attacker, len(smallest.names)), model, source, "augmented", calibration))
        found = RewriteCheck(
            name,
            output,
            status["status"],
            meaning,
            rankings,
            round(time.perf_counter() - begin, 2),
            fidelity.verdict,
            fidelity.reason,
        )
        result.rewrites.append(found)
        return found

    def _augmented(self, rewriter, name: str, candidates: Candidates) -> tuple[PieceSource, list]:
        """(training pieces, labels): the candidates' pieces as written plus the first ``augment_pieces`` of each
        rewritten (refused rewrites left out: the attacker learns only from what the method releases)."""
        per = self.config.augment_pieces
        chosen = [
            (run, label)
            for name_ in candidates.names
            for run, label in [(r, lab) for r, lab in zip(candidates.train, candidates.labels) if lab == name_][:per]
        ]
        texts = [self.run_text(run) for run, _ in chosen]
        background = [i for i, (_, label) in enumerate(chosen) if label != WRITER]
        own = [i for i, (_, label) in enumerate(chosen) if label == WRITER]
        outputs: list = [None] * len(texts)
        stored = RewriteStore(name, self.config.seed)
        for i, output in zip(background, stored.rewrite(rewriter, [texts[i] for i in background])):
            outputs[i] = output
        key = (name, tuple(texts[i] for i in own))
        if key not in self._rewritten_writer:  # the writer's writing stays in memory, never on disk
            self._rewritten_writer[key] = rewriter.obfuscate([texts[i] for i in own]) if own else []
        for i, output in zip(own, self._rewritten_writer[key]):
            outputs[i] = output
        extra = [(o, label) for o, (_, label) in zip(outputs, chosen) if o and o.strip()]
        base = PieceSource(self, candidates.train)
        added = PieceSource(self, texts=[o for o, _ in extra])
        families = sorted({f for a in self.runnable if a in MODELS for f in MODELS[a].families})
        base.counts(families)
        added.counts(families)
        return base + added, candidates.labels + [label for _, label in extra]


class RewriteStore:
    """The background's pieces rewritten by one method and seed, kept on disk (``check/rewrites/``) so that each
    is rewritten once: {sha256 of the piece: the rewrite ("" when refused)}."""

    def __init__(self, method: str, seed: int) -> None:
        from authorguard.config import cache_dir

        digest = hashlib.sha256(f"{method}\x00{seed}".encode()).hexdigest()[:16]
        self.path = cache_dir() / "check" / "rewrites" / f"{digest}.jsonl"
        self.found: dict = {}
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self.found[row["piece"]] = row["rewrite"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    continue  # a damaged line (an interrupted write) is rewritten again

    @staticmethod
    def key(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def rewrite(self, rewriter, texts: list) -> list:
        missing = list(dict.fromkeys(t for t in texts if self.key(t) not in self.found))
        if missing:
            outputs = rewriter.obfuscate(missing)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                for text, output in zip(missing, outputs):
                    self.found[self.key(text)] = output or ""
                    handle.write(json.dumps({"piece": self.key(text), "rewrite": output or ""}) + "\n")
        return [self.found[self.key(t)] for t in texts]
