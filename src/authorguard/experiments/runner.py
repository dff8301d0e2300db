"""The experiment runner: every method x setting x run, scored by the analyst and the attackers.

Each cell and preparation belongs to a *view* (:mod:`authorguard.experiments.views`): the dataset's own split
with its Top-k scenarios, or one text-benchmark scenario (BAC-10, AMT-10, blog-age, ...) with its own documents.
Two phases, each a list of jobs for an engine (:mod:`authorguard.experiments.engines`: ``local``, joblib over
``n_jobs`` processes; ``ray``, a task per job on a local or joined Ray cluster):

1. *prepare* (:mod:`authorguard.experiments.preparation`), once per distinct preparation and view, stored in
   ``OUTPUT/cache``;
2. *cells* (:mod:`authorguard.experiments.cells`), one per (view, method, setting, run); each cell's rows are
   written atomically to ``OUTPUT/cells/KEY.json`` as soon as it finishes, so an interrupted run (or a killed
   worker) resumes without redoing finished cells, and a cell is stored once whichever engine ran it.

Finally ``results.parquet`` and ``results.csv`` (one row per view x scenario x method x setting x run x task x
attacker x threat model x classifier; ``task`` is a utility task, ``attack``, ``content`` or ``detector``) and
``experiment.json`` (the resolved config, the command, versions, the engine and its resources) are written
atomically.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from authorguard import __version__
from authorguard.attacks.base import canonical_threat_model
from authorguard.data.io import atomic_write, write_json
from authorguard.exceptions import InputError
from authorguard.experiments.cells import Cell, evaluate_cell, plan_cells, run_seed
from authorguard.experiments.config import ExperimentConfig, MethodSpec
from authorguard.experiments.engines import ENGINES, RayEngine, run_local
from authorguard.experiments.preparation import preparations, prepare
from authorguard.experiments.views import cached_view as _view
from authorguard.experiments.views import view_names

RESULTS_PARQUET, RESULTS_CSV, EXPERIMENT_JSON = "results.parquet", "results.csv", "experiment.json"
__all__ = ["Cell", "plan_cells", "run_experiment", "run_seed", "read_results", "write_results"]


def _run_cell(config: ExperimentConfig, cell: Cell, cache_dir: Path, cells_dir: Path) -> str:
    path = cells_dir / f"{cell.key}.json"
    if not path.exists():  # a retried job whose first attempt got as far as storing it
        write_json(path, {"key": cell.key, "rows": evaluate_cell(config, cell, cache_dir)})
    return cell.key


def _run_preparation(config: ExperimentConfig, view: str, spec: MethodSpec, settings: list[dict], path: Path) -> str:
    if not path.with_suffix(".json").exists():
        prepare(config, view, spec, settings, path)
    return path.name


def _parallel(jobs: list, n_jobs: int, description: str, show_progress: bool | str, engine=None, gpus=None) -> None:
    """The jobs on ``engine`` (a :class:`RayEngine`), or on this machine's ``n_jobs`` processes."""
    if engine is None:
        run_local(jobs, n_jobs, description, show_progress)
    else:
        engine.run(jobs, gpus or [0.0] * len(jobs), description, show_progress)


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
    show_progress: bool | str = False,
    command: list[str] | None = None,
    engine: str = "local",
    address: str | None = None,
):
    """Run (or resume) ``config``; returns the results as a pandas DataFrame (also written to ``output_dir``).

    With ``resume`` (default) finished cells in ``output_dir`` are kept; without it the cells and caches of
    an earlier run there are deleted first. ``engine``: ``"local"`` (``n_jobs`` processes here) or ``"ray"`` (a
    task per preparation and cell; a local cluster of ``n_jobs`` CPUs, or the cluster at ``address``); the results
    are the same.
    """
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    if address and engine != "ray":
        raise InputError("--address applies to --engine ray")
    import pandas as pd

    output = Path(output_dir).resolve()  # Ray workers, on other nodes too, read and write it by this path
    cells_dir, cache_dir = output / "cells", output / "cache"
    if not resume:
        for folder in (cells_dir, cache_dir):
            shutil.rmtree(folder, ignore_errors=True)
    cells_dir.mkdir(parents=True, exist_ok=True)
    cache_dir.mkdir(parents=True, exist_ok=True)
    started = time.time()
    _remove_temporaries(output)  # a killed earlier run's half-written files
    cells, computed, prepared, cluster = _compute(config, output, engine, address, show_progress)
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
            "cells_computed": computed,
            "preparations_computed": prepared,
            "seconds": round(time.time() - started, 1),
            "engine": {"name": engine, "address": cluster.address, "resources": cluster.resources}
            if cluster is not None
            else {"name": "local", "n_jobs": config.n_jobs},
        },
    )
    return frame


def _compute(config: ExperimentConfig, output: Path, engine: str, address: str | None, show_progress: bool | str):
    """Every preparation and cell not yet in OUTPUT's cache/ and cells/, here or on Ray; returns (every planned
    cell, cells computed, preparations computed, the closed Ray engine or None). On any failure the temporary files
    of killed workers are removed (the cluster closed first, so that no cancelled task writes one after)."""
    cells_dir, cache_dir = output / "cells", output / "cache"
    cluster = None
    try:
        for view in view_names(config):
            _view(config, view)  # a scenario that cannot be built fails now, not after hours of work
        missing = [
            (key, view, spec, settings)
            for key, (view, spec, settings) in preparations(config).items()
            if not (cache_dir / f"{key}.json").exists()
        ]
        cells = plan_cells(config)
        todo = [cell for cell in cells if not (cells_dir / f"{cell.key}.json").exists()]
        if engine == "ray":
            n_cpus = os.cpu_count() if config.n_jobs == -1 else config.n_jobs
            cluster = RayEngine(address, n_cpus, max((spec.gpus for spec in config.methods), default=0.0))
        _parallel(
            [
                (_run_preparation, config, view, spec, settings, cache_dir / key)
                for key, view, spec, settings in missing
            ],
            config.n_jobs,
            "prepare",
            show_progress,
            cluster,
            [spec.gpus for _, _, spec, _ in missing],
        )
        _parallel(
            [(_run_cell, config, cell, cache_dir, cells_dir) for cell in todo],
            config.n_jobs,
            "cells",
            show_progress,
            cluster,
            [cell.method.gpus for cell in todo],
        )
    except BaseException:
        if cluster is not None:
            cluster.close()
            cluster = None
        _remove_temporaries(output)
        raise
    finally:
        if cluster is not None:
            cluster.close()
    return cells, len(todo), len(missing), cluster


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
            # the per-document answers are strings of 0/1 ("0101" is no number 101); the digest is hex
            else pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"correct": str, "test_digest": str})
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
