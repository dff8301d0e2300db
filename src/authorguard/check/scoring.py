"""How a check's attackers read the pieces and are fitted, scored and calibrated: the pieces as counts or texts
(:class:`PieceSource`), the count models and text attackers behind one fit/score call, the writer's rank, the
temperature scaling on held-out pieces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import scipy.sparse as sp

from authorguard.check.calibration import calibration_error, cross_fitted, fit_temperature
from authorguard.check.features import BlockMatrix, count_texts
from authorguard.check.models import MODELS, CosineCentroids
from authorguard.exceptions import InputError


class PieceReader(Protocol):
    """What :class:`PieceSource` reads pieces from (a :class:`~authorguard.check.session.CheckSession`): the
    check's block matrix, and a run of its rows as text."""

    matrix: BlockMatrix

    def run_text(self, run: Sequence[int]) -> str: ...


class PieceSource:
    """Pieces the models read: as counts (summed blocks, in the check's columns) and, for the attackers that read
    text, as texts. ``runs``: pieces of the check's block matrix; or ``texts``: loose texts (the text checked, a
    rewrite), counted when asked."""

    def __init__(self, session: PieceReader, runs: Sequence | None = None, texts: Sequence[str] | None = None):
        self.session, self.runs, self._texts = session, runs, texts
        self._counts: dict = {}

    def __len__(self) -> int:
        return len(self.runs) if self.runs is not None else len(self.texts())

    def counts(self, families: Sequence[str]) -> dict:
        missing = [f for f in families if f not in self._counts]
        if missing:
            if self.runs is not None:
                self._counts.update(self.session.matrix.pieces(self.runs, missing))
            else:
                self._counts.update(count_texts(self.session.matrix, self.texts(), missing))
        return {f: self._counts[f] for f in families}

    def texts(self) -> list[str]:
        if self._texts is None:
            if self.runs is None:
                raise InputError("check: pieces need runs of the block matrix or texts")
            self._texts = [self.session.run_text(run) for run in self.runs]
        return list(self._texts)

    def __add__(self, other: PieceSource) -> PieceSource:
        joined = PieceSource(self.session, texts=self.texts() + other.texts())
        families = set(self._counts) | set(other._counts)
        for family in families:
            joined._counts[family] = sp.vstack(
                [self.counts([family])[family], other.counts([family])[family]], format="csr"
            )
        return joined


class TextAttacker:
    """A registered attacker with no count model (the author encoder, …): learns from the pieces' texts."""

    families: tuple = ()

    def __init__(self, name: str, seed: int) -> None:
        from authorguard.attacks.base import make_attacker

        self.name, self.attacker = name, make_attacker(name, "svm", seed)

    def fit(self, source: PieceSource, labels: list, vocabulary: dict) -> TextAttacker:
        self.attacker.fit(release_of(self.name, source.texts()), labels)
        self.classes_ = self.attacker.classes_
        return self

    def scores(self, source: PieceSource) -> np.ndarray:
        return self.attacker.scores(release_of(self.name, source.texts()))


#: attackers that read a release's term counts (the others read its texts only)
COUNT_READERS = ("bow", "writeprints")


def release_of(name: str, texts: list):
    from authorguard.data.release import Release

    return Release.from_texts(texts) if name in COUNT_READERS else Release.texts_only(texts)


def make_model(name: str, seed: int):
    return MODELS[name](seed) if name in MODELS else TextAttacker(name, seed)


def fit_model(model, source: PieceSource, labels: list, vocabulary: dict):
    if isinstance(model, TextAttacker):
        return model.fit(source, labels, vocabulary)
    return model.fit(source.counts(model.families), labels, vocabulary)


def model_scores(model, source: PieceSource) -> np.ndarray:
    if isinstance(model, TextAttacker):
        return model.scores(source)
    return model.scores(source.counts(model.families))


def writer_rank(scores: np.ndarray, writer: int) -> tuple[int, float]:
    """(the writer's rank: 1 + candidates scored higher, the margin over the best other candidate)."""
    if not np.all(np.isfinite(scores)):
        raise InputError("check: an attacker gave a non-finite score; its ranking cannot be read")
    others = np.delete(scores, writer)
    return 1 + int((others > scores[writer]).sum()), float(scores[writer] - others.max())


#: from this many candidates the count models are fitted in two worker processes
PARALLEL_CANDIDATES = 50


def calibrate(scores: np.ndarray, classes, names: list, truth: list, seed: int, objective: str = "likelihood") -> tuple:
    """(temperature, its cross-fitted calibration error, held-out texts, [[top probability, correct]]) from an
    attacker's scores of the held-out pieces (columns in the order of ``classes``; ``truth``: indices into
    ``names``; ``objective``: :data:`~authorguard.check.calibration.OBJECTIVES`)."""
    order = [list(classes).index(n) for n in names]
    scores = scores[:, order]
    labels = np.asarray(truth)
    temperature = fit_temperature(scores, labels, objective)
    confidence, correct = cross_fitted(scores, labels, np.random.default_rng(seed), objective=objective)
    error = calibration_error(confidence, correct) if len(confidence) else float("nan")
    pairs = [[round(float(c), 4), bool(k)] for c, k in zip(confidence, correct)]
    return temperature, error, len(labels), pairs


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
