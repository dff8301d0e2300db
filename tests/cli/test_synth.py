"""``authorguard synth`` on real messages: the synthetic records and the privacy file, and bad input as one line that
writes nothing."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from authorguard.cli.app import app

pytest.importorskip("opendp")
runner = CliRunner()


@pytest.fixture(scope="module")
def posts(newsgroups, tmp_path_factory):
    """240 real 20 Newsgroups messages across the groups, with their senders (the authors) and groups."""
    train = newsgroups.split("train")
    keep = [i for i, a in enumerate(train.authors) if a][::40][:240]
    path = tmp_path_factory.mktemp("synth") / "posts.jsonl"
    rows = [{"id": f"m{i}", "text": train.texts[i], "sender": train.authors[i], "group": train.labels[i]} for i in keep]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _synth(posts, out, *extra):
    return runner.invoke(
        app,
        ["synth", str(posts), "-o", str(out), "--author-field", "sender", "--label-field", "group", *map(str, extra)],
    )


def test_synth_writes_labelled_bags_and_the_guarantee(posts, tmp_path):
    out = tmp_path / "release.jsonl"
    result = _synth(posts, out, "--epsilon", 8, "--seed", 0, "--vocabulary-size", 2000, "--documents", 100)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    groups = {json.loads(line)["group"] for line in posts.read_text(encoding="utf-8").splitlines()}
    assert len(rows) == 100 and {r["label"] for r in rows} <= groups
    assert all(set(r) == {"id", "label", "counts"} and r["counts"] for r in rows)
    assert len({r["id"] for r in rows}) == 100
    privacy = json.loads((tmp_path / "release.privacy.json").read_text(encoding="utf-8"))
    assert privacy["unit"] == "author" and privacy["epsilon"] <= 8 and privacy["delta"] == 1e-5
    assert privacy["library"] == "opendp" and privacy["bound"]["max_documents"] == 10
    assert privacy["documents_counted"] + privacy["documents_dropped"] == 240
    assert "DP per author" in result.stdout and "seeded noise" in result.stderr
    again = tmp_path / "again.jsonl"
    _synth(posts, again, "--epsilon", 8, "--seed", 0, "--vocabulary-size", 2000, "--documents", 100)
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")  # a seed reproduces the release


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--epsilon", 0], "epsilon"),
        (["--epsilon", 1, "--delta", 0], "delta"),
        (["--epsilon", 1, "--secure", "--seed", 3], "no --seed"),
        (["--epsilon", 1, "--morphology", "stem"], "unknown morphology"),
        (["--epsilon", 1, "--engine", "spark"], "unknown --engine"),
        (["--epsilon", 1, "--engine", "ray", "--workers", 0], "--workers"),
    ],
)
def test_bad_options_are_one_line_and_write_nothing(posts, tmp_path, extra, message):
    out = tmp_path / "release.jsonl"
    result = _synth(posts, out, *extra)
    assert result.exit_code == 2 and message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not out.exists() and not (tmp_path / "release.privacy.json").exists()


def test_missing_fields_a_lone_author_and_a_wrong_output_are_one_line(posts, tmp_path):
    lone = tmp_path / "lone.jsonl"
    lone.write_text(
        "".join(json.dumps({"text": f"post {i}", "sender": "x", "group": f"g{i % 2}"}) + "\n" for i in range(5)),
        encoding="utf-8",
    )
    cases = [
        (
            runner.invoke(
                app,
                [
                    "synth",
                    str(posts),
                    "-o",
                    str(tmp_path / "o.jsonl"),
                    "--author-field",
                    "who",
                    "--label-field",
                    "group",
                    "--epsilon",
                    "1",
                ],
            ),
            "has no 'who' field",
        ),
        (_synth(lone, tmp_path / "o.jsonl", "--epsilon", 1), "one author"),
        (_synth(posts, tmp_path / "o.csv", "--epsilon", 1), "written as JSONL"),
    ]
    for result, message in cases:
        assert result.exit_code == 2 and message in result.stderr, result.output
    assert not (tmp_path / "o.jsonl").exists()


def test_ray_engine_writes_the_same_release_as_the_local_one(posts, tmp_path, monkeypatch):
    pytest.importorskip("ray")
    import authorguard.methods.author_synth as author_synth

    monkeypatch.setattr(author_synth, "AUTHORS_PER_BATCH", 40)  # several Ray tasks for 240 messages
    common = ("--epsilon", 4, "--seed", 5, "--vocabulary-size", 2000, "--documents", 60)
    local, ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert _synth(posts, local, *common).exit_code == 0
    result = _synth(posts, ray, *common, "--engine", "ray", "--workers", 2)
    assert result.exit_code == 0, result.output
    assert ray.read_text(encoding="utf-8") == local.read_text(encoding="utf-8")
    privacy = json.loads((tmp_path / "ray.privacy.json").read_text(encoding="utf-8"))
    assert privacy["documents_counted"] + privacy["documents_dropped"] == 240
