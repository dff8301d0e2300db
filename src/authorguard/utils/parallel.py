"""How many processes a job may use: the cores this process may run on, and scikit-learn's ``n_jobs`` convention."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def resolve_n_jobs(n_jobs: int | None) -> int:
    """scikit-learn's convention: None means 1, -1 every usable core, -2 all but one; never below 1."""
    if n_jobs is None:
        return 1
    if n_jobs < 0:
        return max(1, usable_cores() + 1 + n_jobs)
    return max(1, n_jobs)


def can_fork() -> bool:
    """Whether work can go to forked processes here (Linux: macOS's fork is unsafe with system frameworks)."""
    import multiprocessing
    import sys

    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


def map_forked(function: Callable[..., T], arguments: Sequence[tuple], processes: int) -> list[T]:
    """``[function(*a) for a in arguments]``, the first in this process and the others in up to ``processes - 1``
    forked workers at once (results in order; an exception in a worker is raised here).

    Forked workers start in milliseconds with this process's imports and data (spawned ones would import everything
    again); give them pure-Python or numpy work, never a threaded library that forking could leave locked.
    Without fork (:func:`can_fork`) or with one process, everything runs here.
    """
    if processes <= 1 or len(arguments) <= 1 or not can_fork():
        return [function(*a) for a in arguments]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = min(processes, len(arguments)) - 1
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(function, *a) for a in arguments[1:]]
        first = function(*arguments[0])
        return [first] + [future.result() for future in futures]
