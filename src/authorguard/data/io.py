"""Reading documents from JSONL, CSV and Parquet files, and writing results atomically.

Every reader returns exactly one record per input record, in input order, or raises an ``InputError``
naming the file, the line (or row) and the problem: a batch never silently drops or duplicates a document.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from authorguard.exceptions import InputError

FORMATS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


@dataclass(frozen=True)
class Records:
    """Documents read from a file: ``ids[i]`` is the id of ``texts[i]``.

    ``ids`` keep their type from the file (str or int); when the file has no id field at all they are the
    0-based record positions and ``generated_ids`` is true.
    """

    ids: list
    texts: list[str]
    generated_ids: bool = False
    fields: dict[str, list] = field(default_factory=dict)
    """Values of the requested ``extra_fields``, one list per field, aligned with ``texts``."""
    rows: list[dict] | None = None
    """With ``keep_rows``: each record as read (every field, values as the file typed them), aligned with ``texts``."""

    def __len__(self) -> int:
        return len(self.texts)


def file_format(path: str | os.PathLike, reading: bool = False) -> str:
    """``"jsonl"``, ``"csv"`` or ``"parquet"`` by ``path``'s extension; anything else is one line naming what is
    accepted (with ``reading``, also a .txt file or a folder of them)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        accepted = (
            ".jsonl, .csv, .parquet, a .txt file or a folder of .txt files" if reading else ".jsonl, .csv or .parquet"
        )
        raise InputError(f"{path}: unknown file type {suffix or '(none)'!r}; use {accepted}")
    return FORMATS[suffix]


def iter_jsonl(
    path: str | os.PathLike, offset: int = 0, first_line: int = 1
) -> Iterator[tuple[int, dict | None, str | None]]:
    """(line number, row, error) for every non-blank line of a JSONL file, from byte ``offset``.

    ``first_line`` is the number of the line at ``offset``. A line that is not UTF-8, not JSON or not an object
    gives ``row=None`` and the reason; callers decide whether that stops the read or is recorded.
    """
    with open(path, "rb") as handle:
        handle.seek(offset)
        for line_number, raw in enumerate(handle, start=first_line):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as error:
                yield line_number, None, f"line {line_number} is not valid UTF-8 (byte {error.start} of the line)"
                continue
            except json.JSONDecodeError as error:
                yield line_number, None, f"line {line_number} is not valid JSON ({error.msg})"
                continue
            if not isinstance(row, dict):
                yield line_number, None, f"line {line_number} is not a JSON object"
                continue
            yield line_number, row, None


def _jsonl_rows(path: Path) -> Iterator[tuple[str, dict]]:
    for line_number, row, error in iter_jsonl(path):
        if row is None:  # iter_jsonl gives no row exactly where it gives an error
            raise InputError(f"{path}: {error}")
        yield f"line {line_number}", row


def _csv_rows(path: Path) -> Iterator[tuple[str, dict]]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line_number = data.count(b"\n", 0, error.start) + 1
        raise InputError(f"{path}: line {line_number} is not valid UTF-8") from None
    csv.field_size_limit(1 << 30)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if reader.fieldnames is None:
        return
    for row in reader:
        if None in row:
            raise InputError(f"{path}: line {reader.line_num} has more fields than the header")
        yield f"line {reader.line_num}", row


