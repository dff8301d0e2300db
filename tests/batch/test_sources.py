"""Shard planning and streaming: seeking into JSONL, row groups of Parquet, one record out per record in."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from authorguard.batch.sources import input_files, plan_shards, read_shard
from authorguard.exceptions import InputError


def test_jsonl_shards_seek_to_their_records_and_keep_line_numbers(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(
        b'{"id": "a", "text": "1"}\n\n{"id": "b", "text": "2"}\n{"id": "c", "text": "3"}\n\n\n'
        b'{"id": "d", "text": "caf\xe9"}\n{"id": "e", "text": "5"}\n'
    )
    shards = plan_shards([path], 2, "text")
    assert [(s.start, s.stop, s.line) for s in shards] == [(0, 2, 1), (2, 4, 4), (4, 5, 8)]
    records = [r for shard in shards for r in read_shard(shard, "text", "id")]
    assert [r.id for r in records] == ["a", "b", "c", "in.jsonl#3", "e"]
    assert records[3].error == "line 7 is not valid UTF-8 (byte 24 of the line)"


def test_parquet_shards_across_row_groups(tmp_path):
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist([{"id": str(i), "text": f"t{i}"} for i in range(23)]), path, row_group_size=5)
    shards = plan_shards([path], 7, "text")
    assert [(s.start, s.stop) for s in shards] == [(0, 7), (7, 14), (14, 21), (21, 23)]
    ids = [r.id for shard in shards for r in read_shard(shard, "text", "id")]
    assert ids == [str(i) for i in range(23)]


def test_csv_with_quoted_newlines_and_bad_bytes(tmp_path):
    path = tmp_path / "in.csv"
    path.write_bytes(b'id,text\n1,"two\nlines"\n2,caf\xe9\n3,ok\n')
    shards = plan_shards([path], 2, "text")
    records = [r for shard in shards for r in read_shard(shard, "text", "id")]
    assert [(r.id, r.text) for r in records] == [("1", "two\nlines"), ("in.csv#1", None), ("3", "ok")]
    assert records[1].error == "line 4: field 'text' is not valid UTF-8"


def test_input_discovery_errors(tmp_path):
    with pytest.raises(InputError, match="directory holds no .jsonl, .csv or .parquet file"):
        input_files(tmp_path)
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(InputError, match="unknown file type '.txt'"):
        input_files(tmp_path / "notes.txt")
    (tmp_path / "b.jsonl").write_text("")
    (tmp_path / "a.csv").write_text("id,text\n")
    assert [p.name for p in input_files(tmp_path)] == ["a.csv", "b.jsonl"]
