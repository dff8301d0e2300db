"""Checks run one at a time in a background thread; the page polls a job for its progress lines and result.

Jobs and the checks kept for their follow-ups live in memory only (a person's text is never written to disk). A
finished job is forgotten :data:`JOB_TTL_S` seconds after it finished (and the oldest beyond :data:`KEEP_JOBS`);
a kept check (:class:`SessionStore`) :data:`SESSION_TTL_S` seconds after it was last used (and the least recently
used beyond :data:`KEEP_SESSIONS`: each holds its candidates' counts, tens of MB at 1,000 candidates). A client
that goes away mid-check changes nothing: the job runs in the server's thread, not the request's.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from authorguard.exceptions import AuthorguardError

KEEP_JOBS = 20
JOB_TTL_S = 1800
KEEP_SESSIONS = 4
SESSION_TTL_S = 1800


@dataclass
class Job:
    """``state``: queued | running | done | failed; ``progress``: the lines said so far; ``partial``: what the work
    published before it finished (a rewrite before its rankings); ``result``: a dict when done; ``error``: one
    line when failed."""

    id: str
    state: str = "queued"
    progress: list = field(default_factory=list)
    partial: dict = field(default_factory=dict)
    result: dict | None = None
    error: str | None = None
    finished: float | None = None

    def view(self) -> dict:
        return {
            "id": self.id,
            "state": self.state,
            "progress": list(self.progress),
            "partial": dict(self.partial),
            "result": self.result,
            "error": self.error,
        }

    def report(self, item) -> None:
        """A progress line (str) or a part of the result (dict, merged into ``partial``)."""
        if isinstance(item, dict):
            self.partial.update(item)
        else:
            self.progress.append(item)


def _first_line(message: str) -> str:
    return (message.strip().splitlines() or [""])[0]


class JobRunner:
    """``submit(work)`` -> a job id; ``work(say)`` (or ``work(say, job_id)`` with ``with_id``) returns the result
    dict, ``say(line)`` reports progress and ``say(dict)`` publishes part of the result."""

    def __init__(self, ttl: float = JOB_TTL_S) -> None:
        self.ttl = int(ttl)
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="authorguard-check")

    def busy(self) -> bool:
        """Whether a job is queued or running (the page runs one check at a time)."""
        with self._lock:
            return any(job.state in ("queued", "running") for job in self._jobs.values())

    def submit(self, work: Callable, with_id: bool = False) -> str:
        job = Job(uuid.uuid4().hex)
        with self._lock:
            self._forget()
            self._jobs[job.id] = job
            while len(self._jobs) > KEEP_JOBS:
                oldest = next(iter(self._jobs))
                if self._jobs[oldest].state in ("queued", "running"):
                    break
                self._jobs.pop(oldest)
        self._pool.submit(self._run, job, work, with_id)
        return job.id

    def _forget(self) -> None:
        now = time.monotonic()
        for key in [k for k, j in self._jobs.items() if j.finished is not None and now - j.finished > self.ttl]:
            self._jobs.pop(key)

    def _run(self, job: Job, work, with_id: bool) -> None:
        job.state = "running"
        try:
            job.result = work(job.report, job.id) if with_id else work(job.report)
            job.state = "done"
        except AuthorguardError as error:
            job.error, job.state = _first_line(str(error)), "failed"
        except Exception as error:
            job.error, job.state = _first_line(f"{type(error).__name__}: {error}"), "failed"
        finally:
            job.finished = time.monotonic()

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            self._forget()
            return self._jobs.get(job_id)

    def shutdown(self) -> None:
        """Cancel queued jobs and end the worker processes the checks keep warm (at once, not after their idle
        timeout: a stopped server leaves no process behind)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        stop_worker_processes()


def stop_worker_processes() -> None:
    """End joblib's reusable (loky) worker processes of this process, if it started any."""
    import sys

    if "joblib" not in sys.modules:
        return
    from joblib.externals.loky import reusable_executor

    # the module's current executor, without creating one (get_reusable_executor would start workers)
    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=False, kill_workers=True)


class SessionStore:
    """Finished checks kept for their re-checks and rewrites, by job id; ``using(key)`` holds one check's lock
    (a re-check and a rewrite of the same check do not run at once)."""

    def __init__(self, ttl: float = SESSION_TTL_S, keep: int = KEEP_SESSIONS) -> None:
        self.ttl, self.keep = int(ttl), keep
        self._items: OrderedDict[str, tuple] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, key: str, session) -> None:
        with self._lock:
            self._items[key] = (session, threading.Lock(), time.monotonic())
            self._items.move_to_end(key)
            self._forget()

    def get(self, key: str):
        with self._lock:
            self._forget()
            found = self._items.get(key)
            if found is None:
                return None
            self._items[key] = (found[0], found[1], time.monotonic())
            self._items.move_to_end(key)
            return found[0]

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    @contextlib.contextmanager
    def using(self, key: str):
        with self._lock:
            found = self._items.get(key)
        if found is None:
            yield
            return
        with found[1]:
            yield

    def _forget(self) -> None:
        now = time.monotonic()
        for key in [k for k, (_, _, used) in self._items.items() if now - used > self.ttl]:
            self._items.pop(key)
        while len(self._items) > self.keep:
            self._items.popitem(last=False)
