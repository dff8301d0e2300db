"""The local web page's server: FastAPI, bound by ``authorguard serve`` to 127.0.0.1 only.

Requests whose ``Host`` is not the loopback address are refused (Starlette's TrustedHostMiddleware: a page on
another site cannot reach this server through a rebound DNS name), and so is a POST that is not JSON or comes from
a page of another origin (a form on another site cannot start a check that reads a folder of this computer). The page
makes no external requests (its
script and style are inline), there is no telemetry, and the text and known writing live in memory only.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from starlette.middleware.trustedhost import TrustedHostMiddleware

from authorguard.check.web.jobs import JobRunner, SessionStore
from authorguard.exceptions import AuthorguardError, InputError

LOOPBACK_HOSTS = ["127.0.0.1", "localhost"]
#: the rewrites offered on the page (those this installation can run are listed by /api/methods)
REWRITE_METHODS = ("normalise", "bottleneck", "bottleneck(level=canonical)", "tarot", "synonyms")
#: how the known writing pasted in one box is split into documents: a line holding only ---
DOCUMENT_SEPARATOR = re.compile(r"^\s*-{3,}\s*$", re.MULTILINE)


#: the largest request body read (the page's text and known writing are far below it)
MAX_REQUEST_BYTES = 4_000_000


class CheckRequest(BaseModel):
    """What the page sends: the text, the known writing (pasted, documents separated by a line ``---``) or a
    folder on this machine, candidate-set sizes, attackers (empty: the defaults), rewrite methods and the
    background's genre (empty: guessed from the text)."""

    text: str
    known: str = ""
    known_folder: str = ""
    sizes: list[int] = Field(default_factory=lambda: [10, 100])
    attackers: list[str] = Field(default_factory=list)
    methods: list[str] = Field(default_factory=list)
    genre: str = ""
    seed: int = 0


class CommandCheckRequest(BaseModel):
    """What ``authorguard check`` sends a resident server (:mod:`authorguard.check.web.resident`): the text, the known
    documents, and the command's options as it parsed them (``background_file``: a JSONL file on this computer)."""

    text: str
    known: list[str]
    background_file: str = ""
    genre: str = ""
    text_field: str = "text"
    sizes: list[int] = Field(default_factory=lambda: [10, 100])
    attackers: list[str] = Field(default_factory=list)
    rewrite: list[str] = Field(default_factory=list)
    generalise: int = 0
    seed: int = 0


class RecheckRequest(BaseModel):
    """An edited text, checked by the attackers of check ``session`` (a finished check's job id)."""

    session: str
    text: str


class RewriteRequest(BaseModel):
    """A rewrite by ``method``, checked by check ``session``'s attackers, of ``text`` (the text as it stands in the
    box; default: the checked text)."""

    session: str
    method: str
    text: str | None = None


class TextRequest(BaseModel):
    text: str


class GeneraliseRequest(BaseModel):
    """The text in the box with ``words`` (the check's evidence words) generalised, and every name with ``names``."""

    text: str
    words: list[str] = Field(default_factory=list)
    names: bool = False


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

    specs = [(spec, *parse_method_spec(spec)) for spec in REWRITE_METHODS]
    return [spec for spec, name, params in specs if not method_problems(name, params=params)]


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


