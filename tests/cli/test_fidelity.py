"""``authorguard fidelity`` and the fidelity fields of ``authorguard obfuscate``."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from authorguard.cli.app import app

runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_fidelity_scores_every_pair_and_keeps_every_field(tmp_path):
    pairs = [
        {"src": "The dog bit the man.", "dst": "The man bit the dog.", "tool": "x"},
        {"src": "I like tea.", "dst": "I like tea.", "tool": "y"},
        {"src": "We met in Paris.", "dst": None, "tool": "z"},
    ]
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    result = _run(
        "fidelity",
        source,
        "--input-field",
        "src",
        "--output-field",
        "dst",
        "-o",
        tmp_path / "scored.jsonl",
        "--meter",
        "rules",
    )
    assert result.exit_code == 0, result.output
    rows = _jsonl(tmp_path / "scored.jsonl")
    assert [r["tool"] for r in rows] == ["x", "y", "z"] and [r["dst"] for r in rows] == [p["dst"] for p in pairs]
    assert [r["fidelity"] for r in rows] == ["changed", "faithful", None]
    assert "who does what swapped" in rows[0]["fidelity_reason"] and rows[1]["fidelity_reason"] is None
    assert (
        "1 faithful, 0 partial, 0 unsure (the meter cannot settle them: read them), 1 changed, 1 not scored"
        in " ".join(result.stdout.split())
    )


def test_fidelity_bad_input_is_one_line(tmp_path):
    source = tmp_path / "pairs.jsonl"
    source.write_text('{"input": "a"}\n', encoding="utf-8")
    result = _run("fidelity", source, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2 and "line 1 has no 'output' field" in result.stderr
    assert not (tmp_path / "out.jsonl").exists()
    source.write_bytes(b'{"input": "\xff", "output": "b"}\n')
    result = _run("fidelity", source, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2 and "UTF-8" in result.stderr


def test_obfuscate_normalise_writes_the_fidelity_of_each_record(tmp_path):
    texts = ["i dont know... it's been sooo long!!!", "Fine.", "We were SO happy (really) :-)"]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8")
    result = _run("obfuscate", source, "-o", tmp_path / "out.jsonl", "--method", "normalise")
    assert result.exit_code == 0, result.output
    rows = _jsonl(tmp_path / "out.jsonl")
    assert [r["id"] for r in rows] == [0, 1, 2] and rows[0]["text"] == "I do not know... It has been so long!"
    assert [r["fidelity"] for r in rows] == ["faithful"] * 3
    assert (
        "3 faithful (1 of them kept as written), 0 partial, 0 unsure (the meter cannot settle them: read them), 0 "
        "changed" in " ".join(result.stdout.split())
    )
    quiet = _run("obfuscate", source, "-o", tmp_path / "plain.jsonl", "--method", "normalise", "--no-fidelity")
    assert quiet.exit_code == 0 and "fidelity" not in _jsonl(tmp_path / "plain.jsonl")[0]


def test_the_default_fallback_never_releases_the_input():
    """Without --fallback, a method whose own fallback releases the input as written (``keep``) withholds instead,
    and the bottleneck keeps its own ``auto`` (``normalise``'s text of a chunk at level roles, its view at the others:
    never the input as written); a named --fallback or a config wins."""
    from authorguard.methods.build import with_fallback

    assert with_fallback("tarot", {}, None) == {"fallback": "withhold"}
    assert with_fallback("bottleneck", {}, None) == {"fallback": "auto"}
    assert with_fallback("bottleneck", {}, "withhold") == {"fallback": "withhold"}
    assert with_fallback("tarot", {"fallback": "keep"}, None) == {"fallback": "keep"}
    assert with_fallback("normalise", {}, None) == {}  # no fallback: nothing to set


def test_anonymize_with_normalise_releases_every_record_once(tmp_path):
    texts = [f"i dont know... post {i} was sooo long!!!" for i in range(7)]
    source = tmp_path / "in.jsonl"
    source.write_text(
        "".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8"
    )
    result = _run("anonymize", "--method", "normalise", source, tmp_path / "out", "--shard-size", 3)
    assert result.exit_code == 0, result.output
    import pyarrow.parquet as pq

    rows = [
        row for path in sorted((tmp_path / "out").glob("part-*.parquet")) for row in pq.read_table(path).to_pylist()
    ]
    released = {r["id"]: r for r in rows}
    assert len(rows) == 7 and sorted(released) == [f"r{i}" for i in range(7)]  # every record once
    assert released["r0"]["text"] == "I do not know... Post 0 was so long!"


def test_an_unsure_verdict_is_counted_apart_never_faithful(tmp_path):
    """A new word that may stand for a lost one: the meter cannot settle it; the record says ``unsure`` and the
    summary counts it apart."""
    pairs = [
        {
            "input": "The fierce storm hit the small community on the coast.",
            "output": "The heavy storm hit the small town on the coast.",
        }
    ]
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in pairs), encoding="utf-8")
    result = _run("fidelity", source, "-o", tmp_path / "scored.jsonl", "--meter", "rules")
    assert result.exit_code == 0, result.output
    row = _jsonl(tmp_path / "scored.jsonl")[0]
    assert row["fidelity"] == "unsure" and "may stand for" in row["fidelity_reason"]
    assert "0 faithful, 0 partial, 1 unsure" in " ".join(result.stdout.split())