def _parquet_rows(path: Path) -> Iterator[tuple[str, dict]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow raises several types for corrupt files
        raise InputError(f"{path}: not a readable Parquet file ({error})") from None
    for position, row in enumerate(table.to_pylist()):
        yield f"row {position}", row


def _text_file_rows(path: Path, text_field: str, id_field: str) -> Iterator[tuple[str, dict]]:
    """A plain-text file as one record, or a folder's ``.txt`` files (sorted by name) as one record each: the text
    the file's whole content, the id its file name."""
    # (a dotfile, such as macOS's "._post.txt", is no record)
    members = (
        sorted(p for p in path.iterdir() if p.suffix.lower() == ".txt" and p.is_file() and not p.name.startswith("."))
        if path.is_dir()
        else [path]
    )
    if path.is_dir() and not members:
        raise InputError(f"folder {path} holds no .txt files")
    for member in members:
        data = member.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise InputError(f"{member}: not valid UTF-8 (byte {error.start})") from None
        yield member.name, {id_field: member.name, text_field: text}


def read_records(
    path: str | os.PathLike,
    text_field: str = "text",
    id_field: str = "id",
    extra_fields: Sequence[str] = (),
    *,
    require_id: bool = False,
    keep_rows: bool = False,
) -> Records:
    """Read documents from a JSONL, CSV or Parquet file (by extension), a plain-text file (one record) or a folder
    of ``.txt`` files (one record each, in name order; the id is the file name).

    Raises ``InputError`` for: an unknown extension, a missing file, non-UTF-8 bytes, malformed lines, a
    record without ``text_field`` or with a non-string text, a record without ``id_field`` when others have
    one, duplicate ids, a record without one of ``extra_fields`` (their values are kept as strings, or None
    where the value is null or empty), a file with no records, and, with ``require_id`` (the caller named the id
    field), a file where no record has ``id_field`` (otherwise positions stand in for ids). ``keep_rows`` keeps every
    record whole in ``Records.rows``.
    """
    path = Path(path)
    if path.is_dir() or path.suffix.lower() == ".txt":
        if not path.exists():
            raise InputError(f"{path}: no such file")
        rows = _text_file_rows(path, text_field, id_field)
    else:
        kind = file_format(path, reading=True)
        if not path.is_file():
            raise InputError(f"{path}: no such file or folder")
        rows = {"jsonl": _jsonl_rows, "csv": _csv_rows, "parquet": _parquet_rows}[kind](path)
    ids: list = []
    texts: list[str] = []
    with_id = 0
    seen: set = set()
    extras: dict[str, list] = {name: [] for name in extra_fields}
    kept: list[dict] | None = [] if keep_rows else None
    for where, row in rows:
        if kept is not None:
            kept.append(row)
        if text_field not in row or row[text_field] is None:
            raise InputError(f"{path}: {where} has no {text_field!r} field")
        for name, values in extras.items():
            if name not in row:
                raise InputError(f"{path}: {where} has no {name!r} field")
            values.append(None if row[name] is None or row[name] == "" else str(row[name]))
        text = row[text_field]
        if not isinstance(text, str):
            raise InputError(f"{path}: {where}: field {text_field!r} must be a string, got {type(text).__name__}")
        identifier = row.get(id_field)
        if identifier is not None and identifier != "":
            with_id += 1
            if isinstance(identifier, (list, dict, float)):
                raise InputError(f"{path}: {where}: id {identifier!r} must be a string or an integer")
            if identifier in seen:
                raise InputError(f"{path}: {where}: duplicate id {identifier!r}")
            seen.add(identifier)
        elif with_id:
            raise InputError(f"{path}: {where} has no {id_field!r} field but earlier records do")
        ids.append(identifier)
        texts.append(text)
    if not texts:
        raise InputError(f"{path}: no records")
    if with_id == 0:
        if require_id:
            raise InputError(
                f"{path}: no record has the id field {id_field!r}; name the field that holds the ids, "
                f"or leave --id-field out to number the records by position"
            )
        return Records(list(range(len(texts))), texts, generated_ids=True, fields=extras, rows=kept)
    if with_id != len(texts):
        missing = next(i for i, value in enumerate(ids) if value is None or value == "")
        raise InputError(f"{path}: record {missing} has no {id_field!r} field but others do")
    return Records(ids, texts, fields=extras, rows=kept)


@contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8"):
    """Open a temporary file beside ``path``; on success rename it over ``path`` (readers never see a torn file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    try:
        with open(temporary, mode, encoding=None if "b" in mode else encoding) as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def write_jsonl(
    path: str | os.PathLike, rows: Iterator[dict] | list[dict], on_row: Callable[[], None] | None = None
) -> None:
    """Write one JSON object per line, atomically."""
    with atomic_write(path) as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False))
            out.write("\n")
            if on_row is not None:
                on_row()


def read_gzip_jsonl(path: str | os.PathLike, required: Sequence[str] = ()) -> list[dict]:
    """The records of a gzip-compressed JSON-lines file (blank lines skipped); a line that is not a JSON object
    with every ``required`` field is an ``InputError`` naming the line."""
    import gzip

    records = []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"{path}: line {line_number} is not JSON ({error.msg})") from None
            if not isinstance(record, dict):
                raise InputError(f"{path}: line {line_number} is not a JSON object")
            missing = [name for name in required if name not in record]
            if missing:
                raise InputError(f"{path}: line {line_number} has no field {missing[0]!r}")
            records.append(record)
    return records


def write_json(path: str | os.PathLike, obj: object) -> None:
    with atomic_write(path) as out:
        json.dump(obj, out, indent=2, ensure_ascii=False)
        out.write("\n")


def read_word_list(path: str | os.PathLike) -> list[str]:
    """A public vocabulary file: one word per line, UTF-8 (blank lines ignored)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"vocabulary file {str(path)!r} does not exist")
    try:
        words = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not valid UTF-8 (byte {error.start})") from None
    words = [w.strip() for w in words if w.strip()]
    if not words:
        raise InputError(f"{path}: the vocabulary file holds no word")
    return words


