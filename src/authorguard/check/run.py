"""The writer's check: would an attacker holding your known writing pick you out as the author of a text?

The candidates are the writer and ``size - 1`` background authors (:mod:`authorguard.check.background`). Every
candidate's writing is cut into pieces as long as the text (100 to 500 words), the writer's from the known writing
and each background author's from as many words as the writer has, so that no candidate is favoured by having more
or longer texts; each background author also keeps ``calibration_pieces`` later pieces aside. Each attacker that
fits the amount of known text is trained on the pieces, ranks the candidates for the text, and is calibrated by
temperature scaling on the held-out pieces (:mod:`authorguard.check.calibration`). Candidate sets are nested (the
10 are among the 100), drawn by ``seed``.

The rewrite step rewrites the text with each method and checks the rewrite under two threat models: ``static``
(the attackers above) and ``augmented`` (attackers that also learnt from each candidate's pieces rewritten by the
method, at the smallest size, at most ``augment_pieces`` pieces a candidate — rewriting is the slow part).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from authorguard.check.background import GENRES, Background, genre_of, load_background
from authorguard.check.calibration import (
    calibration_error,
    cross_fitted,
    fit_temperature,
    probabilities,
)
from authorguard.check.features import (
    AUTHOR_WORDS,
    BLOCK_WORDS,
    count_texts,
    cut_blocks,
    stack_blocks,
)
from authorguard.check.models import (
    MODELS,
    SVM_CANDIDATES,
    CosineCentroids,
    merge_parts,
)
from authorguard.check.result import AttackerRanking, CheckResult, RewriteCheck
from authorguard.check.texts import cut_pieces, word_count
from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: run by default: the attackers that fit on 2 cores in seconds (the author encoder embeds every piece: minutes on
#: a CPU at 100 candidates; ask for it with ``attackers``)
DEFAULT_ATTACKERS = ("char-ngrams", "function-words", "writeprints-text")
#: the fewest words of known writing an attacker is run with — chosen, not yet measured (docs/results/check.md)
MIN_KNOWN_WORDS = {
    "char-ngrams": 500,
    "bow": 1000,
    "function-words": 1000,
    "writeprints": 1500,
    "writeprints-text": 1500,
    "author-embedding": 500,
    "meaning": 1000,
}
#: below this many words a text is not checked at all: too little to tell anyone's style
MIN_TEXT_WORDS = 50
PIECE_WORDS = (100, 500)
#: the longest text and the most known writing a check reads (a longer text is several texts; beyond this much known
#: writing the first :data:`MAX_KNOWN_WORDS` words are learnt from anyway)
TEXT_LIMIT_WORDS = 5_000
KNOWN_LIMIT_WORDS = 200_000


def check_limits(text: str, known: Sequence[str]) -> None:
    """One line when ``text`` or ``known`` is larger than a check reads (:data:`TEXT_LIMIT_WORDS`,
    :data:`KNOWN_LIMIT_WORDS`)."""
    words = word_count(text)
    if words > TEXT_LIMIT_WORDS:
        raise InputError(
            f"the text has {words:,} words; a check reads at most {TEXT_LIMIT_WORDS:,} (check a long text in parts)"
        )
    known_words = sum(word_count(k) for k in known)
    if known_words > KNOWN_LIMIT_WORDS:
        raise InputError(
            f"the known writing has {known_words:,} words; a check reads at most "
            f"{KNOWN_LIMIT_WORDS:,} (and learns from the first {MAX_KNOWN_WORDS:,})"
        )


@dataclass(frozen=True)
class CheckConfig:
    """``sizes``: candidate-set sizes (writer included); ``attackers``: registered attackers that give scores;
    ``calibration_pieces``: held-out pieces per background author; ``augment_pieces``: rewritten pieces per candidate
    for the augmented threat model; ``evidence``: features shown per attacker; ``seed``: draws and attackers."""

    sizes: tuple = (10, 100)
    attackers: tuple = DEFAULT_ATTACKERS
    calibration_pieces: int = 4
    augment_pieces: int = 3
    evidence: int = 6
    seed: int = 0

    def __post_init__(self) -> None:
        from authorguard import registry

        if not self.sizes or any(not isinstance(s, int) or s < 2 for s in self.sizes):
            raise InputError(f"check: candidate-set sizes must be integers of 2 or more, got {list(self.sizes)}")
        if not self.attackers:
            raise InputError("check: no attackers")
        for name in self.attackers:
            registry.attackers.get(name)  # an unknown name is one line listing the known ones
        check_number(self.calibration_pieces, "calibration_pieces", "check", kind=int, low=1, closed="left")
        check_number(self.augment_pieces, "augment_pieces", "check", kind=int, low=1, closed="left")
        check_number(self.evidence, "evidence", "check", kind=int, low=0, closed="left")
        check_number(self.seed, "seed", "check", kind=int, low=0, closed="left")


WRITER = "\u2063you"  # a name no corpus author has
#: the most words of known writing learnt from (the first ones): each background author stands beside the writer
#: with as many words, and the cache holds :data:`~authorguard.check.features.AUTHOR_WORDS` words of each,
#: four held-out pieces of up to 500 words included
MAX_KNOWN_WORDS = AUTHOR_WORDS - 4 * PIECE_WORDS[1]


@dataclass
class Candidates:
    """One candidate set: ``names[0]`` is the writer; ``train``/``labels`` the training pieces (each a run of rows
    of the check's :class:`~authorguard.check.features.BlockMatrix`) and their authors; ``held``/``held_labels``
    the background authors' calibration pieces (indices into ``names``)."""

    names: list
    train: list
    labels: list
    held: list = field(default_factory=list)
    held_labels: list = field(default_factory=list)


def piece_words(text_words: int) -> int:
    """The length of the pieces every candidate is learnt from: the text's, within :data:`PIECE_WORDS`, to the
    nearest block (:data:`~authorguard.check.features.BLOCK_WORDS` words)."""
    return int(BLOCK_WORDS * round(np.clip(text_words, *PIECE_WORDS) / BLOCK_WORDS))


def runs_of(rows: Sequence[int], blocks: int) -> list[list[int]]:
    """``rows`` cut into runs of ``blocks`` consecutive rows; a last run shorter than half joins the one before."""
    rows = list(rows)
    runs = [rows[i : i + blocks] for i in range(0, len(rows), blocks)]
    if len(runs) > 1 and len(runs[-1]) < blocks / 2:
        last = runs.pop()
        runs[-1] = runs[-1] + last
    return runs


class _Source:
    """Pieces the models read: as counts (summed blocks, in the check's columns) and, for the attackers that read
    text, as texts. ``runs``: pieces of the check's block matrix; or ``texts``: loose texts (the text checked, a
    rewrite), counted when asked."""

    def __init__(self, session: CheckSession, runs: Sequence | None = None, texts: Sequence[str] | None = None):
        self.session, self.runs, self._texts = session, runs, texts
        self._counts: dict = {}

    def __len__(self) -> int:
        return len(self.runs) if self.runs is not None else len(self._texts)

    def counts(self, families: Sequence[str]) -> dict:
        missing = [f for f in families if f not in self._counts]
        if missing:
            if self.runs is not None:
                self._counts.update(self.session.matrix.pieces(self.runs, missing))
            else:
                self._counts.update(count_texts(self.session.matrix, self._texts, missing))
        return {f: self._counts[f] for f in families}

    def texts(self) -> list[str]:
        if self._texts is None:
            self._texts = [self.session.run_text(run) for run in self.runs]
        return list(self._texts)

    def __add__(self, other: _Source) -> _Source:
        joined = _Source(self.session, texts=self.texts() + other.texts())
        families = set(self._counts) | set(other._counts)
        for family in families:
            joined._counts[family] = sp.vstack(
                [self.counts([family])[family], other.counts([family])[family]], format="csr"
            )
        return joined


class _TextAttacker:
    """A registered attacker with no count model (the author encoder, …): learns from the pieces' texts."""

    families: tuple = ()

    def __init__(self, name: str, seed: int) -> None:
        from authorguard.attacks.base import make_attacker

        self.name, self.attacker = name, make_attacker(name, "svm", seed)

    def fit(self, source: _Source, labels: list, vocabulary: dict) -> _TextAttacker:
        self.attacker.fit(_release(self.name, source.texts()), labels)
        self.classes_ = self.attacker.classes_
        return self

    def scores(self, source: _Source) -> np.ndarray:
        return self.attacker.scores(_release(self.name, source.texts()))


#: attackers that read a release's term counts (the others read its texts only)
COUNT_READERS = ("bow", "writeprints")


def _release(name: str, texts: list):
    from authorguard.data.release import Release

    return Release.from_texts(texts) if name in COUNT_READERS else Release.texts_only(texts)


def _make(name: str, seed: int):
    return MODELS[name](seed) if name in MODELS else _TextAttacker(name, seed)


def _fit(model, source: _Source, labels: list, vocabulary: dict):
    if isinstance(model, _TextAttacker):
        return model.fit(source, labels, vocabulary)
    return model.fit(source.counts(model.families), labels, vocabulary)


def _scores(model, source: _Source) -> np.ndarray:
    if isinstance(model, _TextAttacker):
        return model.scores(source)
    return model.scores(source.counts(model.families))


def _rank(scores: np.ndarray, writer: int) -> tuple[int, float]:
    """(the writer's rank: 1 + candidates scored higher, the margin over the best other candidate)."""
    if not np.all(np.isfinite(scores)):
        raise InputError("check: an attacker gave a non-finite score; its ranking cannot be read")
    others = np.delete(scores, writer)
    return 1 + int((others > scores[writer]).sum()), float(scores[writer] - others.max())


def _statements(text_words: int, known_words: int, attackers: Sequence[str]) -> tuple[list[str], list[str]]:
    """(statements, attackers that can run) for this much text."""
    statements = []
    if text_words < MIN_TEXT_WORDS:
        statements.append(
            f"The text has {text_words} words; below {MIN_TEXT_WORDS} no attacker here can tell a "
            "style apart, so no number is given. A short text is not safe for that: it only cannot be "
            "measured."
        )
        return statements, []
    runnable = [a for a in attackers if known_words >= MIN_KNOWN_WORDS.get(a, 500)]
    for name in attackers:
        if name not in runnable:
            statements.append(
                f"{name} needs {MIN_KNOWN_WORDS.get(name, 500)} words of known writing, you gave "
                f"{known_words}: left out."
            )
    if not runnable:
        statements.append(
            f"With {known_words} words of known writing no attacker here is reliable: add more of "
            "your writing (2,000 words or more) for a measured answer."
        )
    elif known_words < 2000:
        statements.append(
            f"With {known_words} words of known writing the attackers are weaker than one holding "
            "more of your writing would be: the risk may be understated."
        )
    return statements, runnable


def check(
    text: str,
    known: str | Iterable[str],
    *,
    genre: str | None = None,
    background: str | os.PathLike | Mapping[str, Sequence[str]] | Background | None = None,
    sizes: Sequence[int] = (10, 100),
    attackers: Sequence[str] | None = None,
    rewrite: Sequence = (),
    generalise: int = 0,
    seed: int = 0,
    config: CheckConfig | None = None,
    progress: Callable[[str], None] | None = None,
) -> CheckResult:
    """Would a stylometric attacker holding the writer's ``known`` writing pick them out as ``text``'s author? The
    Python side of ``authorguard check`` (``authorguard.check(...)`` calls this). Returns a :class:`CheckResult`:
    per attacker and candidate-set size the writer's rank, margin and calibrated probability, the evidence and, per
    method of ``rewrite``, the same after its rewrite; ``result.verdict()`` says it in one sentence and
    ``result.lines()`` is what the CLI prints. :func:`prepare` keeps the fitted attackers for re-checks of edits.

    ``known``: the writer's other documents (one string is one document); ``genre``: ``blog``, ``essay`` or
    ``forum``, the staged background of that genre (default: guessed from the text, and the result says so);
    ``background``: other candidates instead — a JSONL file of author/text rows, a mapping author -> documents or a
    :class:`~authorguard.check.background.Background`; ``sizes``: candidate-set sizes, the writer included;
    ``attackers``: registered attackers (default: char-ngrams, function-words, writeprints-text); ``rewrite``:
    registered method names or built text methods; ``generalise``: also check the text after "Generalise what
    gives me away" pressed up to this many times (every evidence word and name generalised, then the new
    evidence's, until no attacker ranks the writer first: ``result.generalised``); ``seed``: the draws and the
    attackers; ``config``: a whole
    :class:`CheckConfig` instead of ``sizes``/``attackers``/``seed``.

    ```pycon
    >>> import authorguard
    >>> essays = authorguard.load_dataset("amt")   # 45 writers' essays (EBG / AMT), from AUTHORGUARD_DATA
    >>> by_author = {}
    >>> for text, author in zip(essays.texts, essays.authors):
    ...     _ = by_author.setdefault(author, []).append(text)
    >>> writer, *others = sorted(by_author)
    >>> result = authorguard.check(by_author[writer][0], known=by_author[writer][1:],
    ...                            background={a: by_author[a] for a in others[:12]},
    ...                            sizes=(10,), attackers=["char-ngrams"])
    >>> ranking = result.rankings[0]
    >>> ranking.attacker, ranking.candidates, ranking.rank
    ('char-ngrams', 10, 1)
    >>> result.verdict()  # doctest: +ELLIPSIS
    'Yes: 1 of 1 attacks rank you first, up to 10 candidates; ...'

    ```
    """
    from authorguard.check.background import as_background

    if not isinstance(text, str):
        raise InputError(f"check: the text is a {type(text).__name__}, not a string")
    known = [known] if isinstance(known, str) else list(known)
    if config is None:
        config = CheckConfig(
            sizes=tuple(int(size) for size in sizes), attackers=tuple(attackers or DEFAULT_ATTACKERS), seed=seed
        )
    session = prepare(
        text,
        known,
        background=as_background(background, genre),
        config=config,
        progress=progress,
        genre_reason=f"chosen with genre={genre!r}" if genre else None,
    )
    for method in rewrite:
        session.rewrite(method)
    if generalise:
        from authorguard.check.generalisation import generalise_evidence

        generalise_evidence(session, rounds=int(generalise))
    return session.result


def prepare(
    text: str,
    known: Sequence[str],
    *,
    background: Background | None = None,
    config: CheckConfig = CheckConfig(),
    progress: Callable[[str], None] | None = None,
    genre_reason: str | None = None,
) -> CheckSession:
    """The check of ``text`` as a :class:`CheckSession`: its result, and the fitted attackers, candidate sets and
    calibration that a re-check of an edit (:meth:`CheckSession.recheck`) or a rewrite
    (:meth:`CheckSession.rewrite`) reuse."""
    start = time.perf_counter()
    say = progress or (lambda message: None)
    if not isinstance(text, str) or not text.strip():
        raise InputError("check: the text is empty")
    known = [k for k in known if isinstance(k, str) and k.strip()]
    if not known:
        raise InputError("check: the known writing is empty")
    check_limits(text, known)
    bare = " ".join(text.split())
    holding = [k for k in known if bare in " ".join(k.split())]
    known = [k for k in known if bare not in " ".join(k.split())]
    if not known:
        raise InputError("check: the known writing is only the text itself")
    text_words, all_known_words = word_count(text), sum(word_count(k) for k in known)
    known_words = min(all_known_words, MAX_KNOWN_WORDS)
    statements, runnable = _statements(text_words, known_words, config.attackers)
    if holding:
        statements.insert(
            0,
            f"{len(holding)} of your known documents contain the text itself: left out (an "
            "attacker does not hold the text it is asked about).",
        )
    if all_known_words > MAX_KNOWN_WORDS:
        statements.append(
            f"Your first {MAX_KNOWN_WORDS:,} words of known writing are used (of {all_known_words:,}): "
            "every background author stands beside you with as many words."
        )
    if text_words < PIECE_WORDS[0] and runnable:
        statements.append(
            f"The text has {text_words} words; the attackers learn and are calibrated on pieces of "
            f"{PIECE_WORDS[0]}: its probabilities are less reliable than the calibration error says."
        )
    piece = piece_words(text_words)
    if background is None and runnable:
        genre, reason = genre_of(text), genre_reason
        if reason is None:
            reason = f"the text reads as {GENRES[genre]} (the genre classifier's guess; --genre sets it)"
        say(f"loading the {genre} background")
        background = load_background(genre)
    else:
        reason = genre_reason or (
            "your own background file"
            if background is not None and background.genre == "own"
            else f"chosen: {background.genre}"
            if background is not None
            else ""
        )
    if background is not None:
        background, yours = _without_the_writer(background, [bare, *(" ".join(k.split()) for k in known)])
        if yours:
            statements.insert(
                0,
                f"The background holds your writing (as {', '.join(yours)}): left out of the candidates, so you "
                "are not your own rival.",
            )
    session = CheckSession(text, known, config, piece, background, runnable, say)
    session.result = CheckResult(
        text_words,
        known_words,
        piece,
        background.genre if background else "not checked",
        background.source if background else "none",
        len(background) if background else 0,
        statements=statements,
        genre_reason=reason,
    )
    if runnable:
        session.fit()
        session.result.rankings, session.result.evidence = session.rank(text)
    session.result.seconds = round(time.perf_counter() - start, 2)
    return session


def _warm_word_tables():
    """Load WordNet (the evidence's common synonyms; ~3 s) in a thread while worker processes fit the attackers
    (in this process it would hold the interpreter the fitting needs)."""
    import threading

    def load() -> None:
        try:
            from authorguard.text.views import canonical_word

            canonical_word("house")
        except Exception:
            pass

    thread = threading.Thread(target=load, name="authorguard-wordnet", daemon=True)
    thread.start()
    return thread


#: from this many candidates the count models are fitted in two worker processes
PARALLEL_CANDIDATES = 50


def calibrate(scores: np.ndarray, classes, names: list, truth: list, seed: int, objective: str = "likelihood") -> tuple:
    """(temperature, its cross-fitted calibration error, held-out texts, [[top probability, correct]]) from an
    attacker's scores of the held-out pieces (columns in the order of ``classes``; ``truth``: indices into
    ``names``; ``objective``: :data:`~authorguard.check.calibration.OBJECTIVES`)."""
    order = [list(classes).index(n) for n in names]
    scores = scores[:, order]
    truth = np.asarray(truth)
    temperature = fit_temperature(scores, truth, objective)
    confidence, correct = cross_fitted(scores, truth, np.random.default_rng(seed), objective=objective)
    error = calibration_error(confidence, correct) if len(confidence) else float("nan")
    pairs = [[round(float(c), 4), bool(k)] for c, k in zip(confidence, correct)]
    return temperature, error, len(truth), pairs


def calibration_objective(model) -> str:
    """ "top" for the many-candidates profiles (:class:`~authorguard.check.models.CosineCentroids`), whose
    likelihood-fitted temperature leaves the top probability understated; "likelihood" otherwise."""
    return "top" if isinstance(getattr(model, "model_", None), CosineCentroids) else "likelihood"


def fit_count_model(
    name: str, seed: int, train: dict, labels: list, vocabulary: dict, part: tuple[int, int] | None = None
):
    """A count model fitted on ``train``'s counts (or its ``part``, :meth:`CountModel.fit`): one job of a check,
    run in this process or a worker."""
    return MODELS[name](seed).fit(train, labels, vocabulary, part)


def _without_the_writer(background: Background, writing: Sequence[str]) -> tuple[Background, list[str]]:
    """``background`` less the authors any of whose documents is one of ``writing`` (the text and the known
    documents, whitespace-normalised): a writer whose posts are in the staged corpus would otherwise compete with
    themselves. Returns (background, the authors left out). Only documents whose first non-space characters match
    one of ``writing``'s are normalised whole (the blog pool's 47,000 posts would otherwise cost ~0.4 s a check)."""

    def opening(document: str) -> str:
        return "".join(document[:1000].split())[:64]

    mine = {" ".join(w.split()) for w in writing}
    openings = {opening(w) for w in writing}
    yours = [
        author
        for author, documents in background.authors.items()
        if any(opening(d) in openings and " ".join(d.split()) in mine for d in documents)
    ]
    return (background.without(yours), yours) if yours else (background, [])


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

    # --- the candidates ---------------------------------------------------------------------------------------

    def fit(self) -> None:
        from authorguard.check.features import background_key, pool_features

        background, config = self.background, self.config
        pool = background.pool if background.pool is not None else background.authors
        features = pool_features(background_key(background.genre, pool), pool, say=self.say)
        self.features = features
        known_words = min(sum(word_count(k) for k in self.known), MAX_KNOWN_WORDS)
        own_blocks = cut_blocks(self.known, MAX_KNOWN_WORDS)
        blocks = max(1, self.piece // BLOCK_WORDS)
        chosen = _background_runs(
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
        families = sorted({f for name in self.runnable if name in MODELS for f in MODELS[name].families} | {"words"})
        self.say(f"counting your writing ({len(own_blocks)} blocks) beside {len(chosen)} background authors")
        self.matrix, placed = stack_blocks(features, used, own_blocks, families)
        self._own_blocks = own_blocks
        self._placed = list(zip([name for name, _ in chosen], used, placed))

        def moved(runs, source: range, target: range):
            return [[target.start + (row - source.start) for row in run] for run in runs]

        pool = []
        for (name, runs), source, target in zip(chosen, used, placed):
            runs = moved(runs, source, target)
            pool.append((name, runs[: -config.calibration_pieces], runs[-config.calibration_pieces :]))
        writer_runs = runs_of(placed[-1], blocks)
        self.sets = _candidate_sets(config.sizes, writer_runs, pool, self.result.statements)
        jobs, local, held_of = [], [], {}
        parallel = max(len(c.names) for c in self.sets) >= PARALLEL_CANDIDATES
        for candidates in self.sets:
            train, held = _Source(self, candidates.train), _Source(self, candidates.held)
            for name in self.runnable:
                if name not in MODELS:
                    local.append((name, candidates, train, held))
                    continue
                families = MODELS[name].families
                held_of[(name, len(candidates.names))] = (held.counts(families), candidates)
                # the character n-gram SVM is most of the work: two workers fit its classes in halves
                halves = parallel and name == "char-ngrams" and len(candidates.names) <= SVM_CANDIDATES
                for part in [(0, 2), (1, 2)] if halves else [None]:
                    jobs.append(
                        (
                            name,
                            config.seed,
                            train.counts(families),
                            candidates.labels,
                            {f: self.matrix.vocabulary[f] for f in families},
                            part,
                        )
                    )
        jobs.sort(key=lambda job: -sum(matrix.nnz for matrix in job[2].values()) * len(set(job[3])))
        self.say(f"fitting {len(jobs) + len(local)} attackers")
        if parallel and len(jobs) > 1:
            from joblib import Parallel, delayed

            if config.evidence:  # this process waits on the workers meanwhile
                self._warming = _warm_word_tables()

            done = Parallel(n_jobs=2, backend="loky")(delayed(fit_count_model)(*job) for job in jobs)
        else:
            done = [fit_count_model(*job) for job in jobs]
        models: dict = {}
        for job, model in zip(jobs, done):
            models.setdefault((job[0], len(set(job[3]))), []).append((job[5], model))
        for key, parts in models.items():
            model = (
                parts[0][1] if parts[0][0] is None else merge_parts([m for _, m in sorted(parts, key=lambda p: p[0])])
            )
            held, candidates = held_of[key]
            self.fitted[key] = (
                model,
                calibrate(
                    model.scores(held),
                    model.classes_,
                    candidates.names,
                    candidates.held_labels,
                    config.seed,
                    calibration_objective(model),
                ),
            )
        for name, candidates, train, held in local:
            self.say(f"{name}: {len(candidates.names)} candidates")
            model = _fit(_make(name, config.seed), train, candidates.labels, self.matrix.vocabulary)
            self.fitted[(name, len(candidates.names))] = (model, self._calibrate(model, candidates, held))
        self.fits += len(models) + len(local)
        # the rankings in the order of the sizes, then the attackers asked for
        self.fitted = {key: self.fitted[key] for key in [(n, len(c.names)) for c in self.sets for n in self.runnable]}

    def run_text(self, run: Sequence[int]) -> str:
        """The text of a piece of the block matrix (its blocks joined by a space)."""
        if not hasattr(self, "_block_texts"):
            texts: list[str] = []
            for name, used, _ in self._placed:
                author_blocks = cut_blocks(self.background.authors[name], AUTHOR_WORDS)
                first = used.start - int(self.features.starts[self.features.authors.index(name)])
                texts.extend(author_blocks[first : first + len(used)])
            self._block_texts = texts + list(self._own_blocks)
        return " ".join(self._block_texts[i] for i in run)

    def _calibrate(self, model, candidates: Candidates, held: _Source) -> tuple:
        return calibrate(
            _scores(model, held),
            model.classes_,
            candidates.names,
            candidates.held_labels,
            self.config.seed,
            calibration_objective(model),
        )

    # --- scoring a text ---------------------------------------------------------------------------------------

    def _text_source(self, text: str) -> _Source:
        """The text as the attackers read it: whole up to 500 words; longer, cut into pieces of the check's length
        (whose scores are averaged: read at the length the attackers learnt and were calibrated on)."""
        return _Source(self, texts=[text] if word_count(text) <= PIECE_WORDS[1] else cut_pieces([text], self.piece))

    def _ranking(
        self, key: tuple, model, source: _Source, threat_model: str = "static", calibration: tuple | None = None
    ) -> AttackerRanking:
        name, size = key
        candidates = next(c for c in self.sets if len(c.names) == size)
        order = [list(model.classes_).index(n) for n in candidates.names]
        row = _scores(model, source).mean(0)[order]
        temperature, error, n, pairs = calibration if calibration is not None else self.fitted[key][1]
        rank, margin = _rank(row, 0)
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
        if not hasattr(self, "_first_source"):
            self._first_source = source
        rankings = [self._ranking(key, model, source) for key, (model, _) in self.fitted.items()]
        return rankings, self._evidence(text, source)

    def recheck(self, text: str) -> CheckResult:
        """The check of an edited ``text`` with the attackers fitted for the first (the candidates' pieces keep
        the first text's length): rankings and evidence, in a second or so."""
        start = time.perf_counter()
        if not isinstance(text, str) or not text.strip():
            raise InputError("check: the text is empty")
        first = self.result
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

    def _evidence(self, text: str, source: _Source) -> list:
        from authorguard.check.evidence import read_evidence

        if getattr(self, "_warming", None) is not None:
            self._warming.join()
            self._warming = None
        largest = len(self.sets[-1].names) if self.fitted else 0
        # the evidence reads the whole text: the ranking's source when it is the whole text (up to 500 words)
        whole = source if source.runs is None and source.texts() == [text] else _Source(self, texts=[text])
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
        if isinstance(method, str):
            name = method
            rewriter = build_text_method(*parse_method_spec(method), self.config.seed)
        else:
            name, rewriter = getattr(method, "name", type(method).__name__), method
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise InputError("check: the text to rewrite is empty")
        written = self.text if text is None else text
        self.say(f"rewriting with {name}")
        output = rewriter.obfuscate([written])[0]
        status = rewriter.record_statuses([written], [output])[0]
        if not output or not output.strip():
            found = RewriteCheck(name, None, status["status"], float("nan"), [], round(time.perf_counter() - begin, 2))
            self.result.rewrites.append(found)
            return found
        from authorguard.metrics.content import embedding_cosines
        from authorguard.metrics.fidelity import FidelityMeter

        cosines = embedding_cosines([written], [output])
        meaning = float(cosines[0]) if cosines else float("nan")
        fidelity = FidelityMeter(n_process=1).score([written], [output])[0]
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
            model = _fit(_make(attacker, self.config.seed), train[0], train[1], self.matrix.vocabulary)
            self.fits += 1
            calibration = self._calibrate(model, smallest, _Source(self, smallest.held))
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
        self.result.rewrites.append(found)
        return found

    def _augmented(self, rewriter, name: str, candidates: Candidates) -> tuple[_Source, list]:
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
        base = _Source(self, candidates.train)
        added = _Source(self, texts=[o for o, _ in extra])
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


def _background_runs(
    features, blocks: int, known_words: int, keep: int, rng: np.random.Generator, needed: int, among: set | None = None
) -> list:
    """[(author, runs of pool block rows)] in a seeded order, the first ``needed``: each author's first blocks up
    to as many words as the writer's plus ``keep`` pieces, cut into runs; authors with at least half the writer's
    known words (and one piece) to learn from besides ``keep`` held-out pieces. ``among``: the pool's authors that
    may be drawn (default: all)."""
    out = []
    limit = known_words + keep * blocks * BLOCK_WORDS
    for i in rng.permutation(len(features.authors)):
        if len(out) >= needed:
            break
        if among is not None and features.authors[int(i)] not in among:
            continue
        rows = features.blocks_of(int(i))
        words = np.cumsum(features.block_words[rows.start : rows.stop])
        used = int(np.searchsorted(words, limit)) + 1
        runs = runs_of(range(rows.start, rows.start + min(used, len(rows))), blocks)
        train = runs[:-keep]
        if not train or len(runs) - len(train) != keep:
            continue
        train_words = int(features.block_words[[r for run in train for r in run]].sum())
        if train_words >= known_words / 2:
            out.append((features.authors[int(i)], runs))
    return out


def _candidate_sets(sizes: Sequence[int], writer_runs: list, pool: list, statements: list) -> list[Candidates]:
    """Nested candidate sets, smallest first; sizes beyond the background are cut to it, and said."""
    sets, seen = [], set()
    for size in sorted(set(sizes)):
        others = pool[: size - 1]
        if len(others) < size - 1 and len(others) + 1 not in seen:
            statements.append(
                f"Only {len(pool)} background authors have enough writing to stand beside yours "
                f"(half as many words at least): the set of {size} candidates is {len(others) + 1}."
            )
        if not others or len(others) + 1 in seen:
            continue
        seen.add(len(others) + 1)
        names = [WRITER] + [name for name, _, _ in others]
        train = list(writer_runs) + [run for _, runs, _ in others for run in runs]
        labels = [WRITER] * len(writer_runs) + [name for name, runs, _ in others for _ in runs]
        held = [run for _, _, runs in others for run in runs]
        held_labels = [1 + i for i, (_, _, runs) in enumerate(others) for _ in runs]
        sets.append(Candidates(names, train, labels, held, held_labels))
    if not sets:
        raise InputError("check: the background has no author with enough writing to compare with yours")
    return sets
