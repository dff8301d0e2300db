from __future__ import annotations

import os

from authorguard.utils.parallel import resolve_n_jobs, usable_cores


def test_n_jobs_follows_scikit_learns_convention():
    assert 1 <= usable_cores() <= (os.cpu_count() or 1)
    assert resolve_n_jobs(None) == 1 and resolve_n_jobs(3) == 3
    assert resolve_n_jobs(-1) == usable_cores() and resolve_n_jobs(-1000) == 1


def _pid_and_square(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return os.getpid(), x * x


def test_forked_map_keeps_order_runs_the_first_here_and_raises_a_workers_error():
    import pytest

    from authorguard.utils.parallel import can_fork, map_forked

    results = map_forked(_pid_and_square, [(i,) for i in range(5)], processes=3)
    assert [square for _, square in results] == [0, 1, 4, 9, 16]
    assert results[0][0] == os.getpid()
    if can_fork():
        assert all(pid != os.getpid() for pid, _ in results[1:])
    assert map_forked(_pid_and_square, [(2,), (3,)], processes=1) == [(os.getpid(), 4), (os.getpid(), 9)]
    with pytest.raises(ValueError, match="negative: -1"):
        map_forked(_pid_and_square, [(1,), (-1,)], processes=2)
