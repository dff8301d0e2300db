from __future__ import annotations

import os

from authorguard.utils.parallel import resolve_n_jobs, usable_cores


def test_n_jobs_follows_scikit_learns_convention():
    assert 1 <= usable_cores() <= (os.cpu_count() or 1)
    assert resolve_n_jobs(None) == 1 and resolve_n_jobs(3) == 3
    assert resolve_n_jobs(-1) == usable_cores() and resolve_n_jobs(-1000) == 1


def test_fork_is_used_on_linux_only():
    import sys

    from authorguard.utils.parallel import can_fork

    assert can_fork() == (sys.platform == "linux")
