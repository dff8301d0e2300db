"""The experiment runner: every method x setting x run, scored by the analyst and the attackers.

Two phases, each spread over ``n_jobs`` processes with joblib:

1. *prepare*, once per distinct preparation: a deterministic text method's output on the corpus, or a vector
   method fitted on the training texts (with every epsilon of its grid, or the epsilon calibrated to each
   ``target_loss``, and the privacy report of each). Results go to ``OUTPUT/cache``; an epsilon grid costs
   one fit (``with_epsilon`` shares the precomputation).
2. *cells*, one per (method, setting, run): release the whole corpus once with the run's seed, then score the
   utility tasks on it and every attacker x threat model x classifier on each scenario's documents. Each
   cell's rows are written atomically to ``OUTPUT/cells/KEY.json`` as soon as it finishes, so an interrupted
   run resumes without redoing finished cells.

Finally ``results.parquet`` and ``results.csv`` (one row per scenario x method x setting x run x task x
attacker x threat model x classifier) and ``experiment.json`` (the resolved config, the command, versions)
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
from authorguard.attacks.base import canonical_threat_model
from authorguard.base import TextObfuscator
from authorguard.data import load_dataset
from authorguard.data.io import atomic_write, write_json
from authorguard.data.release import Release
from authorguard.exceptions import AuthorguardError, InputError
from authorguard.experiments.config import CALIBRATION_PARAMETER, ExperimentConfig, MethodSpec

RESULTS_PARQUET, RESULTS_CSV, EXPERIMENT_JSON = "results.parquet", "results.csv", "experiment.json"


def _digest(obj: object, length: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:length]


def run_seed(seed: int, run: int) -> int:
    """The seed of run ``run``: the same for every method, so methods are compared on paired draws."""
    return int(np.random.SeedSequence([seed, run]).generate_state(1)[0])


@dataclass(frozen=True)
class Cell:
    """One (method, setting, run) of the experiment."""

    method: MethodSpec
    setting: dict
    run: int
    fingerprint: str

    @property
    def key(self) -> str:
        return _digest([self.fingerprint, self.method.name, self.method.display_name, self.setting, self.run])


def plan_cells(config: ExperimentConfig) -> list[Cell]:
    """All cells, grouped by (method, setting) so a worker reuses what it loaded."""
    fingerprint = config.evaluation_fingerprint()
    return [Cell(spec, setting, run, fingerprint) for spec in config.methods for setting in spec.settings() for run in range(config.runs)]


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


def preparation_key(spec: MethodSpec, setting: dict, fingerprint: str) -> str:
    """Names the cached preparation of ``setting``: settings that share a fit share it."""
    return _digest([fingerprint, spec.name, _fit_params(_method_class(spec), setting)])


def _setting_key(setting: dict) -> str:
    return _digest(setting)


_CORPORA: dict[str, object] = {}


def _corpus(config: ExperimentConfig):
    key = _digest([config.dataset, config.dataset_options])
    if key not in _CORPORA:
        _CORPORA.clear()
        _CORPORA[key] = load_dataset(config.dataset, **config.dataset_options)
    return _CORPORA[key]


def _prepare(config: ExperimentConfig, spec: MethodSpec, settings: list[dict], path: Path) -> None:
    """Compute and store one preparation (see the module docstring)."""
    corpus = _corpus(config)
    cls = _method_class(spec)
    if issubclass(cls, TextObfuscator):
        method = cls(**settings[0]).fit()
        texts = method.obfuscate(corpus.texts)
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


def _preparations(config: ExperimentConfig) -> dict[str, tuple[MethodSpec, list[dict]]]:
    fingerprint = config.evaluation_fingerprint()
    jobs: dict[str, tuple[MethodSpec, list[dict]]] = {}
    for spec in config.methods:
        cls = _method_class(spec)
        if issubclass(cls, TextObfuscator) and not cls.deterministic:
            continue  # computed per run inside the cells
        for setting in spec.settings():
            key = preparation_key(spec, setting, fingerprint)
            if key in jobs:
                if setting not in jobs[key][1]:
                    jobs[key][1].append(setting)
            else:
                jobs[key] = (spec, [setting])
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


def _original_release(config: ExperimentConfig, corpus) -> Release:
    key = _digest([config.dataset, config.dataset_options, config.morphology])
    if key not in _ORIGINAL:
        _ORIGINAL.clear()
        _ORIGINAL[key] = Release.from_texts(corpus.texts, config.morphology)
    return _ORIGINAL[key]


def _releases(config: ExperimentConfig, cell: Cell, cache_dir: Path, seed: int) -> tuple[Release, Release, dict, str]:
    """(released, original in the same feature space, privacy report, output kind) for the whole corpus."""
    corpus = _corpus(config)
    cls = _method_class(cell.method)
    if issubclass(cls, TextObfuscator):
        if cls.deterministic:
            meta, _ = _load_prepared(cache_dir / preparation_key(cell.method, cell.setting, cell.fingerprint))
            texts = meta["texts"]
        else:
            params = dict(cell.setting)
            if "random_state" in cls().get_params():
                params["random_state"] = seed
            texts = cls(**params).fit(corpus.split("train").texts).obfuscate(corpus.texts)
        original = _original_release(config, corpus)
        released = original if cls is registry.methods.get("original") else Release.from_texts(texts, config.morphology)
        return released, original, {}, "text"
    meta, fitted = _load_prepared(cache_dir / preparation_key(cell.method, cell.setting, cell.fingerprint))
    resolved = meta["settings"][_setting_key(cell.setting)]
    model = fitted.with_epsilon(resolved["epsilon"]) if _epsilon_shared(cls) else fitted
    vocabulary = tuple(model.get_feature_names_out())
    released = Release(model.transform_records(corpus.texts, corpus.ids, seed=seed), vocabulary)
    # the authors' own texts ride along for text readers (a static attacker of text trains on the real writing)
    original = Release(model.term_counts(corpus.texts), vocabulary, corpus.texts)
    return released, original, resolved["privacy"], "vectors"


def evaluate_cell(config: ExperimentConfig, cell: Cell, cache_dir: Path) -> list[dict]:
    """Score one cell: the utility tasks on the whole corpus, the attacks on every scenario; rows of scores."""
    corpus = _corpus(config)
    seed = run_seed(config.seed, cell.run)
    started = time.perf_counter()
    released, original, privacy, kind = _releases(config, cell, cache_dir, seed)
    is_reference = issubclass(_method_class(cell.method), registry.methods.get("original"))
    base = {
        "experiment": config.name, "dataset": config.dataset, "method": cell.method.display_name,
        "method_name": cell.method.name, "params": json.dumps(cell.setting, sort_keys=True), "run": cell.run, "seed": seed,
        "epsilon": privacy.get("epsilon"), "n_words": privacy.get("n_words"), "loss_per_word": privacy.get("loss_per_word"),
        "total_loss": privacy.get("tight_epsilon"), "improved_epsilon": privacy.get("improved_epsilon"),
        "standard_epsilon": privacy.get("standard_epsilon"), "vocabulary_size": len(released.vocabulary),
    }
    base.update({f"param_{k}": (v if isinstance(v, (int, float, bool)) else str(v)) for k, v in cell.setting.items()})
    rows = []
    labelled = np.array([label is not None for label in corpus.labels])
    in_train = np.array([s == "train" for s in corpus.splits])
    in_test = np.array([s == "test" for s in corpus.splits])
    train = np.flatnonzero(labelled & in_train)
    test = np.flatnonzero(labelled & in_test)
    labels = np.array(corpus.labels, dtype=object)
    for task_name in config.tasks:
        for classifier in config.classifiers:
            task = registry.tasks.get(task_name)(classifier=classifier, random_state=seed)
            scores = task.evaluate(released.rows(train), labels[train], released.rows(test), labels[test])
            rows.append({**base, "scenario": "all", "task": task_name, "attacker": "", "threat_model": "",
                         "classifier": classifier, **scores, "n_train": len(train), "n_test": len(test)})
    authors = np.array(corpus.authors, dtype=object)
    for scenario in config.parsed_scenarios():
        chosen = set(scenario.authors(corpus))
        in_scenario = np.array([a in chosen for a in corpus.authors])
        a_train = np.flatnonzero(in_scenario & in_train)
        a_test = np.flatnonzero(in_scenario & in_test)
        # for the unprotected reference both threat models are the same attack: one row, threat model "none"
        threats = ["none"] if is_reference else list(config.threat_models)
        for attacker_name in config.attackers:
            for classifier in config.classifiers:
                for threat in threats:
                    attacker = registry.attackers.get(attacker_name)(classifier=classifier, random_state=seed)
                    training, training_authors = _attacker_training(threat, original, released, a_train, authors)
                    scores = attacker.evaluate(training, training_authors, released.rows(a_test), authors[a_test])
                    rows.append({**base, "scenario": scenario.name, "task": "attack", "attacker": attacker_name,
                                 "threat_model": threat, "classifier": classifier, **scores,
                                 "n_train": len(a_train), "n_test": len(a_test)})
    elapsed = time.perf_counter() - started
    for row in rows:
        row["release_kind"] = kind
        row["cell_seconds"] = elapsed
    return rows


def _attacker_training(threat: str, original: Release, released: Release, rows: np.ndarray, authors: np.ndarray):
    """What the attacker trains on under ``threat``: (release, authors) of the training documents."""
    if threat == "static":
        return original.rows(rows), authors[rows]
    if threat == "augmented":  # each training document twice: as written and as released
        return Release.stack([original.rows(rows), released.rows(rows)]), np.concatenate([authors[rows], authors[rows]])
    return released.rows(rows), authors[rows]  # adversarial (and the reference's single "none" attack)


def _run_cell(config: ExperimentConfig, cell: Cell, cache_dir: Path, cells_dir: Path) -> str:
    rows = evaluate_cell(config, cell, cache_dir)
    write_json(cells_dir / f"{cell.key}.json", {"key": cell.key, "rows": rows})
    return cell.key


def _run_preparation(config: ExperimentConfig, spec: MethodSpec, settings: list[dict], path: Path) -> str:
    _prepare(config, spec, settings, path)
    return path.name


# -- the run -----------------------------------------------------------------------------------------------

def _parallel(jobs: list, n_jobs: int, description: str, show_progress: bool) -> None:
    from joblib import Parallel, delayed
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    if not jobs:
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, disable=not show_progress, transient=False) as progress:
        task = progress.add_task(description, total=len(jobs))
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(f)(*args) for f, *args in jobs)
        for _ in results:
            progress.advance(task)


def run_experiment(config: ExperimentConfig, output_dir: str | os.PathLike, *, resume: bool = True,
                   show_progress: bool = False, command: list[str] | None = None):
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
    corpus = _corpus(config)
    for scenario in config.parsed_scenarios():
        scenario.authors(corpus)  # an empty scenario fails now, not after hours of work
    preparations = _preparations(config)
    missing = [(key, spec, settings) for key, (spec, settings) in preparations.items()
               if not (cache_dir / f"{key}.json").exists()]
    _parallel([(_run_preparation, config, spec, settings, cache_dir / key) for key, spec, settings in missing],
              config.n_jobs, "prepare", show_progress)
    cells = plan_cells(config)
    todo = [cell for cell in cells if not (cells_dir / f"{cell.key}.json").exists()]
    _parallel([(_run_cell, config, cell, cache_dir, cells_dir) for cell in todo], config.n_jobs, "cells", show_progress)
    rows = []
    for cell in cells:
        stored = json.loads((cells_dir / f"{cell.key}.json").read_text(encoding="utf-8"))
        rows.extend(stored["rows"])
    frame = pd.DataFrame(rows)
    write_results(frame, output)
    write_json(output / EXPERIMENT_JSON, {
        "config": config.to_dict(), "fingerprint": config.evaluation_fingerprint(),
        "command": command if command is not None else sys.argv, "authorguard": __version__,
        "python": platform.python_version(), "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "cells": len(cells), "cells_computed": len(todo), "preparations_computed": len(missing),
        "seconds": round(time.time() - started, 1),
    })
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
        frame = pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path, keep_default_na=False, na_values=[""])
    except Exception as error:
        raise InputError(f"{path}: cannot read results ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})") from None
    required = {"scenario", "method", "run", "task", "attacker", "threat_model", "classifier", "f1_macro"}
    missing = sorted(required - set(frame.columns))
    if missing:
        raise InputError(f"{path}: results table has no {missing[0]!r} column")
    frame["threat_model"] = frame["threat_model"].map(lambda t: canonical_threat_model(t) if isinstance(t, str) else t)
    return frame
