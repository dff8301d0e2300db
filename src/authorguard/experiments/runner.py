"""The experiment runner: every method x setting x run, scored by the analyst and the attackers.

Two phases, each spread over ``n_jobs`` processes with joblib:

Each cell and preparation belongs to a *view* (:mod:`authorguard.experiments.views`): the dataset's own split
with its Top-k scenarios, or one text-benchmark scenario (BAC-10, AMT-10, blog-age, ...) with its own documents.

1. *prepare*, once per distinct preparation and view: a deterministic text method's output on the view's
   corpus, or a vector method fitted on its training texts (with every epsilon of its grid, or the epsilon calibrated to each
   ``target_loss``, and the privacy report of each). Results go to ``OUTPUT/cache``; an epsilon grid costs
   one fit (``with_epsilon`` shares the precomputation).
2. *cells*, one per (view, method, setting, run): release the view's corpus once with the run's seed, then score
   the utility tasks on it (classifier trained on the release, and on the original), every attacker x threat
   model x classifier on each scenario's documents, the content metrics and the obfuscation detector. Each
   cell's rows are written atomically to ``OUTPUT/cells/KEY.json`` as soon as it finishes, so an interrupted
   run resumes without redoing finished cells.

Finally ``results.parquet`` and ``results.csv`` (one row per view x scenario x method x setting x run x task x
attacker x threat model x classifier; ``task`` is a utility task, ``attack``, ``content`` or ``detector``) and ``experiment.json`` (the resolved config, the command, versions)
are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import platform
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from authorguard import __version__, registry
from authorguard.attacks.base import attacker_classifiers, canonical_threat_model, make_attacker
from authorguard.base import TextObfuscator
from authorguard.data.io import atomic_write, write_json
from authorguard.data.release import Release
from authorguard.exceptions import AuthorguardError, InputError
from authorguard.experiments.config import CALIBRATION_PARAMETER, ExperimentConfig, MethodSpec
from authorguard.experiments.views import View, build_view, view_names

RESULTS_PARQUET, RESULTS_CSV, EXPERIMENT_JSON = "results.parquet", "results.csv", "experiment.json"


def _digest(obj: object, length: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:length]


def run_seed(seed: int, run: int) -> int:
    """The seed of run ``run``: the same for every method, so methods are compared on paired draws."""
    return int(np.random.SeedSequence([seed, run]).generate_state(1)[0])


@dataclass(frozen=True)
class Cell:
    """One (view, method, setting, run) of the experiment."""

    view: str
    method: MethodSpec
    setting: dict
    run: int
    fingerprint: str

    @property
    def key(self) -> str:
        return _digest(
            [self.fingerprint, self.view, self.method.name, self.method.display_name, self.setting, self.run]
        )


def plan_cells(config: ExperimentConfig) -> list[Cell]:
    """All cells, grouped by (view, method, setting) so a worker reuses what it loaded."""
    fingerprint = config.evaluation_fingerprint()
    return [
        Cell(view, spec, setting, run, fingerprint)
        for view in view_names(config)
        for spec in config.methods
        for setting in spec.settings()
        for run in range(config.runs)
    ]


# -- preparation -------------------------------------------------------------------------------------------


def _method_class(spec: MethodSpec):
    return registry.methods.get(spec.name)


def _epsilon_shared(cls) -> bool:
    return hasattr(cls, "with_epsilon")


def _fit_params(cls, setting: dict) -> dict:
    """The parameters a fit depends on: the setting less those that ``with_epsilon`` / ``calibrate`` change
    without refitting."""
    params = {k: v for k, v in setting.items() if k != CALIBRATION_PARAMETER}
    if _epsilon_shared(cls):
        params.pop("epsilon", None)
    return params


def preparation_key(view: str, spec: MethodSpec, setting: dict, fingerprint: str) -> str:
    """Names the cached preparation of ``setting`` on ``view``: settings that share a fit share it."""
    return _digest([fingerprint, view, spec.name, _fit_params(_method_class(spec), setting)])


def _setting_key(setting: dict) -> str:
    return _digest(setting)


_DATASETS: dict[str, object] = {}
_VIEWS: dict[str, View] = {}


def _view(config: ExperimentConfig, name: str) -> View:
    """View ``name`` of ``config``, built once per process (datasets shared between views)."""
    key = _digest(
        [
            config.dataset,
            config.dataset_options,
            config.scenarios,
            config.min_test_documents,
            config.tasks,
            config.split_seed,
            config.max_documents_per_author,
            name,
        ]
    )
    if key not in _VIEWS:
        if len(_VIEWS) >= 4:
            _VIEWS.clear()
            _DATASETS.clear()
        _VIEWS[key] = build_view(config, name, _DATASETS)
    return _VIEWS[key]


def _prepare(config: ExperimentConfig, view: str, spec: MethodSpec, settings: list[dict], path: Path) -> None:
    """Compute and store one preparation (see the module docstring)."""
    built = _view(config, view)
    corpus = built.corpus
    cls = _method_class(spec)
    if issubclass(cls, TextObfuscator):
        method = cls(**settings[0]).fit()
        texts = method.obfuscate_labelled(corpus.texts, built.attributes)
        if len(texts) != len(corpus):
            raise AuthorguardError(f"method {spec.name!r} returned {len(texts)} texts for {len(corpus)} documents")
        with atomic_write(path.with_suffix(".json")) as handle:
            json.dump({"texts": texts}, handle)
        return
    fitted = cls(**_fit_params(cls, settings[0])).fit(corpus.split("train").texts)
    resolved = {}
    for setting in settings:
        model = fitted
        if _epsilon_shared(cls):
            model = fitted.with_epsilon(setting.get("epsilon", fitted.epsilon))
        if CALIBRATION_PARAMETER in setting:
            model.calibrate(setting[CALIBRATION_PARAMETER])
        report = model.privacy_report().to_dict() if hasattr(model, "privacy_report") else {}
        resolved[_setting_key(setting)] = {"epsilon": getattr(model, "epsilon", None), "privacy": report}
    with atomic_write(path.with_suffix(".pkl"), mode="wb", encoding=None) as handle:
        pickle.dump(fitted, handle)
    write_json(path.with_suffix(".json"), {"settings": resolved})


def _preparations(config: ExperimentConfig) -> dict[str, tuple[str, MethodSpec, list[dict]]]:
    fingerprint = config.evaluation_fingerprint()
    jobs: dict[str, tuple[str, MethodSpec, list[dict]]] = {}
    for view in view_names(config):
        for spec in config.methods:
            cls = _method_class(spec)
            if issubclass(cls, TextObfuscator) and not cls.deterministic:
                continue  # computed per run inside the cells
            for setting in spec.settings():
                key = preparation_key(view, spec, setting, fingerprint)
                if key in jobs:
                    if setting not in jobs[key][2]:
                        jobs[key][2].append(setting)
                else:
                    jobs[key] = (view, spec, [setting])
    return jobs


# -- cells -------------------------------------------------------------------------------------------------

_LOADED: dict[str, object] = {}


def _load_prepared(path: Path):
    key = str(path)
    if key not in _LOADED:
        if len(_LOADED) >= 4:
            _LOADED.clear()
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        fitted = None
        if path.with_suffix(".pkl").exists():
            with open(path.with_suffix(".pkl"), "rb") as handle:
                fitted = pickle.load(handle)
        _LOADED[key] = (meta, fitted)
    return _LOADED[key]


_ORIGINAL: dict[str, Release] = {}


def _original_release(config: ExperimentConfig, view: str, corpus) -> Release:
    key = _digest(
        [
            config.dataset,
            config.dataset_options,
            config.split_seed,
            config.max_documents_per_author,
            view,
            config.morphology,
        ]
    )
    if key not in _ORIGINAL:
        _ORIGINAL.clear()
        _ORIGINAL[key] = Release.from_texts(corpus.texts, config.morphology)
    return _ORIGINAL[key]


def _releases(config: ExperimentConfig, cell: Cell, cache_dir: Path, seed: int) -> tuple[Release, Release, dict, str]:
    """(released, original in the same feature space, privacy report, output kind) for the view's corpus."""
    corpus = _view(config, cell.view).corpus
    cls = _method_class(cell.method)
    if issubclass(cls, TextObfuscator):
        report: dict = {}
        if cls.deterministic:
            meta, _ = _load_prepared(
                cache_dir / preparation_key(cell.view, cell.method, cell.setting, cell.fingerprint)
            )
            texts = meta["texts"]
        else:
            params = dict(cell.setting)
            if "random_state" in cls().get_params():
                params["random_state"] = seed
            view = _view(config, cell.view)
            method = cls(**params).fit(corpus.split("train").texts)
            texts = method.obfuscate_labelled(corpus.texts, view.attributes)
            report = method.release_report()
            if len(texts) != len(corpus):
                raise AuthorguardError(
                    f"method {cell.method.name!r} returned {len(texts)} texts for {len(corpus)} documents"
                )
        original = _original_release(config, cell.view, corpus)
        released = original if cls is registry.methods.get("original") else Release.from_texts(texts, config.morphology)
        return released, original, {"method_report": report}, "text"
    meta, fitted = _load_prepared(cache_dir / preparation_key(cell.view, cell.method, cell.setting, cell.fingerprint))
    resolved = meta["settings"][_setting_key(cell.setting)]
    model = fitted.with_epsilon(resolved["epsilon"]) if _epsilon_shared(cls) else fitted
    vocabulary = tuple(model.get_feature_names_out())
    released = Release(model.transform_records(corpus.texts, corpus.ids, seed=seed), vocabulary)
    # the authors' own texts ride along for text readers (a static attacker of text trains on the real writing)
    original = Release(model.term_counts(corpus.texts), vocabulary, corpus.texts)
    return released, original, resolved["privacy"], "vectors"


