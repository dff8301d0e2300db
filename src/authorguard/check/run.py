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

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from authorguard.check.background import Background, genre_of, load_background
from authorguard.check.calibration import calibration_error, cross_fitted, fit_temperature, probabilities
from authorguard.check.evidence import READERS
from authorguard.check.result import AttackerRanking, CheckResult, RewriteCheck
from authorguard.check.texts import cut_pieces, word_count
from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number

#: run by default: the attackers that fit on 2 cores in seconds (the author encoder embeds every piece: minutes on
#: a CPU at 100 candidates; ask for it with ``attackers``)
DEFAULT_ATTACKERS = ("char-ngrams", "function-words", "writeprints-text")
#: the fewest words of known writing an attacker is run with — chosen, not yet measured (docs/results/check.md)
MIN_KNOWN_WORDS = {"char-ngrams": 500, "bow": 1000, "function-words": 1000, "writeprints": 1500, "writeprints-text": 1500,
                   "author-embedding": 500, "meaning": 1000}
#: below this many words a text is not checked at all: too little to tell anyone's style
MIN_TEXT_WORDS = 50
PIECE_WORDS = (100, 500)


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


@dataclass
class Candidates:
    """The pieces of one candidate set: ``names[0]`` is the writer; ``train``/``labels`` the attackers' training
    pieces; ``held``/``held_labels`` the background authors' calibration pieces (indices into ``names``)."""

    names: list
    train: list
    labels: list
    held: list = field(default_factory=list)
    held_labels: list = field(default_factory=list)


WRITER = "\u2063you"  # a name no corpus author has


def _background_pieces(background: Background, piece: int, known_words: int, keep: int, rng: np.random.Generator,
                       needed: int):
    """[(author, training pieces, held-out pieces)] in a seeded order, the first ``needed``: authors with at least
    half the writer's known words (and one piece) to learn from besides ``keep`` held-out pieces."""
    names = list(background.authors)
    out = []
    for i in rng.permutation(len(names)):
        if len(out) >= needed:
            break
        pieces = cut_pieces(background.authors[names[i]], piece, limit=known_words + keep * piece)
        train, held = pieces[:-keep], pieces[-keep:]
        if train and len(held) == keep and sum(word_count(p) for p in train) >= known_words / 2:
            out.append((names[i], train, held))
    return out


def _rank(scores: np.ndarray, writer: int) -> tuple[int, float]:
    """(the writer's rank: 1 + candidates scored higher, the margin over the best other candidate)."""
    if not np.all(np.isfinite(scores)):
        raise InputError("check: an attacker gave a non-finite score; its ranking cannot be read")
    others = np.delete(scores, writer)
    return 1 + int((others > scores[writer]).sum()), float(scores[writer] - others.max())


#: attackers that read a release's term counts (the others read its texts only)
COUNT_READERS = ("bow", "writeprints")


def _release(name: str, texts: list):
    from authorguard.data.release import Release

    return Release.from_texts(texts) if name in COUNT_READERS else Release.texts_only(texts)


def _fit(name: str, seed: int, texts: list, labels: list):
    from authorguard.attacks.base import make_attacker

    return make_attacker(name, "svm", seed).fit(_release(name, texts), labels)


def _scores(attacker, texts: list) -> np.ndarray:
    return attacker.scores(_release(attacker.name, texts))


def _text_scores(attacker, text: str, piece: int) -> np.ndarray:
    """The text's scores (n_classes,): a text longer than the pieces is cut into pieces of the same length and
    their scores averaged, so that it is read at the length the attackers learnt and were calibrated on."""
    if word_count(text) <= PIECE_WORDS[1]:
        return _scores(attacker, [text])[0]
    return _scores(attacker, cut_pieces([text], piece)).mean(0)


def _ranking(attacker, name: str, candidates: Candidates, text_scores: np.ndarray, seed: int,
             threat_model: str = "static", calibration: tuple | None = None) -> AttackerRanking:
    """The writer's rank, margin and calibrated probability from scores in the order of ``candidates.names``."""
    order = [list(attacker.classes_).index(n) for n in candidates.names]
    pairs: list = []
    if calibration is None:
        held = _scores(attacker, candidates.held)[:, order]
        truth = np.asarray(candidates.held_labels)
        temperature = fit_temperature(held, truth)
        confidence, correct = cross_fitted(held, truth, np.random.default_rng(seed))
        error = calibration_error(confidence, correct) if len(confidence) else float("nan")
        pairs = [[round(float(c), 4), bool(k)] for c, k in zip(confidence, correct)]
        calibration = (temperature, error, len(truth))
    temperature, error, n = calibration
    row = text_scores[order]
    rank, margin = _rank(row, 0)
    spread = probabilities(row[None, :], temperature)[0]
    return AttackerRanking(name, len(candidates.names), rank, margin, float(spread[0]), error, n, temperature,
                           threat_model, float(spread.max()), pairs)


