"""The typed configuration of a batch anonymisation run, validated once at the edge."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from authorguard.exceptions import InputError
from authorguard.utils.validation import check_number, check_option

ENGINES = ("local", "ray")


def load_method_params(path: str | os.PathLike | None) -> dict:
    """A method's parameters from a TOML, JSON or YAML file (a flat table of name = value)."""
    if path is None:
        return {}
    path = Path(path)
    if not path.is_file():
        raise InputError(f"config file {str(path)!r} does not exist")
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            import tomllib

            params = tomllib.loads(text)
        elif suffix == ".json":
            params = json.loads(text)
        elif suffix in (".yaml", ".yml"):
            import yaml

            params = yaml.safe_load(text) or {}
        else:
            raise InputError(f"{path}: config must be .toml, .json or .yaml")
    except InputError:
        raise
    except Exception as error:  # each parser has its own error type
        raise InputError(f"{path}: not a valid {suffix[1:].upper()} file ({error})") from None
    if not isinstance(params, dict):
        raise InputError(f"{path}: the config must be a table of parameter = value")
    return params


@dataclass(frozen=True)
class AnonymizeConfig:
    """Everything that defines a batch run; recorded in the run's manifest.

    Attributes
    ----------
    method : str
        A registered method name.
    method_params : dict
        Parameters of the method (its defaults for batch runs apply to the rest).
    input, output : str
        A file or directory of JSONL/CSV/Parquet files; a directory for Parquet shards and the manifest.
    engine : {"local", "ray"}
    batch_size : int
        Records anonymised at a time inside a shard (bounds memory). Larger batches are faster for SynTF: each
        distinct source word's row of the mechanism (O(L) work) is computed once per batch.
    shard_size : int
        Records per shard: the unit of atomic output and of resumption.
    workers : int
        Ray workers (each loads the method once); must be 1 with the local engine.
    seed : int or None
        Per-record randomness from (seed, record id); None draws from the OS CSPRNG (not reproducible).
    """

    method: str
    input: str
    output: str
    method_params: dict = field(default_factory=dict)
    engine: str = "local"
    ray_address: str | None = None
    batch_size: int = 4096
    shard_size: int = 10_000
    workers: int = 1
    gpus_per_worker: float = 0.0
    seed: int | None = None
    id_field: str = "id"
    text_field: str = "text"
    resume: bool = False
    force: bool = False

    def __post_init__(self) -> None:
        owner = "anonymize"
        check_option(self.engine, "engine", owner, ENGINES)
        check_number(self.batch_size, "batch_size", owner, kind=int, low=1, closed="left")
        check_number(self.shard_size, "shard_size", owner, kind=int, low=1, closed="left")
        check_number(self.workers, "workers", owner, kind=int, low=1, closed="left")
        check_number(self.gpus_per_worker, "gpus_per_worker", owner, low=0.0, closed="left")
        if self.seed is not None:
            check_number(self.seed, "seed", owner, kind=int, low=0, closed="left")
        if self.engine == "local" and self.workers != 1:
            raise InputError("--workers applies to --engine ray; the local engine runs one worker")
        if self.engine == "local" and self.ray_address:
            raise InputError("--ray-address applies to --engine ray")
        if self.resume and self.force:
            raise InputError(
                "--resume and --force exclude each other: resume never re-releases a shard, force re-releases all"
            )
        if not self.id_field or not self.text_field:
            raise InputError("--id-field and --text-field must not be empty")

    def to_dict(self) -> dict:
        return asdict(self)

    def public_dict(self) -> dict:
        """What is recorded in OUTPUT: everything but the seed (whoever knows it can undo the protection)."""
        values = self.to_dict()
        values["seed"] = None if self.seed is None else "<secret>"
        return values

    def plan_key(self) -> dict:
        """What must not change between a run and its resumption."""
        return {
            "method": self.method,
            "method_params": self.method_params,
            "shard_size": self.shard_size,
            "id_field": self.id_field,
            "text_field": self.text_field,
            "randomness": "seeded" if self.seed is not None else "secure",
        }