def _document_epsilon(privacy: dict) -> float | None:
    """What releasing one document costs, whichever the method: SynTF's exact loss l·n (its tight epsilon), or a
    text method's own ``document_epsilon`` (DP-Prompt: m · ε_token); None for a method without a guarantee."""
    if privacy.get("tight_epsilon") is not None:
        return float(privacy["tight_epsilon"])
    value = (privacy.get("method_report") or {}).get("document_epsilon")
    return None if value is None else float(value)


def evaluate_cell(config: ExperimentConfig, cell: Cell, cache_dir: Path) -> list[dict]:
    """Score one cell on its view: utility tasks, attacks, content metrics, detector; rows of scores."""
    view = _view(config, cell.view)
    seed = run_seed(config.seed, cell.run)
    started = time.perf_counter()
    released, original, privacy, kind = _releases(config, cell, cache_dir, seed)
    is_reference = issubclass(_method_class(cell.method), registry.methods.get("original"))
    base = {
        "experiment": config.name,
        "view": view.name,
        "dataset": view.dataset,
        "method": cell.method.display_name,
        "method_name": cell.method.name,
        "params": json.dumps(cell.setting, sort_keys=True),
        "run": cell.run,
        "seed": seed,
        "epsilon": privacy.get("epsilon"),
        "n_words": privacy.get("n_words"),
        "loss_per_word": privacy.get("loss_per_word"),
        "total_loss": privacy.get("tight_epsilon"),
        "improved_epsilon": privacy.get("improved_epsilon"),
        "standard_epsilon": privacy.get("standard_epsilon"),
        "vocabulary_size": len(released.vocabulary),
        "method_report": json.dumps(privacy.get("method_report") or {}, sort_keys=True),
        "document_epsilon": _document_epsilon(privacy),
    }
    base.update({f"param_{k}": (v if isinstance(v, (int, float, bool)) else str(v)) for k, v in cell.setting.items()})
    rows = []
    labels = np.array(view.corpus.labels, dtype=object)
    train, test = view.task_train, view.task_test
    # utility: the analyst retrains on the release ("adversarial"), or was trained on the original text ("static");
    # for the unprotected reference the two are one ("none")
    task_threats = ["none"] if is_reference else ["adversarial", "static"]
    for task_name in view.tasks:
        for classifier in config.classifiers:
            for threat in task_threats:
                task = registry.tasks.get(task_name)(classifier=classifier, random_state=seed)
                training = original if threat == "static" else released
                scores = task.evaluate(training.rows(train), labels[train], released.rows(test), labels[test])
                rows.append(
                    {
                        **base,
                        "scenario": view.name,
                        "task": task_name,
                        "attacker": "",
                        "threat_model": threat,
                        "classifier": classifier,
                        **scores,
                        "n_train": len(train),
                        "n_test": len(test),
                    }
                )
    # for the unprotected reference every threat model is the same attack: one row, threat model "none"
    threats = ["none"] if is_reference else list(config.threat_models)
    for attack in view.attacks:
        for attacker_name in config.attackers:
            for classifier in attacker_classifiers(attacker_name, config.classifiers):
                for threat in threats:
                    attacker = make_attacker(
                        attacker_name, classifier, seed, config.attacker_options.get(attacker_name)
                    )
                    training, training_targets = _attacker_training(
                        threat, original, released, attack.train, attack.targets
                    )
                    scores = attacker.evaluate(
                        training, training_targets, released.rows(attack.test), attack.targets[attack.test]
                    )
                    rows.append(
                        {
                            **base,
                            "scenario": attack.scenario,
                            "task": "attack",
                            "attacker": attacker_name,
                            "threat_model": threat,
                            "classifier": classifier,
                            **scores,
                            "n_train": len(attack.train),
                            "n_test": len(attack.test),
                        }
                    )
    measured = view.attacked_documents
    if config.content_metrics:
        sample = measured
        if 0 < config.content_sample < len(measured):  # the same documents for every method and run
            sample = np.sort(
                np.random.default_rng(config.split_seed).choice(measured, config.content_sample, replace=False)
            )
        rows.append(
            {**base, **_content_row(view, released, sample, config.fluency, config.fidelity and kind == "text")}
        )
    if config.detector and not is_reference:
        rows.extend({**base, **row} for row in _detector_rows(config, view, original, released, seed))
    elapsed = time.perf_counter() - started
    for row in rows:
        row["release_kind"] = kind
        row["cell_seconds"] = elapsed
    return rows


