"""Batch anonymisation with the local engine: exactly once, errors accounted for, resumable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from authorguard.batch.config import AnonymizeConfig, load_method_params
from authorguard.batch.runner import read_output, run_anonymize
from authorguard.exceptions import InputError


def _config(input, output, method_config, **options):
    return AnonymizeConfig(
        method="syntf", input=str(input), output=str(output), method_params=load_method_params(method_config), **options
    )


def test_round_trip_counts_and_manifest(tmp_path, jsonl_input, messages, method_config):
    manifest = run_anonymize(
        _config(jsonl_input, tmp_path / "out", method_config, seed=918273, shard_size=150, batch_size=64)
    )
    assert manifest["status"] == "complete" and len(manifest["shards"]) == 3
    assert manifest["records_in"] == manifest["records_out"] == len(messages) and manifest["records_error"] == 0
    rows = read_output(tmp_path / "out")
    assert [r["id"] for r in rows] == [i for i, _ in messages]  # each record once, in input order
    assert all(sum(r["counts"]) == 20 and len(r["terms"]) == len(r["counts"]) for r in rows)
    for entry in manifest["shards"].values():
        assert entry["status"] == "done" and len(entry["sha256"]) == 64 and entry["releases"] == 1
    privacy = json.loads((tmp_path / "out" / "privacy.json").read_text())
    assert privacy["releases_per_record"] == 1 and privacy["per_release"]["vocabulary_source"] == "public"
    assert privacy["composed_tight_epsilon"] == privacy["per_release"]["tight_epsilon"]
    for written in (tmp_path / "out").rglob("*.json*"):
        assert "918273" not in written.read_text()  # the seed never reaches the released folder


def test_output_does_not_depend_on_shards_or_batches(tmp_path, jsonl_input, method_config):
    run_anonymize(_config(jsonl_input, tmp_path / "a", method_config, seed=3, shard_size=400, batch_size=400))
    run_anonymize(_config(jsonl_input, tmp_path / "b", method_config, seed=3, shard_size=37, batch_size=5))
    run_anonymize(_config(jsonl_input, tmp_path / "c", method_config, seed=4, shard_size=400))
    assert read_output(tmp_path / "a") == read_output(tmp_path / "b")
    assert read_output(tmp_path / "a") != read_output(tmp_path / "c")


def test_bad_records_go_to_errors_and_are_counted(tmp_path, method_config):
    big = "hockey game " * 900_000  # a 10 MB document
    lines = [
        b'{"id": "ok-1", "text": "the cat and the dog"}',
        b'{"id": "latin", "text": "caf\xe9 hockey"}',
        b'{"id": "broken", "text": ',
        b'["not an object"]',
        b'{"id": "no-text"}',
        b'{"id": "number", "text": 42}',
        b'{"id": "ok-1", "text": "duplicate id"}',
        b'{"id": "empty", "text": ""}',
        json.dumps({"id": "big", "text": big}).encode(),
        b'{"text": "no id at all: kept, with a positional id"}',
    ]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    manifest = run_anonymize(_config(path, tmp_path / "out", method_config, seed=0, shard_size=10, batch_size=3))
    assert manifest["records_in"] == 10 == manifest["records_out"] + manifest["records_error"]
    errors = [json.loads(line) for line in (tmp_path / "out" / "errors.jsonl").read_text().splitlines()]
    reasons = {e["id"]: e["reason"] for e in errors}
    assert reasons == {
        "in.jsonl#1": "line 2 is not valid UTF-8 (byte 28 of the line)",
        "in.jsonl#2": "line 3 is not valid JSON (Expecting value)",
        "in.jsonl#3": "line 4 is not a JSON object",
        "no-text": "no 'text' field",
        "number": "field 'text' is a int, not a string",
        "ok-1": "duplicate id 'ok-1' in in.jsonl",
    }
    released = {r["id"]: r for r in read_output(tmp_path / "out")}
    assert set(released) == {"ok-1", "empty", "big", "in.jsonl#9"}
    assert sum(released["big"]["counts"]) == 20 and sum(released["empty"]["counts"]) == 20


def test_empty_file_gives_an_empty_complete_run(tmp_path, method_config):
    (tmp_path / "empty.jsonl").write_bytes(b"")
    manifest = run_anonymize(_config(tmp_path / "empty.jsonl", tmp_path / "out", method_config, seed=0))
    assert manifest["status"] == "complete" and manifest["records_in"] == 0
    assert pq.read_table(tmp_path / "out" / "part-00000.parquet").num_rows == 0


def test_directory_of_csv_and_parquet_shards(tmp_path, messages, method_config):
    folder = tmp_path / "in"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([{"id": i, "text": t} for i, t in messages[:50]]), folder / "a.parquet")
    import csv

    with open(folder / "b.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text"])
        writer.writerows(messages[50:120])
    manifest = run_anonymize(_config(folder, tmp_path / "out", method_config, seed=0, shard_size=30))
    assert manifest["records_out"] == 120 and len(manifest["shards"]) == 2 + 3
    assert [r["id"] for r in read_output(tmp_path / "out")] == [i for i, _ in messages[:120]]


def test_missing_column_fails_at_once_naming_it(tmp_path, method_config):
    pq.write_table(pa.Table.from_pylist([{"id": "a", "body": "x"}]), tmp_path / "in.parquet")
    with pytest.raises(InputError, match="in.parquet: no column 'text' \\(columns: id, body\\)"):
        run_anonymize(_config(tmp_path / "in.parquet", tmp_path / "out", method_config))
    assert not (tmp_path / "out").exists()


def test_rerun_needs_resume_or_force_and_force_composes_the_loss(tmp_path, jsonl_input, method_config):
    first = run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=1, shard_size=200))
    with pytest.raises(
        InputError, match="holds a run already; --resume completes it, --force releases every record again"
    ):
        run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=1, shard_size=200))
    resumed = run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=1, shard_size=200, resume=True))
    assert resumed["shards"] == first["shards"] and len(resumed["releases"]) == 1  # nothing re-released
    forced = run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=2, shard_size=200, force=True))
    assert len(forced["releases"]) == 2 and all(e["releases"] == 2 for e in forced["shards"].values())
    privacy = json.loads((tmp_path / "out" / "privacy.json").read_text())
    assert privacy["releases_per_record"] == 2
    assert privacy["composed_tight_epsilon"] == pytest.approx(2 * privacy["per_release"]["tight_epsilon"])


def test_resume_refuses_a_changed_input_or_plan(tmp_path, jsonl_input, method_config):
    run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=1, shard_size=200))
    with pytest.raises(
        InputError, match="the input or the options changed since the run began \\(shard_size, shards\\)"
    ):
        run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=1, shard_size=100, resume=True))
    with open(jsonl_input, "a", encoding="utf-8") as handle:
        handle.write('{"id": "late", "text": "added later"}\n')
    with pytest.raises(InputError, match="changed since the run began \\(inputs, shards\\)"):
        run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=1, shard_size=200, resume=True))


def test_resume_refuses_another_seed_without_storing_the_seed(tmp_path, jsonl_input, method_config):
    from authorguard.batch.runner import seed_fingerprint

    run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=123457, shard_size=200))
    manifest = (tmp_path / "out" / "manifest.json").read_text(encoding="utf-8")
    assert "123457" not in manifest and seed_fingerprint(123457, [jsonl_input]) in manifest
    # the fingerprint is keyed by the input: the same seed on another input gives another one
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": 1, "text": "another archive"}\n', encoding="utf-8")
    assert seed_fingerprint(123457, [other]) != seed_fingerprint(123457, [jsonl_input])
    with pytest.raises(InputError, match="changed since the run began \\(seed\\)"):
        run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=123458, shard_size=200, resume=True))
    with pytest.raises(InputError, match="changed since the run began \\(randomness, seed\\)"):
        run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, shard_size=200, resume=True))
    run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=123457, shard_size=200, resume=True))
    # --force releases everything again, so a new seed mixes nothing; a resume then checks the new one
    run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=99, shard_size=200, force=True))
    with pytest.raises(InputError, match="\\(seed\\)"):
        run_anonymize(_config(jsonl_input, tmp_path / "out", method_config, seed=123457, shard_size=200, resume=True))


def test_configuration_errors(tmp_path, jsonl_input, method_config):
    with pytest.raises(InputError, match="unknown parameter 'epsilom' for method 'syntf'"):
        run_anonymize(
            AnonymizeConfig(
                method="syntf", input=str(jsonl_input), output=str(tmp_path / "o1"), method_params={"epsilom": 1}
            )
        )
    with pytest.raises(InputError, match="learns from the private input"):
        run_anonymize(
            AnonymizeConfig(
                method="syntf", input=str(jsonl_input), output=str(tmp_path / "o2"), method_params={"vocabulary": None}
            )
        )
    with pytest.raises(Exception, match="unknown method 'syntff'; did you mean 'syntf'"):
        run_anonymize(AnonymizeConfig(method="syntff", input=str(jsonl_input), output=str(tmp_path / "o3")))
    (tmp_path / "occupied").mkdir()
    (tmp_path / "occupied" / "x").write_text("x")
    with pytest.raises(InputError, match="is not empty and holds no manifest.json"):
        run_anonymize(_config(jsonl_input, tmp_path / "occupied", method_config))
    with pytest.raises(InputError, match="--workers applies to --engine ray"):
        _config(jsonl_input, tmp_path / "o4", method_config, workers=2)
    with pytest.raises(InputError, match="'batch_size' parameter of anonymize must be an int"):
        _config(jsonl_input, tmp_path / "o5", method_config, batch_size=0)
    bad = tmp_path / "bad.toml"
    bad.write_text("epsilon = = 3")
    with pytest.raises(InputError, match="bad.toml: not a valid TOML file"):
        load_method_params(bad)


def test_kill_9_then_resume_releases_each_record_exactly_once(tmp_path, messages, method_config):
    path = tmp_path / "in.jsonl"
    records = messages * 8  # 3,200 records in 320 shards of 10: the run takes long enough to be killed mid-way
    path.write_text(
        "".join(json.dumps({"id": f"{n}:{i}", "text": t}) + "\n" for n, (i, t) in enumerate(records)), encoding="utf-8"
    )
    output = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "authorguard.cli.app",
        "anonymize",
        str(path),
        str(output),
        "--method",
        "syntf",
        "--config",
        str(method_config),
        "--seed",
        "9",
        "--shard-size",
        "10",
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    manifest_path = output / "manifest.json"
    deadline = time.time() + 120
    done = 0
    while time.time() < deadline and process.poll() is None:
        if manifest_path.exists():
            try:
                done = sum(e["status"] == "done" for e in json.loads(manifest_path.read_text())["shards"].values())
            except (json.JSONDecodeError, OSError):
                done = 0
            if done >= 20:
                break
        time.sleep(0.005)
    assert process.poll() is None, "the run ended before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    partial = json.loads(manifest_path.read_text())
    assert partial["status"] == "partial" and 20 <= partial["records_out"] < len(records)

    subprocess.run(command + ["--resume"], check=True, capture_output=True)
    resumed = json.loads(manifest_path.read_text())
    assert resumed["status"] == "complete" and resumed["records_out"] == len(records)
    assert all(e["releases"] == 1 for e in resumed["shards"].values())  # no shard released twice
    for key, entry in partial["shards"].items():
        if entry["status"] == "done":
            assert resumed["shards"][key]["sha256"] == entry["sha256"]  # finished shards were not redone

    subprocess.run([*command[:5], str(tmp_path / "uninterrupted"), *command[6:]], check=True, capture_output=True)
    assert read_output(output) == read_output(tmp_path / "uninterrupted")
    assert not list(output.glob(".*.tmp")) and not list((output / "errors").glob(".*.tmp"))


def _wait_for(predicate, process, seconds=120.0) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline and process.poll() is None:
        if predicate():
            return True
        time.sleep(0.002)
    return False


def _done_shards(manifest_path) -> int:
    try:
        return sum(e["status"] == "done" for e in json.loads(manifest_path.read_text())["shards"].values())
    except (json.JSONDecodeError, OSError):
        return 0


@pytest.mark.parametrize("moment", ["before-manifest", "before-first-commit", "between-shards"])
def test_kill_at_any_moment_then_resume_equals_an_uninterrupted_run(tmp_path, messages, method_config, moment):
    path = tmp_path / "in.jsonl"
    records = messages * 4  # 1,600 records
    path.write_text(
        "".join(json.dumps({"id": f"{n}:{i}", "text": t}) + "\n" for n, (i, t) in enumerate(records)), encoding="utf-8"
    )
    output = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "authorguard.cli.app",
        "anonymize",
        str(path),
        str(output),
        "--method",
        "syntf",
        "--config",
        str(method_config),
        "--seed",
        "5",
        "--shard-size",
        "100" if moment == "between-shards" else "800",
    ]
    manifest_path = output / "manifest.json"
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if moment == "before-manifest":
        time.sleep(0.2)  # the interpreter is still importing: nothing is written yet
        assert not manifest_path.exists()
    elif moment == "before-first-commit":
        assert _wait_for(manifest_path.exists, process), "no manifest was written"
    else:
        assert _wait_for(lambda: _done_shards(manifest_path) >= 1, process), "no shard was committed"
    assert process.poll() is None, "the run ended before it could be killed"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    committed = sorted(p.name for p in output.glob("part-*.parquet")) if output.exists() else []
    if moment == "before-first-commit":
        assert committed == []  # killed while loading the method: the manifest came first
    if moment == "between-shards":
        assert 1 <= len(committed) < 16

    subprocess.run(command + ["--resume"], check=True, capture_output=True)
    resumed = json.loads(manifest_path.read_text())
    assert resumed["status"] == "complete" and resumed["records_out"] == len(records)
    assert all(e["releases"] == 1 for e in resumed["shards"].values())
    released = read_output(output)
    assert sorted(r["id"] for r in released) == sorted(f"{n}:{i}" for n, (i, _) in enumerate(records))  # each once
    subprocess.run([*command[:5], str(tmp_path / "uninterrupted"), *command[6:]], check=True, capture_output=True)
    assert released == read_output(tmp_path / "uninterrupted")


def test_resume_on_an_absent_output_starts_the_run(tmp_path, jsonl_input, method_config):
    manifest = run_anonymize(_config(jsonl_input, tmp_path / "new", method_config, seed=1, shard_size=200, resume=True))
    assert manifest["status"] == "complete" and manifest["records_out"] == 400


def test_a_run_that_died_before_any_commit_can_restart_with_other_options(tmp_path, jsonl_input, method_config):
    output = tmp_path / "out"
    run_anonymize(_config(jsonl_input, output, method_config, seed=1, shard_size=200))
    # simulate a run killed after writing its manifest and before committing a shard
    manifest = json.loads((output / "manifest.json").read_text())
    for entry in manifest["shards"].values():
        entry.update(status="pending", releases=0)
    for part in output.glob("part-*.parquet"):
        part.unlink()
    (output / "manifest.json").write_text(json.dumps(manifest))
    (output / "privacy.json").unlink()
    restarted = run_anonymize(_config(jsonl_input, output, method_config, seed=1, shard_size=100))
    assert restarted["status"] == "complete" and len(restarted["shards"]) == 4 and len(restarted["releases"]) == 1


def test_a_text_method_writes_rewritten_text_exactly_once(tmp_path, jsonl_input, messages):
    def run(folder, **options):
        return run_anonymize(
            AnonymizeConfig(
                method="dropout",
                input=str(jsonl_input),
                output=str(tmp_path / folder),
                method_params={"rate": 0.4},
                **options,
            )
        )

    manifest = run("a", seed=11, shard_size=150, batch_size=64)
    assert manifest["records_in"] == manifest["records_out"] == len(messages)
    rows = read_output(tmp_path / "a")
    assert [r["id"] for r in rows] == [i for i, _ in messages]
    assert set(rows[0]) == {"id", "text", "release_status", "release_reason"}  # each record says what became of it
    assert {r["release_status"] for r in rows} <= {"rewritten", "kept"} and manifest["records_withheld"] == 0
    originals = dict(messages)
    shorter = [
        len(r["text"].split()) < len(originals[r["id"]].split()) for r in rows if len(originals[r["id"]].split()) > 20
    ]
    assert sum(shorter) > 0.95 * len(shorter)  # dropout at 0.4 shortens (almost) every long message
    run("b", seed=11, shard_size=33, batch_size=7)
    assert read_output(tmp_path / "b") == rows  # per-record randomness: sharding does not matter
    privacy = json.loads((tmp_path / "a" / "privacy.json").read_text())
    assert privacy["per_release"]["formal_guarantee"] is None and privacy["composed_tight_epsilon"] is None
    with pytest.raises(InputError, match="unknown parameter 'ratee'"):
        run_anonymize(
            AnonymizeConfig(
                method="dropout", input=str(jsonl_input), output=str(tmp_path / "c"), method_params={"ratee": 1}
            )
        )
