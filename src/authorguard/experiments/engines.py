"""Where an experiment's jobs run: this machine's processes (joblib) or a Ray cluster.

A job is ``(function, *arguments)``: a preparation or a cell, which stores its own result atomically in the run
folder and returns its name. Either engine runs the same jobs, so the results are the same cell by cell; what
makes a cell count once is the store (a finished cell's file is never computed again), not the engine, so a job
that Ray retries after its worker died, or that a second run finds missing, is computed until it is stored once.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence

from authorguard.utils.progress import JobProgress

Job = tuple  # (function, *arguments)
ENGINES = ("local", "ray")
#: what a Ray worker must see as the driver does: where the data, the caches and the NLTK data are, offline mode
SHARED_ENVIRONMENT = ("AUTHORGUARD_DATA", "AUTHORGUARD_CACHE", "NLTK_DATA", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


def run_local(jobs: Sequence[Job], n_jobs: int, description: str, show_progress: bool | str) -> None:
    """Every job on ``n_jobs`` processes of this machine (joblib; 1 = in this process)."""
    from joblib import Parallel, delayed

    if not jobs:
        return
    with JobProgress(description, len(jobs), show_progress) as progress:
        results = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(delayed(f)(*args) for f, *args in jobs)
        for _ in results:
            progress.advance()


def experiment_job(function: Callable, *arguments):
    """One job on a Ray worker (a named function, so a worker's process title says ``ray::experiment_job``)."""
    return function(*arguments)


class RayEngine:
    """A Ray cluster for the run: the one at ``address`` (joined; the run folder must be on storage every node
    sees), or a local one of ``n_cpus`` CPUs started here and stopped by :meth:`close`. A job asks for the GPUs
    of its method (``gpus``) and one CPU; Ray hides the GPUs from a job that asks for none, so under this engine
    the attackers and meters run on CPU (the local engine uses a GPU when torch sees one)."""

    def __init__(self, address: str | None = None, n_cpus: int | None = None, gpus_wanted: float = 0.0) -> None:
        import ray

        self._started_here = not ray.is_initialized()
        if self._started_here:
            # the workers (on other nodes too) read the data and caches the driver was pointed at
            shared = {k: os.environ[k] for k in SHARED_ENVIRONMENT if k in os.environ}
            quiet = {
                "log_to_driver": False,
                "logging_level": logging.WARNING,
                "runtime_env": {"env_vars": shared} if shared else None,
            }
            if address:
                ray.init(address=address, **quiet)
            else:
                ray.init(
                    num_cpus=n_cpus or os.cpu_count(),
                    num_gpus=None if gpus_wanted else 0,
                    include_dashboard=False,
                    **quiet,
                )
        self.resources = {k: float(v) for k, v in sorted(ray.cluster_resources().items()) if "node:" not in k}
        self.address = address or "local"
        if gpus_wanted and self.resources.get("GPU", 0.0) < gpus_wanted:
            self.close()
            from authorguard.exceptions import InputError

            raise InputError(
                f"the config asks Ray for {gpus_wanted:g} GPU a job, but the cluster has "
                f"{self.resources.get('GPU', 0.0):g}; join a cluster with GPU nodes (--address) or set gpus = 0"
            )

    def run(self, jobs: Sequence[Job], gpus: Sequence[float], description: str, show_progress: bool | str) -> None:
        """Every job as a Ray task (``gpus[i]`` GPUs for job i, one CPU each); a task whose worker dies is retried
        (Ray's ``max_retries``); the first task that fails stops the rest and raises its error here."""
        import ray

        if not jobs:
            return
        remote = ray.remote(experiment_job)
        pending = [
            remote.options(num_cpus=1, num_gpus=gpu or 0, max_retries=3).remote(*job) for job, gpu in zip(jobs, gpus)
        ]
        with JobProgress(description, len(jobs), show_progress) as progress:
            try:
                while pending:
                    done, pending = ray.wait(pending, num_returns=1)
                    try:
                        ray.get(done[0])
                    except ray.exceptions.RayTaskError as error:
                        raise error.as_instanceof_cause() from None
                    progress.advance()
            except BaseException:
                for ref in pending:
                    ray.cancel(ref, force=True)
                raise

    def close(self) -> None:
        import ray

        if self._started_here and ray.is_initialized():
            ray.shutdown()
