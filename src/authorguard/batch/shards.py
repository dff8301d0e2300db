"""Processing one shard: stream its records, anonymise them in batches, commit the output atomically.

The output Parquet file is written to a temporary name and renamed into place last: the rename is the commit
point (the release). A shard's errors file is committed just before it. Whoever runs a shard (the local
engine, a Ray worker) calls the same :class:`ShardProcessor`, so engines cannot disagree.
"""

from __future__ import annotations

import hashlib
import json
import os
from itertools import islice
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from authorguard.batch.adapters import adapter_for
from authorguard.batch.config import AnonymizeConfig
from authorguard.batch.sources import Shard, SourceRecord, read_shard
from authorguard.data.io import atomic_write
from authorguard.exceptions import AuthorguardError


def errors_name(shard: Shard) -> str:
    return f"errors/part-{shard.index:05d}.jsonl"


def file_sha256(path: str | os.PathLike) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def shard_entry(shard: Shard, output_dir: Path) -> dict:
    """The manifest entry of a committed shard, read back from its files (used to adopt outputs committed
    by a run that died before it could record them)."""
    out = output_dir / shard.output_name
    errors_file = output_dir / errors_name(shard)
    n_errors = (
        sum(1 for line in errors_file.read_text(encoding="utf-8").splitlines() if line.strip())
        if errors_file.exists()
        else 0
    )
    n_out = pq.ParquetFile(out).metadata.num_rows
    return {
        **shard.to_dict(),
        "output": shard.output_name,
        "records_in": n_out + n_errors,
        "records_out": n_out,
        "records_error": n_errors,
        "sha256": file_sha256(out),
        "status": "done",
    }


class ShardProcessor:
    """Loads the method once; then anonymises whole shards."""

    def __init__(self, config: AnonymizeConfig) -> None:
        self.config = config
        self.adapter = adapter_for(config.method, config.method_params)
        self.output_dir = Path(config.output)

    def _prepare(self, records: list[SourceRecord]) -> tuple[list[str], list, list[dict]]:
        """(ids, prepared parts, errors) of a batch; a record that fails is isolated, the others go on."""
        ids = [r.id for r in records]
        try:
            return ids, [self.adapter.prepare([r.text for r in records])] if records else [], []
        except (AuthorguardError, ValueError) as batch_error:
            if len(records) == 1:
                return [], [], [{"id": ids[0], "reason": str(batch_error)}]
        kept, parts, errors = [], [], []
        for record in records:
            good_ids, good_parts, bad = self._prepare([record])
            kept += good_ids
            parts += good_parts
            errors += bad
        return kept, parts, errors

    def process(self, shard: Shard) -> dict:
        """Anonymise one shard and commit it; returns its manifest entry."""
        config = self.config
        out = self.output_dir / shard.output_name
        errors_file = self.output_dir / errors_name(shard)
        errors_file.parent.mkdir(parents=True, exist_ok=True)
        temporary = out.with_name(f".{out.name}.tmp")
        records_in = records_out = 0
        errors: list[dict] = []
        stream = read_shard(shard, config.text_field, config.id_field)
        ids: list[str] = []
        prepared: list = []
        while batch := list(islice(stream, config.batch_size)):
            records_in += len(batch)
            errors += [{"id": r.id, "reason": r.error} for r in batch if r.error is not None]
            batch_ids, parts, failed = self._prepare([r for r in batch if r.error is None])
            ids += batch_ids
            prepared += parts
            errors += failed
        rows = self.adapter.release(ids, prepared, config.seed)  # one pass over the mechanism for the shard
        del prepared
        records_out = len(rows)
        try:
            with pq.ParquetWriter(temporary, self.adapter.schema) as writer:
                for start in range(0, len(rows), config.batch_size):
                    writer.write_table(
                        pa.Table.from_pylist(rows[start : start + config.batch_size], schema=self.adapter.schema)
                    )
            with atomic_write(errors_file) as handle:
                for error in errors:
                    handle.write(
                        json.dumps({**error, "input": os.path.basename(shard.path)}, ensure_ascii=False) + "\n"
                    )
            os.replace(temporary, out)  # the commit point: from here on the shard is released
        finally:
            if temporary.exists():
                temporary.unlink()
        if records_in != records_out + len(errors):  # the exactly-once invariant, checked on every shard
            raise AuthorguardError(
                f"shard {shard.index}: {records_in} records in, {records_out} out, {len(errors)} errors"
            )
        return {
            **shard.to_dict(),
            "output": shard.output_name,
            "records_in": records_in,
            "records_out": records_out,
            "records_error": len(errors),
            "records_flagged": getattr(self.adapter, "records_flagged", 0),
            "records_withheld": getattr(self.adapter, "records_withheld", 0),
            "sha256": file_sha256(out),
            "status": "done",
        }