def _content_row(
    view: View, released: Release, documents: np.ndarray, fluency: bool = False, fidelity: bool = False
) -> dict:
    """Mean content metrics between the original and the released text of ``documents``; with ``fluency``, the
    reference LM's perplexity of the released text (:mod:`authorguard.metrics.fluency`); with ``fidelity``, the
    fidelity meter's shares of ``faithful``, ``changed`` and ``unsure`` outputs among those it scored (withheld ones
    are not)."""
    from authorguard.metrics.content import content_metrics

    originals = [view.corpus.texts[i] for i in documents]
    outputs = released.rows(documents).document_texts()
    means = content_metrics(originals, outputs)["mean"]
    if fidelity:
        from authorguard.metrics.fidelity import VERDICTS, FidelityMeter, verdict_counts

        counts = verdict_counts(FidelityMeter(n_process=1).score(originals, outputs))  # cells may run in parallel
        scored = sum(counts[v] for v in VERDICTS)
        means["faithful"] = counts["faithful"] / scored if scored else float("nan")
        means["generalised"] = counts["generalised"] / scored if scored else float("nan")  # true, less specific
        means["changed"] = counts["changed"] / scored if scored else float("nan")
        means["unsure"] = counts["unsure"] / scored if scored else float("nan")  # the meter could not settle these
    if fluency:
        from authorguard.metrics.fluency import fluency_scores

        means.update(fluency_scores(outputs))
    return {
        "scenario": view.name,
        "task": "content",
        "attacker": "",
        "threat_model": "",
        "classifier": "",
        **means,
        "n_train": 0,
        "n_test": len(documents),
    }