def piece_words(text_words: int) -> int:
    """The length of the pieces every candidate is learnt from: the text's, within :data:`PIECE_WORDS`."""
    return int(np.clip(text_words, *PIECE_WORDS))


def _statements(text_words: int, known_words: int, attackers: Sequence[str]) -> tuple[list[str], list[str]]:
    """(statements, attackers that can run) for this much text."""
    statements = []
    if text_words < MIN_TEXT_WORDS:
        statements.append(f"The text has {text_words} words; below {MIN_TEXT_WORDS} no attacker here can tell a "
                          "style apart, so no number is given. A short text is not safe for that: it only cannot be "
                          "measured.")
        return statements, []
    runnable = [a for a in attackers if known_words >= MIN_KNOWN_WORDS.get(a, 500)]
    for name in attackers:
        if name not in runnable:
            statements.append(f"{name} needs {MIN_KNOWN_WORDS.get(name, 500)} words of known writing, you gave "
                              f"{known_words}: left out.")
    if not runnable:
        statements.append(f"With {known_words} words of known writing no attacker here is reliable: add more of "
                          "your writing (2,000 words or more) for a measured answer.")
    elif known_words < 2000:
        statements.append(f"With {known_words} words of known writing the attackers are weaker than one holding "
                          "more of your writing would be: the risk may be understated.")
    return statements, runnable


def check(text: str, known: Sequence[str], *, background: Background | None = None,
          config: CheckConfig = CheckConfig(), methods: Sequence = (),
          progress: Callable[[str], None] | None = None) -> CheckResult:
    """Check ``text`` against the writer's ``known`` documents (and, per method of ``methods`` — registered names
    or built text methods — its rewrite). ``background``: the other candidates (default: the staged corpus of the
    text's genre). Returns a :class:`CheckResult`."""
    start = time.perf_counter()
    say = progress or (lambda message: None)
    if not isinstance(text, str) or not text.strip():
        raise InputError("check: the text is empty")
    known = [k for k in known if isinstance(k, str) and k.strip()]
    if not known:
        raise InputError("check: the known writing is empty")
    bare = " ".join(text.split())
    holding = [k for k in known if bare in " ".join(k.split())]
    known = [k for k in known if bare not in " ".join(k.split())]
    if not known:
        raise InputError("check: the known writing is only the text itself")
    text_words, known_words = word_count(text), sum(word_count(k) for k in known)
    statements, runnable = _statements(text_words, known_words, config.attackers)
    if holding:
        statements.insert(0, f"{len(holding)} of your known documents contain the text itself: left out (an "
                              "attacker does not hold the text it is asked about).")
    if text_words < PIECE_WORDS[0] and runnable:
        statements.append(f"The text has {text_words} words; the attackers learn and are calibrated on pieces of "
                          f"{PIECE_WORDS[0]}: its probabilities are less reliable than the calibration error says.")
    piece = piece_words(text_words)
    if not runnable:  # nothing to measure: no background is loaded
        return CheckResult(text_words, known_words, piece, background.genre if background else "not checked",
                           background.source if background else "none", len(background) if background else 0,
                           statements=statements, seconds=round(time.perf_counter() - start, 2))
    genre = background.genre if background is not None else genre_of(text)
    if background is None:
        say(f"loading the {genre} background")
        background = load_background(genre)
    result = CheckResult(text_words, known_words, piece, genre, background.source, len(background),
                         statements=statements)
    sets = draw_candidates(piece, known, background, config, result.statements)
    fitted = {}
    for candidates in sets:
        for name in runnable:
            say(f"{name}: {len(candidates.names)} candidates")
            attacker = _fit(name, config.seed, candidates.train, candidates.labels)
            ranking = _ranking(attacker, name, candidates, _text_scores(attacker, text, piece), config.seed)
            result.rankings.append(ranking)
            fitted[(name, len(candidates.names))] = (attacker, ranking)
    result.evidence = _evidence(fitted, sets[-1], text, config.evidence)
    for method in methods:
        result.rewrites.append(_rewrite_check(method, text, sets, fitted, runnable, config, piece, say))
    result.seconds = round(time.perf_counter() - start, 2)
    return result


def draw_candidates(piece: int, known: Sequence[str], background: Background, config: CheckConfig,
                    statements: list) -> list[Candidates]:
    """The nested candidate sets of a check (seeded by ``config.seed``), smallest first, each a
    :class:`Candidates` of pieces of ``piece`` words; what limits them is appended to ``statements``."""
    known_words = sum(word_count(k) for k in known)
    pool = _background_pieces(background, piece, known_words, config.calibration_pieces,
                              np.random.default_rng(config.seed), max(config.sizes) - 1)
    return _candidate_sets(config.sizes, cut_pieces(known, piece), pool, statements)


