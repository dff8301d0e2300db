"""``authorguard serve``: the writer's check as a local web page, on 127.0.0.1 only; or the resident check server
that ``authorguard check`` starts on demand (``--resident``), or its stop (``--stop``)."""

from __future__ import annotations

from typing import Annotated

import typer

from authorguard.cli.common import handle_errors, stdout

HOST = "127.0.0.1"


@handle_errors
def serve(
    port: Annotated[
        int | None, typer.Option(help="The port on 127.0.0.1 (default: 8765; any free port with --resident).")
    ] = None,
    resident: Annotated[
        bool,
        typer.Option(
            "--resident",
            help="Run as the resident check server that `authorguard check` uses (it writes where it listens to "
            "the cache folder and stops after --idle-seconds without a request); `authorguard check` starts it.",
        ),
    ] = False,
    idle_seconds: Annotated[
        int, typer.Option(help="With --resident: stop after this many seconds without a request.", min=1)
    ] = 900,
    stop: Annotated[bool, typer.Option("--stop", help="Stop the resident check server, if one runs.")] = False,
) -> None:
    """Start the check's web page at http://127.0.0.1:PORT: paste a text and your known writing, see the check, pick
    a rewrite, compare and copy it. The server listens on this computer only and refuses requests addressed to any
    other host name; nothing is sent anywhere or written to disk. Stop it with Ctrl+C."""
    from authorguard.exceptions import InputError
    from authorguard.utils.extras import require_extra

    if port is not None and not 0 <= port <= 65535:
        raise InputError(f"--port takes 0 to 65535, got {port}")
    if stop:
        from authorguard.cli.check_server import stop_server

        stdout.print("the check server was stopped" if stop_server() else "no check server runs", highlight=False)
        return
    require_extra("web")
    if resident:
        from authorguard.check.web.resident import serve_resident

        serve_resident(idle_s=idle_seconds, port=port or 0)
        return
    import uvicorn

    from authorguard.check.web.app import create_app

    port = port or 8765
    stdout.print(f"authorguard check: http://{HOST}:{port}  (this computer only; Ctrl+C stops it)", highlight=False)
    app = create_app()
    try:  # uvicorn returns on Ctrl+C and on SIGTERM: the checks' worker processes end with the server
        uvicorn.run(app, host=HOST, port=port, log_level="warning")
    finally:
        app.state.runner.shutdown()
