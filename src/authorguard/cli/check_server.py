"""``authorguard check`` through the resident server (:mod:`authorguard.check.web.resident`): find it or start
it, send the check, show its progress as it comes, return its result. Only the standard library is imported
here: a command that reaches a running server imports nothing of the check itself."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from authorguard.check.web.resident import TOKEN_HEADER, ResidentState, installation, read_state, state_path
from authorguard.exceptions import AuthorguardError, InputError

#: the longest wait for a new server to answer (its imports; 3-6 s on 2 cores)
START_TIMEOUT_S = 120.0
#: how often a running job is asked for its progress
POLL_S = 0.1


class ServerUnavailable(AuthorguardError):
    """No resident server could be reached or started (the command then checks in its own process)."""


def _call(state: ResidentState, method: str, path: str, payload: dict | None = None, timeout: float = 30.0) -> dict:
    body = None if payload is None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        f"http://127.0.0.1:{state.port}{path}",
        data=body,
        method=method,
        headers={TOKEN_HEADER: state.token, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read().decode("utf-8")).get("detail")
        except (ValueError, AttributeError):
            detail = None
        if error.code == 422 and isinstance(detail, str):
            raise InputError(detail) from None
        raise ServerUnavailable(f"the check server answered {error.code}: {detail or error.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise ServerUnavailable(f"the check server did not answer: {error}") from None


def _serves_us(state: ResidentState) -> bool:
    """Whether the server at ``state`` answers and belongs to this installation (version, Python, data folder)."""
    try:
        found = _call(state, "GET", "/api/command/health", timeout=5.0)
    except (ServerUnavailable, InputError):
        return False
    return found.get("pid") == state.pid and all(found.get(k) == v for k, v in installation().items())


def web_installed() -> bool:
    """Whether the resident server can run here (the ``web`` extra: FastAPI and uvicorn)."""
    return all(importlib.util.find_spec(name) is not None for name in ("fastapi", "uvicorn"))


def stop_server() -> bool:
    """Stop the resident server of this cache folder, if one runs; whether one was stopped."""
    state = read_state()
    if state is None:
        return False
    try:
        _call(state, "POST", "/api/command/stop", {}, timeout=5.0)
    except (ServerUnavailable, InputError):
        return False
    deadline = time.monotonic() + 10
    while read_state() is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    return True


def start_server(idle_s: float | None = None) -> ResidentState:
    """Start a resident server (detached: it outlives this command) and wait until it answers."""
    from authorguard.check.web.resident import IDLE_S

    log = state_path().with_name("server.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "authorguard.cli.app", "serve", "--resident"]
    command += ["--idle-seconds", str(int(idle_s if idle_s is not None else IDLE_S))]
    with open(log, "w", encoding="utf-8") as output:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=output, start_new_session=True, env=os.environ
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            raise ServerUnavailable(f"the check server stopped at start ({'; '.join(tail) or 'no output'})")
        state = read_state()
        if state is not None and state.pid == process.pid and _serves_us(state):
            return state
        time.sleep(0.1)
    process.terminate()
    raise ServerUnavailable(f"the check server did not answer within {START_TIMEOUT_S:.0f} s")


def ensure_server(say: Callable[[str], None]) -> ResidentState:
    """The resident server of this installation: the running one, or a new one (a stale one is stopped first)."""
    state = read_state()
    if state is not None and _serves_us(state):
        return state
    if state is not None:
        stop_server()
    from authorguard.check.web.resident import IDLE_S

    say(f"starting the check server (it stays for the next checks and stops after {IDLE_S // 60} idle minutes)")
    return start_server()


def check_through_server(payload: dict, say: Callable[[str], None]) -> dict:
    """Run ``payload`` (:class:`~authorguard.check.web.app.CommandCheckRequest`'s fields) in the resident server,
    showing its progress lines through ``say``; returns ``{"lines": [...], "result": {...}}``. A one-line
    :class:`InputError` for what the check refuses; :class:`ServerUnavailable` when no server can be used."""
    state = ensure_server(say)
    job = _call(state, "POST", "/api/command/check", payload)["job"]
    shown = 0
    while True:
        found = _call(state, "GET", f"/api/jobs/{job}")
        for line in found["progress"][shown:]:
            say(line)
        shown = len(found["progress"])
        if found["state"] == "done":
            return found["result"]
        if found["state"] == "failed":
            raise InputError(found["error"] or "the check failed")
        time.sleep(POLL_S)
