"""Engines that run the pending shards: in this process, or on a Ray cluster through Ray Data."""

from __future__ import annotations

import json
import logging
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

import numpy as np

from authorguard.batch.config import AnonymizeConfig
from authorguard.batch.shards import ShardProcessor
from authorguard.batch.sources import Shard

OnDone = Callable[[dict], None]


def run_local(
    config: AnonymizeConfig, shards: Iterable[Shard], on_done: OnDone, processor: ShardProcessor | None = None
) -> None:
    """One process, shards in order (reusing the driver's loaded method when given)."""
    processor = processor or ShardProcessor(config)
    for shard in shards:
        on_done(processor.process(shard))


class RayShardWorker:
    """Stateful Ray Data worker: loads the method once, then processes the shards it is given."""

    def __init__(self, config: dict) -> None:
        import numba
        import ray

        # one worker per CPU Ray gives it: the kernels' threads must not oversubscribe the node
        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1)
        numba.set_num_threads(max(1, min(int(cpus), numba.config.NUMBA_NUM_THREADS)))
        self.processor = ShardProcessor(AnonymizeConfig(**config))
        if "torch" in sys.modules:  # a neural method's engine: the same reason (torch takes every core by default)
            sys.modules["torch"].set_num_threads(max(1, int(cpus)))

    def __call__(self, batch: dict) -> dict:
        entries = [self.processor.process(Shard(**json.loads(item))) for item in batch["shard"]]
        return {"entry": np.array([json.dumps(entry) for entry in entries], dtype=object)}


def run_ray(
    config: AnonymizeConfig, shards: list[Shard], on_done: OnDone, processor: ShardProcessor | None = None
) -> None:
    """Ray Data: shard descriptors -> ``map_batches`` on an actor pool of ``workers`` stateful workers.

    Each worker reads its shard's records itself (streaming, with per-record error capture) and commits the
    output atomically, so a shard is the unit of exactly-once delivery whatever Ray retries. With no
    ``ray_address`` a local cluster of ``workers`` CPUs is started and stopped by the command; with one, the
    existing cluster is joined (inputs and outputs must then be on storage every node sees).
    """
    import ray

    with ray_session(config.workers, config.ray_address, gpus=bool(config.gpus_per_worker)):
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        dataset = ray.data.from_items(
            [{"shard": json.dumps(s.to_dict())} for s in shards], override_num_blocks=max(len(shards), 1)
        )
        results = dataset.map_batches(
            RayShardWorker,
            fn_constructor_kwargs={"config": config.to_dict()},
            batch_size=1,
            compute=ray.data.ActorPoolStrategy(size=config.workers),
            num_cpus=1,
            num_gpus=config.gpus_per_worker or None,
        )
        for row in results.iter_rows():
            on_done(json.loads(row["entry"]))


@contextmanager
def ray_session(workers: int, address: str | None = None, gpus: bool = False) -> Iterator[None]:
    """Ray for the duration: an existing cluster joined at ``address``, or a local one of ``workers`` CPUs
    started and stopped here; a session already running (a caller's) is used and left running."""
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        else:
            ray.init(
                num_cpus=workers,
                num_gpus=None if gpus else 0,
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    try:
        yield
    finally:
        if started_here:
            ray.shutdown()


def ray_map(workers: int, address: str | None = None) -> Callable[[Callable, Iterable], Iterator]:
    """A ``map(function, jobs)`` that runs each job as a Ray task (one CPU each), yielding the results in the
    jobs' order with at most ``2 * workers`` in flight — so that the jobs (made lazily) and their results are
    never all in memory. ``function`` and the jobs must pickle; a job's inputs on storage every node sees."""

    def mapper(function: Callable, jobs: Iterable) -> Iterator:
        import ray

        with ray_session(workers, address):
            remote = ray.remote(num_cpus=1)(function)
            pending: deque = deque()
            for job in jobs:
                pending.append(remote.remote(job))
                if len(pending) >= 2 * max(1, workers):
                    yield ray.get(pending.popleft())
            while pending:
                yield ray.get(pending.popleft())

    return mapper


ENGINES = {"local": run_local, "ray": run_ray}
