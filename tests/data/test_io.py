"""Reading records from JSONL, CSV and Parquet: one record out per record in, or a one-line error."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from authorguard.data.io import read_records, write_jsonl
from authorguard.exceptions import InputError

ROWS = [
    {"id": "a", "text": 'first, with "quotes" and\nnewline'},
    {"id": "b", "text": ""},
    {"id": "c", "text": "café ünïcode"},
]


def _write(path, rows):
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".csv":
        import csv

        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_round_trip_keeps_order_ids_and_text(tmp_path, suffix):
    records = read_records(_write(tmp_path / f"in{suffix}", ROWS))
    assert records.ids == ["a", "b", "c"] and records.texts == [r["text"] for r in ROWS]
    assert not records.generated_ids


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_missing_id_field_everywhere_gives_positions(tmp_path, suffix):
    records = read_records(_write(tmp_path / f"in{suffix}", [{"body": "x"}, {"body": "y"}]), text_field="body")
    assert records.ids == [0, 1] and records.generated_ids


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_missing_text_column_is_named(tmp_path, suffix):
    with pytest.raises(InputError, match=r"in\.\w+: (line [12]|row 0) has no 'text' field"):
        read_records(_write(tmp_path / f"in{suffix}", [{"id": "a", "body": "x"}]))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"id": 1, "text": "ok"}\n{"id": 2, "text": "caf\xe9"}\n', "line 2 is not valid UTF-8"),
        (b'{"id": 1, "text": "ok"}\n{"id": 2, "text": \n', "line 2 is not valid JSON"),
        (b'["not", "an", "object"]\n', "line 1 is not a JSON object"),
        (b'{"id": 1, "text": "ok"}\n{"id": 1, "text": "again"}\n', "line 2: duplicate id 1"),
        (b'{"id": 1, "text": "ok"}\n{"text": "no id"}\n', "line 2 has no 'id' field but earlier records do"),
        (b'{"text": "no id"}\n{"id": 1, "text": "ok"}\n', "record 0 has no 'id' field but others do"),
        (b'{"id": 1, "text": 42}\n', "field 'text' must be a string, got int"),
        (b'{"id": 1, "text": null}\n', "line 1 has no 'text' field"),
        (b"", "no records"),
        (b"\n\n", "no records"),
    ],
)
def test_bad_jsonl_input_is_one_clear_line(tmp_path, content, message):
    path = tmp_path / "in.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_records(path)


def test_bad_csv_and_parquet_and_paths(tmp_path):
    (tmp_path / "latin.csv").write_bytes(b"id,text\n1,ok\n2,caf\xe9\n")
    with pytest.raises(InputError, match="line 3 is not valid UTF-8"):
        read_records(tmp_path / "latin.csv")
    (tmp_path / "corrupt.parquet").write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        read_records(tmp_path / "corrupt.parquet")
    with pytest.raises(InputError, match="unknown file type '.docx'"):
        read_records(tmp_path / "in.docx")
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "in.txt")
    with pytest.raises(InputError, match="no such file"):
        read_records(tmp_path / "missing.jsonl")


def test_write_jsonl_is_atomic(tmp_path):
    path = tmp_path / "out.jsonl"
    write_jsonl(path, [{"id": 1}])

    def failing_rows():
        yield {"id": 2}
        raise RuntimeError("crash mid-write")

    with pytest.raises(RuntimeError):
        write_jsonl(path, failing_rows())
    assert path.read_text() == '{"id": 1}\n'  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]  # no temporary left behind


def test_plain_text_files_and_folders_of_them_are_one_record_a_file_named_by_the_file(tmp_path):
    folder = tmp_path / "me"
    folder.mkdir()
    (folder / "b.txt").write_text("Second post.\n", encoding="utf-8")
    (folder / "a.txt").write_text("First post,\ntwo lines.", encoding="utf-8")
    (folder / "notes.md").write_text("not a record", encoding="utf-8")
    (folder / "._a.txt").write_bytes(b"\x00\x05\x16\x07 resource fork")  # macOS's: no record
    records = read_records(folder)
    assert (records.ids, records.texts) == (["a.txt", "b.txt"], ["First post,\ntwo lines.", "Second post.\n"])
    one = read_records(folder / "b.txt", keep_rows=True)
    assert (one.ids, one.texts, one.rows) == (
        ["b.txt"],
        ["Second post.\n"],
        [{"id": "b.txt", "text": "Second post.\n"}],
    )
    (folder / "c.txt").write_bytes(b"caf\xe9")
    with pytest.raises(InputError, match=r"c.txt: not valid UTF-8 \(byte 3\)"):
        read_records(folder)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="holds no .txt files"):
        read_records(empty)


def test_jsonl_fields_are_read_in_one_pass_and_each_text_again_on_demand(tmp_path):
    from authorguard.data.io import read_jsonl_fields

    path = tmp_path / "posts.jsonl"
    rows = [{"id": f"p{i}", "text": f"post {i} é\nline", "who": f"a{i % 2}", "tag": ["x", ""][i % 2]} for i in range(5)]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    ids, fields, texts = read_jsonl_fields(path, "text", "id", ("who", "tag"))
    assert ids == [r["id"] for r in rows] and fields["who"] == [r["who"] for r in rows]
    assert fields["tag"] == ["x", None, "x", None, "x"]  # an empty value reads as missing, as read_records does
    assert len(texts) == 5 and [texts[i] for i in (4, 0, 2)] == [rows[i]["text"] for i in (4, 0, 2)]
    (tmp_path / "bom.jsonl").write_bytes(b'\xef\xbb\xbf{"text": "first", "who": "x"}\n{"text": "second", "who": "y"}\n')
    _, _, marked = read_jsonl_fields(tmp_path / "bom.jsonl", "text", "id", ("who",))
    assert [marked[0], marked[1]] == ["first", "second"]
    (tmp_path / "bad.jsonl").write_text('{"text": "a", "who": "x"}\n{"text": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 2 has no 'who' field"):
        read_jsonl_fields(tmp_path / "bad.jsonl", "text", "id", ("who",))
    (tmp_path / "latin.jsonl").write_bytes(b'{"text": "caf\xe9", "who": "x"}\n')
    with pytest.raises(InputError, match="line 1 is not valid UTF-8 JSON"):
        read_jsonl_fields(tmp_path / "latin.jsonl", "text", "id", ("who",))
