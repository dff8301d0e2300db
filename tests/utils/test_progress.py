"""A run's progress: a line per finished job where no terminal shows a bar (logs, pipes, CI)."""

from __future__ import annotations

import pytest


def test_without_a_terminal_each_finished_job_prints_a_line_with_what_is_done_the_time_and_an_estimate(capsys):
    from authorguard.utils.progress import JobProgress

    now = [0.0]
    with JobProgress("cells", 4, "lines", clock=lambda: now[0]) as progress:
        for _ in range(4):
            now[0] += 30.0
            progress.advance()
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        "cells: 1/4 done, 30s elapsed, about 1m30s left",
        "cells: 2/4 done, 1m00s elapsed, about 1m00s left",
        "cells: 3/4 done, 1m30s elapsed, about 30s left",
        "cells: 4/4 done, 2m00s elapsed",
    ]
    with JobProgress("cells", 2, False) as quiet:
        quiet.advance()
    assert capsys.readouterr() == ("", "")


def test_an_unknown_progress_mode_is_refused():
    from authorguard.utils.progress import JobProgress

    with pytest.raises(ValueError, match="show_progress"):
        JobProgress("cells", 1, "dots")


def test_a_resumed_job_estimates_the_time_left_from_this_runs_pace(capsys):
    from authorguard.utils.progress import JobProgress

    now = [0.0]
    with JobProgress("parts", 0, "lines", clock=lambda: now[0]) as progress:
        progress.update(90, 100)  # an earlier run counted 90 parts
        now[0] = 60.0
        progress.update(91, 100)
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == "parts: 91/100 done, 1m00s elapsed, about 9m00s left"