def write_records_file(path: str | os.PathLike, records: Sequence[dict]) -> None:
    """``records`` (dicts) in the format of ``path``'s extension (.jsonl, .csv, .parquet), written atomically; CSV
    columns are every key in first-seen order."""
    path = Path(path)
    kind = file_format(path)
    if kind == "jsonl":
        with atomic_write(path) as out:
            for record in records:
                out.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
    elif kind == "csv":
        import csv

        columns = list(dict.fromkeys(key for record in records for key in record))
        with atomic_write(path) as out:
            writer = csv.DictWriter(out, fieldnames=columns)
            writer.writeheader()
            writer.writerows(records)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        with atomic_write(path, mode="wb", encoding=None) as out:
            pq.write_table(pa.Table.from_pylist(list(records)), out)


class JsonlTexts(Sequence):
    """The ``text_field`` of a JSONL file's records, read from disk when asked for (``texts[i]``): a corpus larger
    than memory is read one record at a time. Built by :func:`read_jsonl_fields`."""

    def __init__(self, path: Path, offsets: list[int], text_field: str) -> None:
        self.path, self.offsets, self.text_field = Path(path), offsets, text_field

    def __len__(self) -> int:
        return len(self.offsets)

    def subset(self, positions: Sequence[int]) -> JsonlTexts:
        """The texts at ``positions``, still read on demand (picklable: a worker reads them itself)."""
        return JsonlTexts(self.path, [self.offsets[i] for i in positions], self.text_field)

    def __getitem__(self, index):  # one record (slices are not needed)
        with open(self.path, "rb") as handle:
            handle.seek(self.offsets[index])
            return json.loads(handle.readline().decode("utf-8"))[self.text_field]


def texts_at(texts: Sequence[str], positions: Sequence[int]) -> Sequence[str]:
    """``texts`` at ``positions``: still read on demand (by whoever reads them, a worker included) when ``texts``
    is a :class:`JsonlTexts`, else a list."""
    if isinstance(texts, JsonlTexts):
        return texts.subset([int(i) for i in positions])
    return [texts[int(i)] for i in positions]


def read_jsonl_fields(
    path: str | os.PathLike, text_field: str, id_field: str, fields: Sequence[str]
) -> tuple[list, dict[str, list], JsonlTexts]:
    """One pass over a JSONL file keeping, per record, its id (its position when the file has none), the values of
    ``fields`` (as strings; None when null or empty) and where its line starts — not its text, which the returned
    :class:`JsonlTexts` reads on demand. The same errors as :func:`read_records`, one line each."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    ids: list = []
    values: dict[str, list] = {name: [] for name in fields}
    offsets: list[int] = []
    with open(path, "rb") as handle:
        position = 0
        for line_number, raw in enumerate(handle, start=1):
            start, position = position, position + len(raw)
            if line_number == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a byte-order mark, as CSV and .txt allow
                raw, start = raw[3:], start + 3
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                raise InputError(f"{path}: line {line_number} is not valid UTF-8 JSON") from None
            if not isinstance(row, dict):
                raise InputError(f"{path}: line {line_number} is not a JSON object")
            if not isinstance(row.get(text_field), str):
                raise InputError(f"{path}: line {line_number} has no {text_field!r} field")
            for name in fields:
                if name not in row:
                    raise InputError(f"{path}: line {line_number} has no {name!r} field")
                value = row[name]
                values[name].append(None if value is None or value == "" else str(value))
            ids.append(row.get(id_field, len(offsets)))
            offsets.append(start)
    if not offsets:
        raise InputError(f"{path}: no records")
    return ids, values, JsonlTexts(path, offsets, text_field)
