"""A real server for the web tests that need one (a browser, a raw socket)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


@contextlib.contextmanager
def running_server(app):
    """``app`` served by uvicorn on a free loopback port in a thread; yields its base URL."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
