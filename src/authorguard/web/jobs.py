"""Checks run one at a time in a background thread; the page polls a job for its progress lines and result.

Jobs live in memory only (a person's text is never written to disk) and the oldest finished ones are forgotten
beyond :data:`KEEP_JOBS`.
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from authorguard.exceptions import AuthorguardError

KEEP_JOBS = 20


@dataclass
class Job:
    """``state``: queued | running | done | failed; ``progress``: the lines said so far; ``result``: a dict when
    done; ``error``: one line when failed."""

    id: str
    state: str = "queued"
    progress: list = field(default_factory=list)
    result: dict | None = None
    error: str | None = None

    def view(self) -> dict:
        return {"id": self.id, "state": self.state, "progress": list(self.progress), "result": self.result,
                "error": self.error}


def _first_line(message: str) -> str:
    return (message.strip().splitlines() or [""])[0]


class JobRunner:
    """``submit(work)`` -> a job id; ``work(say)`` returns the result dict, ``say(line)`` reports progress."""

    def __init__(self) -> None:
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="authorguard-check")

    def busy(self) -> bool:
        """Whether a job is queued or running (the page runs one check at a time)."""
        with self._lock:
            return any(job.state in ("queued", "running") for job in self._jobs.values())

    def submit(self, work: Callable[[Callable[[str], None]], dict]) -> str:
        job = Job(uuid.uuid4().hex)
        with self._lock:
            self._jobs[job.id] = job
            while len(self._jobs) > KEEP_JOBS:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest].state in ("queued", "running"):
                    break
                self._jobs.pop(oldest)
        self._pool.submit(self._run, job, work)
        return job.id

    def _run(self, job: Job, work) -> None:
        job.state = "running"
        try:
            job.result = work(job.progress.append)
            job.state = "done"
        except AuthorguardError as error:
            job.error, job.state = _first_line(str(error)), "failed"
        except Exception as error:  # noqa: BLE001 — the page shows one line; the server keeps serving
            job.error, job.state = _first_line(f"{type(error).__name__}: {error}"), "failed"

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
