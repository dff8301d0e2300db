"""``authorguard check`` on files: the readable result, its JSON, and one line for bad input."""

from __future__ import annotations

import json

import numpy as np
from typer.testing import CliRunner

from authorguard.cli.app import app
from tests.conftest import author_text

runner = CliRunner()


def _world(tmp_path):
    rng = np.random.default_rng(0)
    known = tmp_path / "known"
    known.mkdir()
    for i in range(6):
        (known / f"{i}.txt").write_text(author_text(0, 250, rng))
    rows = [{"author": f"a{a}", "text": author_text(a, 250, rng)} for a in range(1, 10) for _ in range(8)]
    (tmp_path / "others.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (tmp_path / "text.txt").write_text(author_text(0, 200, rng))
    return known


def test_check_prints_the_verdict_and_writes_json(tmp_path):
    known = _world(tmp_path)
    result = runner.invoke(
        app,
        [
            "check",
            str(tmp_path / "text.txt"),
            "--known",
            str(known),
            "--background",
            str(tmp_path / "others.jsonl"),
            "--sizes",
            "5,10",
            "-a",
            "char-ngrams",
            "--json",
            str(tmp_path / "out.json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "rank you first" in result.stdout and "char-ngrams" in result.stdout
    data = json.loads((tmp_path / "out.json").read_text())
    assert [r["candidates"] for r in data["rankings"]] == [5, 10] and data["rankings"][0]["rank"] == 1


def test_text_from_standard_input(tmp_path):
    known = _world(tmp_path)
    result = runner.invoke(
        app,
        [
            "check",
            "-",
            "--known",
            str(known),
            "--background",
            str(tmp_path / "others.jsonl"),
            "--sizes",
            "5",
            "-a",
            "char-ngrams",
        ],
        input=(tmp_path / "text.txt").read_text(),
    )
    assert result.exit_code == 0, result.output


def test_bad_input_is_one_line(tmp_path):
    known = _world(tmp_path)
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02")
    cases = [
        (["check", str(tmp_path / "empty.txt"), "--known", str(known)], "is empty"),
        (["check", str(tmp_path / "binary.txt"), "--known", str(known)], "is a binary file"),
        (["check", str(tmp_path / "text.txt"), "--known", str(tmp_path / "nowhere")], "no such file or folder"),
        (["check", str(tmp_path / "text.txt"), "--known", str(known), "--sizes", "ten"], "--sizes takes"),
        (["check", str(tmp_path / "text.txt"), "--known", str(known), "--genre", "poetry"], "unknown genre 'poetry'"),
        (
            ["check", str(tmp_path / "text.txt"), "--known", str(known), "--background", str(tmp_path / "x.jsonl")],
            "no such background file",
        ),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_help_lists_the_genres():
    from authorguard.check.background import GENRES
    from authorguard.cli.check import GENRE_CHOICES

    assert tuple(GENRES) == GENRE_CHOICES
    output = CliRunner().invoke(app, ["check", "--help"], terminal_width=200).output
    assert "[blog|essay|forum]" in output


def test_an_unknown_rewrite_or_attacker_is_refused_before_any_fitting_or_server(tmp_path, monkeypatch):
    from authorguard.cli import check as check_command
    from authorguard.cli import check_server

    def reached(*args, **kwargs):
        raise AssertionError("the check started before its options were checked")

    monkeypatch.setattr(check_command, "_check_here", reached)
    monkeypatch.setattr(check_server, "check_through_server", reached)
    known = _world(tmp_path)
    text = str(tmp_path / "text.txt")
    cases = [
        (["--rewrite", "nrmalise"], "unknown method 'nrmalise'; did you mean 'normalise'?"),
        (["--rewrite", "syntf"], "--rewrite 'syntf': not a text method"),
        (["--rewrite", "synonyms(rate=0.3"], "synonyms(rate=0.3"),
        (["-a", "char-grams"], "unknown attacker 'char-grams'; did you mean 'char-ngrams'?"),
    ]
    for extra, message in cases:
        result = runner.invoke(app, ["check", text, "--known", str(known), *extra])
        assert result.exit_code == 2, (extra, result.output)
        assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