def _detector_rows(config: ExperimentConfig, view: View, original: Release, released: Release, seed: int) -> list[dict]:
    """Can a classifier tell the release from the original? One row per registered detector in the config."""
    train = (
        view.task_train if len(view.task_train) else np.setdiff1d(np.arange(len(view.corpus)), view.attacked_documents)
    )
    test = view.attacked_documents
    rows = []
    for name in config.detectors:
        detector = registry.detectors.get(name)(random_state=seed)
        scores = detector.evaluate(original.rows(train), released.rows(train), original.rows(test), released.rows(test))
        n_test = scores.pop("n_test", 2 * len(test))
        n_train = 2 * min(len(train), detector.max_train_documents or len(train))
        rows.append(
            {
                "scenario": view.name,
                "task": "detector",
                "attacker": name,
                "threat_model": "",
                "classifier": "",
                **scores,
                "n_train": n_train,
                "n_test": n_test,
            }
        )
    return rows


def _attacker_training(threat: str, original: Release, released: Release, rows: np.ndarray, authors: np.ndarray):
    """What the attacker trains on under ``threat``: (release, targets) of the training documents."""
    if threat == "static":
        return original.rows(rows), authors[rows]
    if threat == "augmented":  # each training document twice: as written and as released
        return Release.stack([original.rows(rows), released.rows(rows)]), np.concatenate([authors[rows], authors[rows]])
    return released.rows(rows), authors[rows]  # adversarial (and the reference's single "none" attack)


def _run_cell(config: ExperimentConfig, cell: Cell, cache_dir: Path, cells_dir: Path) -> str:
    rows = evaluate_cell(config, cell, cache_dir)
    write_json(cells_dir / f"{cell.key}.json", {"key": cell.key, "rows": rows})
    return cell.key


def _run_preparation(config: ExperimentConfig, view: str, spec: MethodSpec, settings: list[dict], path: Path) -> str:
    _prepare(config, view, spec, settings, path)
    return path.name


# -- the run -----------------------------------------------------------------------------------------------


def _parallel(jobs: list, n_jobs: int, description: str, show_progress: bool) -> None:
    from joblib import Parallel, delayed
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if not jobs:
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("remaining"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, disable=not show_progress, transient=False) as progress:
        task = progress.add_task(description, total=len(jobs))
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(f)(*args) for f, *args in jobs)
        for _ in results:
            progress.advance(task)


