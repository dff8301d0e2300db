"""``authorguard serve``: the writer's check as a local web page, on 127.0.0.1 only."""

from __future__ import annotations

from typing import Annotated

import typer

from authorguard.cli.common import console, handle_errors

HOST = "127.0.0.1"


@handle_errors
def serve(
    port: Annotated[int, typer.Option(help="The port on 127.0.0.1.", min=1, max=65535)] = 8765,
) -> None:
    """Start the check's web page at http://127.0.0.1:PORT: paste a text and your known writing, see the check, pick
    a rewrite, compare and copy it. The server listens on this computer only and refuses requests addressed to any
    other host name; nothing is sent anywhere or written to disk. Stop it with Ctrl+C."""
    from authorguard.utils.extras import require_extra

    require_extra("web")
    import uvicorn

    from authorguard.web.app import create_app

    console.print(f"authorguard check: http://{HOST}:{port}  (this computer only; Ctrl+C stops it)", highlight=False)
    uvicorn.run(create_app(), host=HOST, port=port, log_level="warning")
