"""The local web page's server: FastAPI, bound by ``authorguard serve`` to 127.0.0.1 only.

Requests whose ``Host`` is not the loopback address are refused (Starlette's TrustedHostMiddleware: a page on
another site cannot reach this server through a rebound DNS name), and so is a POST that is not JSON or comes from
a page of another origin (a form on another site cannot start a check that reads a folder of this computer). The page makes no external requests (its
script and style are inline), there is no telemetry, and the text and known writing live in memory only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.middleware.trustedhost import TrustedHostMiddleware

from authorguard.exceptions import AuthorguardError, InputError
from authorguard.web.jobs import JobRunner

LOOPBACK_HOSTS = ["127.0.0.1", "localhost"]
#: the rewrites offered on the page (those this installation can run are listed by /api/methods)
REWRITE_METHODS = ("normalise", "bottleneck", "bottleneck(level=canonical)", "tarot", "synonyms")
#: how the known writing pasted in one box is split into documents: a line holding only ---
DOCUMENT_SEPARATOR = re.compile(r"^\s*-{3,}\s*$", re.MULTILINE)


class CheckRequest(BaseModel):
    """What the page sends: the text, the known writing (pasted, documents separated by a line ``---``) or a
    folder on this machine, candidate-set sizes, attackers (empty: the defaults) and rewrite methods."""

    text: str
    known: str = ""
    known_folder: str = ""
    sizes: list[int] = Field(default_factory=lambda: [10, 100])
    attackers: list[str] = Field(default_factory=list)
    methods: list[str] = Field(default_factory=list)
    seed: int = 0


def word_diff(original: str, rewrite: str) -> list[dict]:
    """The rewrite as segments ``{"op": "same" | "new", "text": ...}`` and the original's dropped words as
    ``{"op": "gone"}`` segments, word by word (difflib), for highlighting."""
    before, after = original.split(), rewrite.split()
    segments = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if op == "equal":
            segments.append({"op": "same", "text": " ".join(after[j1:j2])})
            continue
        if i2 > i1:
            segments.append({"op": "gone", "text": " ".join(before[i1:i2])})
        if j2 > j1:
            segments.append({"op": "new", "text": " ".join(after[j1:j2])})
    return segments


def available_methods() -> list[str]:
    """The page's rewrite methods whose extras and weights this environment has."""
    from authorguard.methods.build import parse_method_spec
    from authorguard.utils.extras import method_problems

    return [spec for spec in REWRITE_METHODS if not method_problems(parse_method_spec(spec)[0])]


def _known_documents(request: CheckRequest) -> list[str]:
    from authorguard.check.texts import read_writing

    if request.known_folder.strip():
        folder = Path(request.known_folder.strip()).expanduser()
        if not folder.is_dir():
            raise InputError(f"{folder}: no such folder")
        return read_writing([folder])
    documents = [d.strip() for d in DOCUMENT_SEPARATOR.split(request.known) if d.strip()]
    if not documents:
        raise InputError("paste your known writing, or give a folder of it")
    return documents


def run_check(request: CheckRequest, say, background=None) -> dict:
    """The check behind the page: the same :func:`authorguard.check.check` and result object as the CLI
    (``background``: the other candidates; default: the staged authors of the text's genre)."""
    from authorguard.check import CheckConfig, check
    from authorguard.check.run import DEFAULT_ATTACKERS

    config = CheckConfig(sizes=tuple(request.sizes), attackers=tuple(request.attackers or DEFAULT_ATTACKERS),
                         seed=request.seed)
    result = check(request.text, _known_documents(request), background=background, config=config,
                   methods=tuple(request.methods), progress=say)
    out = result.to_dict()
    out["lines"] = result.lines()
    for rewrite in out["rewrites"]:
        rewrite["diff"] = word_diff(request.text, rewrite["text"]) if rewrite["text"] else []
    return out


def create_app(runner: JobRunner | None = None, work=run_check, methods: Sequence[str] | None = None) -> FastAPI:
    """The application: ``GET /`` the page, ``GET /api/methods``, ``POST /api/check`` -> a job id,
    ``GET /api/jobs/{id}`` -> its progress and result. ``work(request, say)`` runs a request; ``methods``: the
    rewrites offered (default: those of :data:`REWRITE_METHODS` this installation can run)."""
    runner = runner or JobRunner()
    app = FastAPI(title="authorguard check", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS)

    @app.middleware("http")
    async def same_origin_json(request, call_next):
        if request.method == "POST":
            origin = request.headers.get("origin")
            if origin is not None and urlsplit(origin).hostname not in LOOPBACK_HOSTS:
                return JSONResponse({"detail": "requests from other sites are refused"}, status_code=403)
            if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return JSONResponse({"detail": "send JSON (Content-Type: application/json)"}, status_code=415)
        return await call_next(request)
    page = resources.files("authorguard.web").joinpath("page.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.get("/api/methods")
    def offered() -> dict:
        return {"methods": list(methods) if methods is not None else available_methods()}

    @app.post("/api/check")
    def submit(request: CheckRequest) -> dict:
        if not request.text.strip():
            raise HTTPException(status_code=422, detail="the text is empty")
        if runner.busy():
            raise HTTPException(status_code=409, detail="a check is running: wait for it to finish")
        offered_now = list(methods) if methods is not None else available_methods()
        unknown = [m for m in request.methods if m not in offered_now]
        if unknown:
            raise HTTPException(status_code=422, detail=f"method {unknown[0]!r} is not offered here")
        return {"job": runner.submit(lambda say: work(request, say))}

    @app.get("/api/jobs/{job_id}")
    def job(job_id: str) -> dict:
        found = runner.get(job_id)
        if found is None:
            raise HTTPException(status_code=404, detail=f"no job {job_id}")
        return found.view()

    @app.exception_handler(AuthorguardError)
    def one_line(_, error: AuthorguardError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=422)

    app.state.runner = runner
    return app