def run_check(
    request: CheckRequest, say, background=None, sessions: SessionStore | None = None, job_id: str | None = None
) -> dict:
    """The check behind the page: the same :func:`authorguard.check.prepare` and result object as the CLI
    (``background``: the other candidates; default: the staged authors of the genre asked for, or of the text's).
    With ``sessions``, the fitted check is kept under ``job_id`` for re-checks and rewrites."""
    from authorguard.check import CheckConfig, prepare
    from authorguard.check.background import GENRES, load_background
    from authorguard.check.config import DEFAULT_ATTACKERS

    config = CheckConfig(
        sizes=tuple(request.sizes), attackers=tuple(request.attackers or DEFAULT_ATTACKERS), seed=request.seed
    )
    reason = None
    if background is None and request.genre:
        if request.genre not in GENRES:
            raise InputError(f"unknown genre {request.genre!r} (genres: {', '.join(GENRES)})")
        background, reason = load_background(request.genre), "chosen on the page"
    session = prepare(
        request.text, _known_documents(request), background=background, config=config, progress=say, genre_reason=reason
    )
    for method in request.methods:
        session.rewrite(method)
    if sessions is not None and job_id is not None:
        sessions.put(job_id, session)
    return result_view(session.result, request.text, job_id)


def result_view(result, text: str, session: str | None = None) -> dict:
    """A result as the page reads it: the result's dict, its lines, each rewrite's word diff, the session id."""
    out = result.to_dict()
    out["lines"] = result.lines()
    out["session"] = session
    for rewrite in out["rewrites"]:
        rewrite["diff"] = word_diff(text, rewrite["text"]) if rewrite["text"] else []
    return out


@dataclass
class PageState:
    """What the routes share: the job runner, the kept checks, the rewrites offered (None: those this installation
    can run), the check's work (None: :func:`run_check`) and the background (None: staged authors)."""

    runner: JobRunner
    sessions: SessionStore
    methods: Sequence[str] | None = None
    work: Callable | None = None
    background: object = None

    def offered(self) -> list:
        return list(self.methods) if self.methods is not None else available_methods()

    def session_of(self, key: str):
        """The kept check KEY, or a 404 saying checks expire."""
        found = self.sessions.get(key)
        if found is None:
            raise HTTPException(
                status_code=404,
                detail=f"this check is no longer kept (checks are kept {self.sessions.ttl // 60} minutes): check again",
            )
        return found

    def refuse_busy(self) -> None:
        if self.runner.busy():
            raise HTTPException(status_code=409, detail="a check is running: wait for it to finish")


def create_app(
    runner: JobRunner | None = None,
    work=None,
    methods: Sequence[str] | None = None,
    background=None,
) -> FastAPI:
    """The application: ``GET /`` the page, ``GET /api/methods``, ``POST /api/check`` -> a job id,
    ``GET /api/jobs/{id}`` -> its progress and result, ``POST /api/recheck`` (an edit, scored by a finished check's
    attackers, answered at once), ``POST /api/rewrite`` -> a job (the rewrite shown as soon as it is written, then
    its rankings), ``POST /api/normalise`` (the automatic faithful edits). ``work(request, say)`` runs a check
    (default: :func:`run_check`, keeping each check for its follow-ups); ``methods``: the rewrites offered
    (default: those of :data:`REWRITE_METHODS` this installation can run); ``background``: the other candidates
    (default: staged authors of the text's genre). The resident server adds the command routes
    (:func:`authorguard.check.web.resident.add_command_routes`)."""
    state = PageState(runner or JobRunner(), SessionStore(), methods, work, background)
    app = FastAPI(title="authorguard check", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=LOOPBACK_HOSTS)
    app.middleware("http")(same_origin_json)
    page = resources.files("authorguard.check.web").joinpath("page.html").read_text(encoding="utf-8")

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page

    @app.get("/api/methods")
    def offered() -> dict:
        return {"methods": state.offered()}

    _add_check_routes(app, state)
    _add_edit_routes(app)

    @app.get("/api/jobs/{job_id}")
    def job(job_id: str) -> dict:
        found = state.runner.get(job_id)
        if found is None:
            raise HTTPException(
                status_code=404, detail=f"no job {job_id} (finished jobs are kept {state.runner.ttl // 60} minutes)"
            )
        return found.view()

    @app.exception_handler(AuthorguardError)
    def one_line(_, error: AuthorguardError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=422)

    app.state.runner = state.runner
    app.state.sessions = state.sessions
    return app


