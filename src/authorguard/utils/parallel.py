"""How many processes a job may use: the cores this process may run on, and scikit-learn's ``n_jobs`` convention."""

from __future__ import annotations

import os


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
