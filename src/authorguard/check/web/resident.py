"""The check's resident server: the page's server kept running between commands, so that ``authorguard check``
skips what every new process pays before its first answer — the interpreter, the imports, the attackers' worker
processes, WordNet, the background's counts read from disk (2-5 s of a 10-15 s check on 2 cores;
docs/benchmarks.md).

``authorguard check`` starts one on demand (:func:`start_resident`, a detached ``authorguard serve --resident``)
and sends it the check (``POST /api/command/check``, a job polled like the page's); the server stops by itself
after :data:`IDLE_S` seconds without a request. It listens on 127.0.0.1 only, like the page, and takes commands
only with the token of its state file (``<cache>/check/server.json``, readable by its owner only): another user
of the computer, or a web page, cannot drive it. Texts live in its memory only, as on the page.

A server is used only by a command of the same installation: the state records the package version, the Python
executable and the data folder, and a server that differs is stopped and a new one started.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

#: seconds without a request after which the resident server stops
IDLE_S = 900
#: the header that carries the state file's token
TOKEN_HEADER = "x-authorguard-token"


@dataclass(frozen=True)
class ResidentState:
    """Where a resident server listens and what it serves: ``pid``, ``port`` on 127.0.0.1, ``token`` (a command
    carries it), and the installation it belongs to (``version``, ``python``, ``data``)."""

    pid: int
    port: int
    token: str
    version: str
    python: str
    data: str


def state_path() -> Path:
    from authorguard.config import cache_dir

    return cache_dir() / "check" / "server.json"


def installation() -> dict:
    """What a server must share with a command to serve it: the package version, the Python executable, the data
    folder."""
    from authorguard import __version__

    return {"version": __version__, "python": sys.executable, "data": os.environ.get("AUTHORGUARD_DATA", "")}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: not ours to use
        return False
    return True


def read_state() -> ResidentState | None:
    """The state of a running resident server, or None (no file, a damaged one, or its process gone)."""
    path = state_path()
    try:
        state = ResidentState(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    return state if _alive(state.pid) else None


def _write_state(state: ResidentState) -> None:
    path = state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    # the token lets whoever reads it run checks as this user: owner-only, written whole then moved in place
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(asdict(state), handle)
    os.replace(partial, path)


def _remove_state(pid: int) -> None:
    """Remove the state file if it is still this server's (a newer server may have replaced it)."""
    path = state_path()
    with contextlib.suppress(OSError, ValueError, TypeError):
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == pid:
            path.unlink()


class IdleClock:
    """The time of the last request; :meth:`idle_for` is the seconds since, 0 while ``busy()`` says work runs."""

    def __init__(self, busy=lambda: False) -> None:
        self.busy = busy
        self.last = time.monotonic()

    def touch(self) -> None:
        self.last = time.monotonic()

    def idle_for(self) -> float:
        if self.busy():
            self.touch()
            return 0.0
        return time.monotonic() - self.last


def serve_resident(idle_s: float = IDLE_S, port: int = 0) -> None:
    """Run the page's server with the command routes, bound to 127.0.0.1 (``port`` 0: any free port), its state
    written for commands to find it; it returns after ``idle_s`` seconds without a request (or on a signal), its
    state file removed."""
    import uvicorn

    from authorguard.check.web.app import create_app

    token = secrets.token_urlsafe(32)
    app = create_app()
    add_command_routes(app, app.state.runner, token)
    clock = IdleClock(app.state.runner.busy)

    @app.middleware("http")
    async def count_activity(request, call_next):
        clock.touch()
        return await call_next(request)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    app.state.stop = lambda: setattr(server, "should_exit", True)

    def watch() -> None:
        while not server.should_exit:
            if clock.idle_for() > idle_s:
                server.should_exit = True
            time.sleep(min(1.0, idle_s / 4))

    state = ResidentState(os.getpid(), listener.getsockname()[1], token, **installation())
    _write_state(state)
    threading.Thread(target=watch, name="authorguard-idle", daemon=True).start()
    try:
        server.run(sockets=[listener])
    finally:
        _remove_state(state.pid)
        app.state.runner.shutdown()


def add_command_routes(app, runner, token: str) -> None:
    """The resident server's routes for ``authorguard check``: ``GET /api/command/health``, ``POST
    /api/command/check`` -> a job (polled at the page's ``GET /api/jobs/{id}``) and ``POST /api/command/stop``,
    each only with ``token`` in the :data:`TOKEN_HEADER` header."""
    import hmac

    from fastapi import Header, HTTPException

    from authorguard.check.web.app import CommandCheckRequest

    def authorised(given: str | None) -> None:
        if given is None or not hmac.compare_digest(given.encode(), token.encode()):
            raise HTTPException(status_code=403, detail="a command needs this server's token")

    @app.get("/api/command/health")
    def health(x_authorguard_token: str | None = Header(default=None)) -> dict:
        authorised(x_authorguard_token)
        return {"pid": os.getpid(), **installation()}

    def command_check(request: CommandCheckRequest, x_authorguard_token: str | None = Header(default=None)) -> dict:
        from authorguard.check.run import run_options

        authorised(x_authorguard_token)
        options = request.model_dump(exclude={"text", "known"})

        def work(say) -> dict:
            return run_options(request.text, request.known, options, progress=say)

        return {"job": runner.submit(work)}

    # the model is imported here, not in the module's globals, where FastAPI resolves the (postponed) annotations:
    # given as a string, FastAPI 0.165 took the body for a query parameter and answered 422
    command_check.__annotations__["request"] = CommandCheckRequest
    app.post("/api/command/check")(command_check)

    @app.post("/api/command/stop")
    def stop(x_authorguard_token: str | None = Header(default=None)) -> dict:
        authorised(x_authorguard_token)
        getattr(app.state, "stop", lambda: None)()
        return {"stopping": True}