def _remove_temporaries(output: Path) -> None:
    """The ``.NAME.*.tmp`` files of :func:`~authorguard.data.io.atomic_write` left in the run folder's cells and
    cache (never renamed into place, so never results)."""
    for folder in (output / "cells", output / "cache"):
        if folder.is_dir():
            for leftover in folder.glob(".*.tmp"):
                leftover.unlink(missing_ok=True)


def run_experiment(
    config: ExperimentConfig,
    output_dir: str | os.PathLike,
    *,
    resume: bool = True,
    show_progress: bool = False,
    command: list[str] | None = None,
):
    """Run (or resume) ``config``; returns the results as a pandas DataFrame (also written to ``output_dir``).

    With ``resume`` (default) finished cells in ``output_dir`` are kept; without it the cells and caches of
    an earlier run there are deleted first.
    """
    import pandas as pd

    output = Path(output_dir)
    cells_dir, cache_dir = output / "cells", output / "cache"
    if not resume:
        for folder in (cells_dir, cache_dir):
            shutil.rmtree(folder, ignore_errors=True)
    cells_dir.mkdir(parents=True, exist_ok=True)
    cache_dir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    _remove_temporaries(output)  # a killed earlier run's half-written files
    try:
        for view in view_names(config):
            _view(config, view)  # a scenario that cannot be built fails now, not after hours of work
        preparations = _preparations(config)
        missing = [
            (key, view, spec, settings)
            for key, (view, spec, settings) in preparations.items()
            if not (cache_dir / f"{key}.json").exists()
        ]
        _parallel(
            [
                (_run_preparation, config, view, spec, settings, cache_dir / key)
                for key, view, spec, settings in missing
            ],
            config.n_jobs,
            "prepare",
            show_progress,
        )
        cells = plan_cells(config)
        todo = [cell for cell in cells if not (cells_dir / f"{cell.key}.json").exists()]
        _parallel(
            [(_run_cell, config, cell, cache_dir, cells_dir) for cell in todo], config.n_jobs, "cells", show_progress
        )
    except BaseException:
        # a failing worker's siblings are killed mid-write and leave their temporary files: never leave them behind
        _remove_temporaries(output)
        raise
    rows = []
    for cell in cells:
        stored = json.loads((cells_dir / f"{cell.key}.json").read_text(encoding="utf-8"))
        rows.extend(stored["rows"])
    frame = pd.DataFrame(rows)
    write_results(frame, output)
    write_json(
        output / EXPERIMENT_JSON,
        {
            "config": config.to_dict(),
            "fingerprint": config.evaluation_fingerprint(),
            "command": command if command is not None else sys.argv,
            "authorguard": __version__,
            "python": platform.python_version(),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
            "cells": len(cells),
            "cells_computed": len(todo),
            "preparations_computed": len(missing),
            "seconds": round(time.time() - started, 1),
        },
    )
    return frame


def write_results(frame, output: Path) -> None:
    """results.parquet and results.csv, each written atomically."""
    with atomic_write(output / RESULTS_PARQUET, mode="wb", encoding=None) as handle:
        frame.to_parquet(handle, index=False)
    with atomic_write(output / RESULTS_CSV) as handle:
        frame.to_csv(handle, index=False)


def read_results(path: str | os.PathLike):
    """A results table from ``results.parquet``/``.csv`` or the run folder holding it."""
    import pandas as pd

    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_PARQUET if (path / RESULTS_PARQUET).exists() else path / RESULTS_CSV
    if not path.is_file():
        raise InputError(f"{path}: no results file")
    try:
        frame = (
            pd.read_parquet(path)
            if path.suffix == ".parquet"
            else pd.read_csv(path, keep_default_na=False, na_values=[""])
        )
    except Exception as error:
        raise InputError(
            f"{path}: cannot read results ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})"
        ) from None
    required = {"scenario", "method", "run", "task", "attacker", "threat_model", "classifier", "f1_macro"}
    missing = sorted(required - set(frame.columns))
    if missing:
        raise InputError(f"{path}: results table has no {missing[0]!r} column")
    frame["threat_model"] = frame["threat_model"].map(lambda t: canonical_threat_model(t) if isinstance(t, str) else t)
    if "view" not in frame.columns:  # results written before views: one dataset, its own split
        frame["view"] = "all"
    # before the two utility rows, a protected method's utility row (threat model "") was the retrained analyst
    utility = ~frame["task"].isin(["attack", "content", "detector"])
    blank = frame["threat_model"].isna() | (frame["threat_model"] == "")
    frame.loc[utility & blank, "threat_model"] = (
        np.where(frame.loc[utility & blank, "method_name"] == "original", "none", "adversarial")
        if "method_name" in frame.columns
        else "adversarial"
    )
    return frame
