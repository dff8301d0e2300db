"""Planning, resuming and recording a batch anonymisation run.

OUTPUT holds ``part-NNNNN.parquet`` (one per input shard), ``errors.jsonl``, ``manifest.json`` and
``privacy.json``. The manifest records the configuration, every shard (input range, records in / out / in
errors, content hash, status, how many times it was released) and the release events. It is rewritten
atomically after every shard, so a run killed at any point can be resumed: ``--resume`` runs only the shards
that were never committed (a shard committed but not yet recorded is adopted, not re-run). ``--force``
re-releases every shard; the privacy report then composes the loss of all releases.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from authorguard.batch.adapters import check_method
from authorguard.batch.config import AnonymizeConfig
from authorguard.batch.engines import ENGINES
from authorguard.batch.shards import ShardProcessor, errors_name, shard_entry
from authorguard.batch.sources import Shard, input_files, plan_shards
from authorguard.data.io import atomic_write, write_json
from authorguard.exceptions import InputError

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
# what a run writes besides its parts: a run that released nothing may leave these, and may be started again
_OWN_FILES = {MANIFEST, "errors", "errors.jsonl", "privacy.json"}


def seed_fingerprint(seed: int | None, files: list[Path]) -> str | None:
    """A keyed, slow fingerprint of ``seed`` that lets ``--resume`` refuse another seed without writing the seed.

    The key is the first MiB of the first input file, which the release's recipients do not hold, and scrypt makes
    every guess cost ~50 ms; still, a seed is only as secret as it is unguessable: whoever holds the input can
    test small seeds, so use a large random one (or none: the OS CSPRNG)."""
    if seed is None:
        return None
    with open(files[0], "rb") as handle:
        key = hashlib.sha256(handle.read(1 << 20)).digest()
    return hashlib.scrypt(str(int(seed)).encode(), salt=key, n=1 << 14, r=8, p=1, dklen=16).hex()


def _input_signature(files: list[Path]) -> list[dict]:
    return [{"path": str(f), "bytes": f.stat().st_size, "mtime_ns": f.stat().st_mtime_ns} for f in files]


def _load_manifest(output: Path) -> dict | None:
    path = output / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: corrupt manifest ({error})") from None
    if manifest.get("version") != MANIFEST_VERSION:
        raise InputError(f"{path}: manifest version {manifest.get('version')!r} is not supported")
    return manifest


def _composed_report(per_release: dict, releases: int) -> dict:
    """What the worst-off record has cost: each release of a record is a fresh, independent draw, so losses add
    up (sequential composition)."""
    report = {"per_release": per_release, "releases_per_record": releases}
    # SynTF reports three bounds, DP-Prompt one (document_epsilon); the others stay None (no formal guarantee)
    for key in ("standard_epsilon", "improved_epsilon", "tight_epsilon", "document_epsilon"):
        value = per_release.get(key)
        report[f"composed_{key}"] = None if value is None else value * releases
    return report


def _starting_manifest(output: Path, config: AnonymizeConfig, plan: dict, shards: list) -> dict:
    """The manifest this run continues (--resume / --force, with the same input and options) or a new one (an
    absent or empty OUTPUT, or one whose earlier run released nothing); anything else is one line naming why."""
    manifest = _load_manifest(output)
    if manifest is not None and not _released_anything(output, manifest):
        manifest = None  # a run that died before its first commit: start it again, with these options
    if manifest is None:
        # --resume on an absent or empty OUTPUT starts the run: a run killed before its first manifest released
        # nothing, so nothing can be released twice (a retry loop always finishes)
        if output.exists() and any(p.name not in _OWN_FILES and not p.name.startswith(".") for p in output.iterdir()):
            raise InputError(f"{output}: exists, is not empty and holds no {MANIFEST}; choose a new OUTPUT")
        return {
            "version": MANIFEST_VERSION,
            "plan": plan,
            "config": config.public_dict(),
            "releases": [],
            "shards": {str(s.index): {**s.to_dict(), "status": "pending", "releases": 0} for s in shards},
        }
    if not (config.resume or config.force):
        raise InputError(f"{output}: holds a run already; --resume completes it, --force releases every record again")
    stored = dict(manifest["plan"])
    if config.force or "seed_fingerprint" not in stored:
        # --force releases every shard again, so a new seed mixes nothing; manifests from before the fingerprint
        stored["seed_fingerprint"] = plan["seed_fingerprint"]
    if stored != plan:
        changed = sorted(k for k in plan if stored.get(k) != plan[k])
        # the fingerprint is keyed by the input: it says nothing of the seed once the input changed
        changed = [
            ("seed" if k == "seed_fingerprint" else k)
            for k in changed
            if k != "seed_fingerprint" or "inputs" not in changed
        ]
        raise InputError(
            f"{output}: cannot continue: the input or the options changed since the run began ({', '.join(changed)})"
        )
    manifest["plan"] = plan  # the fingerprint of the seed in force (a --force run may bring a new one)
    return manifest


def run_anonymize(config: AnonymizeConfig, on_shard: Callable[[dict], None] | None = None) -> dict:
    """Run (or resume, or force) a batch anonymisation; returns the final manifest."""
    output = Path(config.output)
    files = input_files(config.input)
    shards = plan_shards(files, config.shard_size, config.text_field)
    plan = {
        "inputs": _input_signature(files),
        "shards": [s.to_dict() for s in shards],
        **config.plan_key(),
        "seed_fingerprint": seed_fingerprint(config.seed, files),
    }
    check_method(config.method, config.method_params)  # fail on bad options before anything is written
    manifest = _starting_manifest(output, config, plan, shards)

    # shards committed by a run that died before recording them are adopted, never re-run
    for shard in shards:
        entry = manifest["shards"][str(shard.index)]
        if entry["status"] != "done" and (output / shard.output_name).exists():
            manifest["shards"][str(shard.index)] = {**shard_entry(shard, output), "releases": max(entry["releases"], 1)}
    pending = shards if config.force else [s for s in shards if manifest["shards"][str(s.index)]["status"] != "done"]

    output.mkdir(parents=True, exist_ok=True)
    _remove_partial_files(output)
    if pending:
        manifest["releases"].append(
            {
                "event": len(manifest["releases"]),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "engine": config.engine,
                "shards": [s.index for s in pending],
                "privacy": None,
            }
        )
    _save(output, manifest)  # before the slow set-up (loading the method), so that a crash there can be resumed
    processor = ShardProcessor(config) if pending or not (output / "privacy.json").exists() else None

    def on_done(entry: dict) -> None:
        key = str(entry["index"])
        manifest["shards"][key] = {**entry, "releases": manifest["shards"][key]["releases"] + 1}
        _save(output, manifest)
        if on_shard is not None:
            on_shard(entry)

    if pending:
        ENGINES[config.engine](config, pending, on_done, processor if config.engine == "local" else None)
    method_report = None
    if processor is not None:
        # after the shards: the local engine's first shard computed the exact loss in its pass already
        method_report = {**processor.adapter.privacy_report(), "secure_random": config.seed is None}
        if pending:
            manifest["releases"][-1]["privacy"] = method_report
    return _finish(output, shards, manifest, method_report)


def _released_anything(output: Path, manifest: dict) -> bool:
    """Whether a shard was ever committed here (recorded, or renamed into place and not yet recorded)."""
    return any(
        entry.get("releases", 0) or entry.get("status") == "done" for entry in manifest["shards"].values()
    ) or any(output.glob("part-*.parquet"))


def _remove_partial_files(output: Path) -> None:
    """Temporary files of a killed run (never renamed into place, so never released)."""
    for folder in (output, output / "errors"):
        if folder.is_dir():
            for leftover in folder.glob(".*.tmp"):
                leftover.unlink()


def _save(output: Path, manifest: dict) -> None:
    entries = list(manifest["shards"].values())
    manifest["records_in"] = sum(e.get("records_in", 0) for e in entries)
    manifest["records_out"] = sum(e.get("records_out", 0) for e in entries)
    manifest["records_error"] = sum(e.get("records_error", 0) for e in entries)
    manifest["records_flagged"] = sum(e.get("records_flagged", 0) for e in entries)
    manifest["records_withheld"] = sum(e.get("records_withheld", 0) for e in entries)
    manifest["status"] = "complete" if all(e["status"] == "done" for e in entries) else "partial"
    write_json(output / MANIFEST, manifest)


def _finish(output: Path, shards: list[Shard], manifest: dict, method_report: dict | None) -> dict:
    with atomic_write(output / "errors.jsonl") as combined:
        for shard in shards:
            part = output / errors_name(shard)
            if part.exists():
                combined.write(part.read_text(encoding="utf-8"))
    releases = max((e["releases"] for e in manifest["shards"].values()), default=0)
    per_release = method_report or json.loads((output / "privacy.json").read_text(encoding="utf-8"))["per_release"]
    write_json(output / "privacy.json", _composed_report(per_release, releases))
    _save(output, manifest)
    return manifest


def read_output(output: str | os.PathLike) -> list[dict]:
    """All released records of a finished run, in shard order (for tests and small outputs)."""
    import pyarrow.parquet as pq

    manifest = _load_manifest(Path(output))
    if manifest is None:
        raise InputError(f"{output}: no {MANIFEST}")
    rows: list[dict] = []
    for key in sorted(manifest["shards"], key=int):
        rows += pq.read_table(Path(output) / manifest["shards"][key]["output"]).to_pylist()
    return rows
