"""Progress of a long job on stderr: a Rich bar on a terminal, one line per step where no terminal shows a bar
(logs, pipes, CI), each with what is done, the time elapsed and an estimate of the time left."""

from __future__ import annotations

from collections.abc import Callable

#: how a run shows its progress: a Rich bar on a terminal, a line per finished job otherwise, or nothing
PROGRESS_MODES = ("bar", "lines", "none")


def progress_mode(show_progress: bool | str) -> str:
    """``show_progress`` as one of :data:`PROGRESS_MODES` (True: a bar; False: nothing)."""
    if show_progress is True:
        return "bar"
    if show_progress is False or show_progress is None:
        return "none"
    if show_progress not in PROGRESS_MODES:
        raise ValueError(f"show_progress: {show_progress!r} is not one of {', '.join(PROGRESS_MODES)}")
    return str(show_progress)


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


class JobProgress:
    """The progress of ``total`` jobs on stderr: a bar (``"bar"``), or one line per finished job (``"lines"``: logs,
    pipes, CI) with the jobs done, the time elapsed and an estimate of the time left from the mean job so far.
    ``clock``: seconds (default: :func:`time.monotonic`); ``write``: where a line goes (default: stderr).
    :meth:`update` sets the count done (a resumed job starts past zero)."""

    def __init__(
        self,
        description: str,
        total: int,
        show_progress: bool | str,
        clock: Callable[[], float] | None = None,
        write: Callable[[str], object] | None = None,
    ) -> None:
        import time

        self.description, self.total, self.done = description, total, 0
        self.mode = progress_mode(show_progress)
        self.clock = clock or time.monotonic
        self.started = self.clock()
        self.write = write
        self._resumed_at: int | None = None
        self._bar = None
        if self.mode == "bar":
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            columns = (
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("remaining"),
                TimeRemainingColumn(),
            )
            self._bar = Progress(*columns, console=Console(stderr=True), transient=False)
            self._task = self._bar.add_task(description, total=total)

    def __enter__(self) -> JobProgress:
        if self._bar is not None:
            self._bar.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def line(self) -> str:
        """``"cells: 3/24 done, 1m12s elapsed, about 8m24s left"``."""
        elapsed = self.clock() - self.started
        finished_here = self.done - (self._resumed_at or 0)  # jobs done before this run took none of its time
        left = elapsed / finished_here * (self.total - self.done) if finished_here > 0 else None
        estimate = "" if left is None or self.done == self.total else f", about {_duration(left)} left"
        return f"{self.description}: {self.done}/{self.total} done, {_duration(elapsed)} elapsed{estimate}"

    def advance(self, steps: int = 1) -> None:
        if self._resumed_at is None:
            self._resumed_at = self.done
        self.update(self.done + steps)

    def update(self, done: int, total: int | None = None) -> None:
        """``done`` of the jobs (of ``total``, when it changes) are finished."""
        import sys

        if total is not None:
            self.total = total
        if self._resumed_at is None:  # the first count reported is where this run starts (an earlier one's work)
            self._resumed_at = done
        if done == self.done and total is None:
            return
        self.done = done
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=self.total)
        elif self.mode == "lines" and self.write is not None:
            self.write(self.line())
        elif self.mode == "lines":
            print(self.line(), file=sys.stderr, flush=True)