def _candidate_sets(sizes: Sequence[int], writer_pieces: list, pool: list, statements: list) -> list[Candidates]:
    """Nested candidate sets, smallest first; sizes beyond the background are cut to it, and said."""
    sets, seen = [], set()
    for size in sorted(set(sizes)):
        others = pool[: size - 1]
        if len(others) < size - 1 and len(others) + 1 not in seen:
            statements.append(f"Only {len(pool)} background authors have enough writing to stand beside yours "
                              f"(half as many words at least): the set of {size} candidates is {len(others) + 1}.")
        if not others or len(others) + 1 in seen:
            continue
        seen.add(len(others) + 1)
        names = [WRITER] + [name for name, _, _ in others]
        train = list(writer_pieces) + [p for _, pieces, _ in others for p in pieces]
        labels = [WRITER] * len(writer_pieces) + [name for name, pieces, _ in others for _ in pieces]
        held = [p for _, _, pieces in others for p in pieces]
        held_labels = [1 + i for i, (_, _, pieces) in enumerate(others) for _ in pieces]
        sets.append(Candidates(names, train, labels, held, held_labels))
    if not sets:
        raise InputError("check: the background has no author with enough writing to compare with yours")
    return sets


def _evidence(fitted: dict, candidates: Candidates, text: str, most: int) -> list:
    out = []
    for (name, size), (attacker, _) in fitted.items():
        if name not in READERS or size != len(candidates.names) or most == 0:
            continue
        scores = _scores(attacker, [text])[0]
        classes = list(attacker.classes_)
        writer = classes.index(WRITER)
        rival = int(np.argmax(np.where(np.arange(len(classes)) == writer, -np.inf, scores)))
        out.extend(READERS[name](attacker, text, writer, rival, most))
    return out


def _rewrite_check(method, text: str, sets: list, fitted: dict, runnable: list, config: CheckConfig, piece: int,
                   say: Callable[[str], None]) -> RewriteCheck:
    from authorguard.methods.build import build_text_method, parse_method_spec

    begin = time.perf_counter()
    if isinstance(method, str):  # "synonyms", "bottleneck(level=lemma)"
        name = method
        rewriter = build_text_method(*parse_method_spec(method), config.seed)
    else:
        name, rewriter = getattr(method, "name", type(method).__name__), method
    say(f"rewriting with {name}")
    output = rewriter.obfuscate([text])[0]
    status = rewriter.record_statuses([text], [output])[0]
    if not output or not output.strip():
        return RewriteCheck(name, None, status["status"], float("nan"), [], round(time.perf_counter() - begin, 2))
    from authorguard.metrics.content import embedding_cosines

    cosines = embedding_cosines([text], [output])
    meaning = float(cosines[0]) if cosines else float("nan")
    from authorguard.metrics.fidelity import FidelityMeter

    fidelity = FidelityMeter(n_process=1).score([text], [output])[0]
    say(f"{name}: fidelity {fidelity.verdict}")
    rankings = []
    for (attacker_name, size), (attacker, ranking) in fitted.items():
        calibration = (ranking.temperature, ranking.calibration_error, ranking.calibration_texts)
        candidates = next(c for c in sets if len(c.names) == size)
        rankings.append(_ranking(attacker, attacker_name, candidates, _text_scores(attacker, output, piece),
                                 config.seed, calibration=calibration))
    smallest = sets[0]
    say(f"{name}: the augmented attackers ({len(smallest.names)} candidates)")
    augmented = _augmented_training(rewriter, smallest, config.augment_pieces)
    for attacker_name in runnable:
        attacker = _fit(attacker_name, config.seed, augmented.train, augmented.labels)
        rankings.append(_ranking(attacker, attacker_name, smallest, _text_scores(attacker, output, piece),
                                 config.seed, threat_model="augmented"))
    return RewriteCheck(name, output, status["status"], meaning, rankings, round(time.perf_counter() - begin, 2),
                        fidelity.verdict, fidelity.reason)


def _augmented_training(rewriter, candidates: Candidates, per_candidate: int) -> Candidates:
    """The candidates' pieces as written plus the first ``per_candidate`` pieces of each rewritten (refused
    rewrites left out: the attacker learns only from what the method releases)."""
    chosen = []
    for name in candidates.names:
        chosen.extend([p for p, label in zip(candidates.train, candidates.labels) if label == name][:per_candidate])
    owners = [label for name in candidates.names
              for label in [lab for lab in candidates.labels if lab == name][:per_candidate]]
    rewritten = rewriter.obfuscate(chosen)
    extra = [(r, owner) for r, owner in zip(rewritten, owners) if r and r.strip()]
    return Candidates(candidates.names, candidates.train + [r for r, _ in extra],
                       candidates.labels + [o for _, o in extra], candidates.held, candidates.held_labels)
