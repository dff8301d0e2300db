"""Input discovery, shard planning and streaming record readers with per-record errors.

An input is a JSONL, CSV or Parquet file, or a directory of such files (taken in name order). Each file is cut
into shards of ``shard_size`` consecutive records; a shard is the unit of work, of atomic output and of
resumption. Reading a shard streams its records: memory does not grow with the input.

A record that cannot be used (bytes that are not UTF-8, a line that is not JSON, no text, a duplicate id) is
yielded as an error with its reason, never dropped: records in = records out + records in errors.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from authorguard.data.io import FORMATS, iter_jsonl
from authorguard.exceptions import InputError


@dataclass(frozen=True)
class Shard:
    """Records [start, stop) of one input file.

    For JSONL, ``offset`` is the byte offset and ``line`` the 1-based line number of record ``start``, so that a
    worker seeks straight to its shard instead of reading the file from the top (which would make a run
    quadratic in the file size). Parquet shards are found through the row-group metadata; CSV files are read
    from the top (quoted fields may span lines, so there is no safe offset).
    """

    index: int
    path: str
    start: int
    stop: int
    offset: int = 0
    line: int = 1

    @property
    def output_name(self) -> str:
        return f"part-{self.index:05d}.parquet"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class SourceRecord:
    """One input record: ``text`` is None when ``error`` says why it cannot be used."""

    id: str
    text: str | None
    error: str | None = None


def input_files(source: str | os.PathLike) -> list[Path]:
    """The files of an input: the file itself, or the supported files of a directory in name order."""
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in FORMATS)
        if not files:
            raise InputError(f"{path}: directory holds no .jsonl, .csv or .parquet file")
        return files
    if not path.is_file():
        raise InputError(f"{path}: no such file or directory")
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"{path}: unknown file type {path.suffix or '(none)'!r}; use .jsonl, .csv or .parquet")
    return [path]


def _kind(path: Path) -> str:
    return FORMATS[path.suffix.lower()]


def _csv_rows(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, row) of a CSV file; undecodable bytes are kept as surrogates, so the row is reported
    as an error instead of the whole file failing."""
    csv.field_size_limit(2**31 - 1)
    with open(path, encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        reader = csv.DictReader(handle)
        try:
            for row in reader:
                yield reader.line_num, row
        except csv.Error as error:
            raise InputError(f"{path}: not a readable CSV file ({error})") from None


def _csv_header(path: Path) -> Sequence[str] | None:
    with open(path, encoding="utf-8-sig", errors="surrogateescape", newline="") as handle:
        return csv.DictReader(handle).fieldnames


def field_in_first_record(path: Path, name: str) -> bool:
    """Whether ``name`` is a field of ``path``: a CSV header column, a Parquet column, or a key of the first JSONL
    record that parses (a field that the first record lacks is taken as absent from the file)."""
    kind = _kind(path)
    if kind == "csv":
        return name in (_csv_header(path) or [])
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return name in pq.read_schema(path).names
        except Exception as error:  # pyarrow raises several types for corrupt files
            raise InputError(f"{path}: not a readable Parquet file ({error})") from None
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                return isinstance(row, dict) and name in row
    return False


def _jsonl_starts(path: Path, shard_size: int) -> tuple[int, list[tuple[int, int]]]:
    """(number of records, [(byte offset, line number) of records 0, shard_size, 2 * shard_size, ...])."""
    starts: list[tuple[int, int]] = []
    count = offset = 0
    with open(path, "rb") as handle:
        for line_number, raw in enumerate(handle, start=1):
            if raw.strip():
                if count % shard_size == 0:
                    starts.append((offset, line_number))
                count += 1
            offset += len(raw)
    return count, starts


def _count_records(path: Path, text_field: str) -> int:
    """Number of records of a CSV or Parquet file; checks that it has ``text_field``."""
    if _kind(path) == "csv":
        header = _csv_header(path)
        if header is None:
            return 0
        if text_field not in header:
            raise InputError(f"{path}: no column {text_field!r} (columns: {', '.join(header)})")
        return sum(1 for _ in _csv_rows(path))
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises several types for corrupt files
        raise InputError(f"{path}: not a readable Parquet file ({error})") from None
    if text_field not in parquet.schema_arrow.names:
        raise InputError(f"{path}: no column {text_field!r} (columns: {', '.join(parquet.schema_arrow.names)})")
    return parquet.metadata.num_rows


def plan_shards(files: list[Path], shard_size: int, text_field: str) -> list[Shard]:
    """Cut every file into shards of ``shard_size`` records (an empty file gives one empty shard)."""
    shards: list[Shard] = []
    for path in files:
        if _kind(path) == "jsonl":
            total, starts = _jsonl_starts(path, shard_size)
        else:
            total, starts = _count_records(path, text_field), []
        for number, start in enumerate(range(0, max(total, 1), shard_size)):
            offset, line = starts[number] if number < len(starts) else (0, 1)
            shards.append(Shard(len(shards), str(path), start, min(start + shard_size, total), offset, line))
    return shards


def _raw_rows(shard: Shard) -> Iterator[tuple[int, dict | None, str | None]]:
    """(position, row, error) for the records of a shard."""
    path, start, stop = Path(shard.path), shard.start, shard.stop
    kind = _kind(path)
    if kind == "jsonl":
        for position, (_, row, error) in enumerate(iter_jsonl(path, shard.offset, shard.line), start=start):
            if position >= stop:
                return
            yield position, row, error
    elif kind == "csv":
        for position, (line_number, row) in enumerate(_csv_rows(path)):
            if position < start:
                continue
            if position >= stop:
                return
            bad = next((k for k, v in row.items() if isinstance(v, str) and _has_surrogates(v)), None)
            if bad is not None:
                yield position, None, f"line {line_number}: field {bad!r} is not valid UTF-8"
            elif None in row:
                yield position, None, f"line {line_number} has more fields than the header"
            else:
                yield position, row, None
    else:
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(path)
        first = 0
        for group in range(parquet.num_row_groups):  # only the row groups that overlap the shard are read
            size = parquet.metadata.row_group(group).num_rows
            if first < stop and first + size > start:
                for position, row in enumerate(parquet.read_row_group(group).to_pylist(), start=first):
                    if start <= position < stop:
                        yield position, row, None
            first += size


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def read_shard(shard: Shard, text_field: str, id_field: str) -> Iterator[SourceRecord]:
    """Stream the records of a shard; every input record yields exactly one :class:`SourceRecord`.

    A record without an id gets ``<file name>#<position>`` (deterministic, so resumed runs agree).
    """
    path = Path(shard.path)
    seen: set[str] = set()
    for position, row, error in _raw_rows(shard):
        fallback_id = f"{path.name}#{position}"
        if row is None:  # _raw_rows gives no row exactly where it gives an error
            yield SourceRecord(fallback_id, None, error)
            continue
        raw_id = row.get(id_field)
        identifier = fallback_id if raw_id is None or raw_id == "" else str(raw_id)
        text = row.get(text_field)
        if identifier in seen:
            yield SourceRecord(identifier, None, f"duplicate id {identifier!r} in {path.name}")
            continue
        seen.add(identifier)
        if text is None:
            yield SourceRecord(identifier, None, f"no {text_field!r} field")
        elif not isinstance(text, str):
            yield SourceRecord(identifier, None, f"field {text_field!r} is a {type(text).__name__}, not a string")
        else:
            yield SourceRecord(identifier, text)
