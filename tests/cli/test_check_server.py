"""``authorguard check`` through the resident check server: started on demand, reused, the same answer as a check
in the command's own process, stopped on request and after idling."""

from __future__ import annotations

import json
import os
import time

import pytest
from typer.testing import CliRunner

from authorguard.check.web.resident import read_state, state_path
from authorguard.cli.app import app
from authorguard.cli.check_server import start_server, stop_server
from tests.cli.test_check import _world

pytest.importorskip("fastapi")
runner = CliRunner()


def _without_timing(path) -> dict:
    """The result's JSON less its timings (``seconds``, wherever they are: they differ between any two runs)."""

    def drop(value):
        if isinstance(value, dict):
            return {k: drop(v) for k, v in value.items() if k != "seconds"}
        return [drop(v) for v in value] if isinstance(value, list) else value

    return drop(json.loads(path.read_text()))


@pytest.mark.slow
def test_the_command_through_the_server_equals_the_check_here(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTHORGUARD_CACHE", str(tmp_path / "cache"))
    known = _world(tmp_path)
    command = [
        "check",
        str(tmp_path / "text.txt"),
        "--known",
        str(known),
        "--background",
        str(tmp_path / "others.jsonl"),
    ]
    command += ["--sizes", "5,10", "-a", "char-ngrams", "-a", "function-words"]
    here = runner.invoke(app, [*command, "--no-server", "--json", str(tmp_path / "here.json")])
    assert here.exit_code == 0, here.output
    assert read_state() is None  # --no-server starts nothing
    try:
        first = runner.invoke(app, [*command, "--server", "--json", str(tmp_path / "first.json")])
        assert first.exit_code == 0, first.output
        state = read_state()
        assert state is not None and state.pid != os.getpid()
        assert oct(state_path().stat().st_mode & 0o777) == "0o600"  # the token is its owner's only
        second = runner.invoke(app, [*command, "--server", "--json", str(tmp_path / "second.json")])
        assert second.exit_code == 0, second.output
        assert read_state() == state  # the same server answered the second command
        for answered in (first, second):  # by the server, not by the fallback in the command's process
            assert "checking in this process" not in answered.output, answered.output
        assert first.stdout == here.stdout
        assert _without_timing(tmp_path / "first.json") == _without_timing(tmp_path / "here.json")
        assert _without_timing(tmp_path / "second.json") == _without_timing(tmp_path / "here.json")
        bad = runner.invoke(app, [*command[:-4], "--sizes", "1", "--server"])  # refused by the server: one line
        assert bad.exit_code != 0 and "sizes" in bad.output and "Traceback" not in bad.output
    finally:
        stopped = stop_server()
    assert stopped and read_state() is None and not state_path().exists()


@pytest.mark.slow
def test_the_server_stops_after_idling_and_a_stale_state_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTHORGUARD_CACHE", str(tmp_path / "cache"))
    state = start_server(idle_s=2)
    deadline = time.monotonic() + 60
    while read_state() is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert read_state() is None and not state_path().exists()
    # a state file left by a process that is gone is no server
    state_path().write_text(json.dumps({**state.__dict__, "pid": 2**22 + 7}))
    assert read_state() is None