async def same_origin_json(request, call_next):
    """Refuse a POST from a page of another origin, one that is not JSON, or one over :data:`MAX_REQUEST_BYTES`."""
    if request.method == "POST":
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).hostname not in LOOPBACK_HOSTS:
            return JSONResponse({"detail": "requests from other sites are refused"}, status_code=403)
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            return JSONResponse({"detail": "send JSON (Content-Type: application/json)"}, status_code=415)
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_REQUEST_BYTES:
            return JSONResponse(
                {
                    "detail": f"the request is {int(length):,} bytes; the page takes at most "
                    f"{MAX_REQUEST_BYTES:,} (give a folder of your writing instead)"
                },
                status_code=413,
            )
    return await call_next(request)


def refuse_text(text: str, known: str = "", empty: bool = True) -> None:
    """A 422 for an empty text (when EMPTY is checked), a 413 for a text or known writing over the check's limits."""
    from authorguard.check.config import check_limits

    if empty and not text.strip():
        raise HTTPException(status_code=422, detail="the text is empty")
    try:
        check_limits(text, [known] if known.strip() else [])
    except InputError as error:
        raise HTTPException(status_code=413, detail=str(error)) from None


def _add_check_routes(app: FastAPI, state: PageState) -> None:
    """``POST /api/check``, ``/api/recheck`` and ``/api/rewrite``: the check and its follow-ups."""

    @app.post("/api/check")
    def submit(request: CheckRequest) -> dict:
        refuse_text(request.text, request.known)
        state.refuse_busy()
        unknown = [m for m in request.methods if m not in state.offered()]
        if unknown:
            raise HTTPException(status_code=422, detail=f"method {unknown[0]!r} is not offered here")
        if state.work is not None:
            work = state.work
            return {"job": state.runner.submit(lambda say: work(request, say))}
        return {
            "job": state.runner.submit(
                lambda say, job_id: run_check(request, say, state.background, state.sessions, job_id), with_id=True
            )
        }

    @app.post("/api/recheck")
    def recheck(request: RecheckRequest) -> dict:
        refuse_text(request.text)
        session = state.session_of(request.session)
        with state.sessions.using(request.session):
            return result_view(session.recheck(request.text), request.text, request.session)

    @app.post("/api/rewrite")
    def rewrite(request: RewriteRequest) -> dict:
        if request.method not in state.offered():
            raise HTTPException(status_code=422, detail=f"method {request.method!r} is not offered here")
        if request.text is not None:
            refuse_text(request.text)
        session = state.session_of(request.session)
        state.refuse_busy()
        written = session.text if request.text is None else request.text

        def work_rewrite(say):
            def shown(found) -> None:  # the rewrite and its fidelity, before its rankings are ready
                say({"rewrite": {**found, "diff": word_diff(written, found["text"]) if found["text"] else []}})

            with state.sessions.using(request.session):
                session.say = say
                found = session.rewrite(request.method, shown=shown, text=written)
            view = result_view(session.result, written, request.session)
            view["rewrites"] = [r for r in view["rewrites"] if r["method"] == found.method][-1:]
            return view

        return {"job": state.runner.submit(work_rewrite)}


def _add_edit_routes(app: FastAPI) -> None:
    """``POST /api/normalise`` and ``/api/generalise``: the automatic edits, answered at once."""

    @app.post("/api/normalise")
    def normalised(request: TextRequest) -> dict:
        from authorguard.text.normalise import normalise

        refuse_text(request.text, empty=False)
        text = normalise(request.text)
        return {"text": text, "diff": word_diff(request.text, text)}

    @app.post("/api/generalise")
    def generalised(request: GeneraliseRequest) -> dict:
        from authorguard.check.generalisation import generalise_words

        refuse_text(request.text)
        found = generalise_words(request.text, request.words, names=request.names)
        return {"text": found.text, "changes": found.changes, "diff": word_diff(request.text, found.text)}
