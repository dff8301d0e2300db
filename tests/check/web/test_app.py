"""The local server: loopback only, the page has no external requests, jobs report progress and results."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from authorguard.check.web.app import create_app, word_diff


def _fake_work(request, say):
    say("counting")
    if "fail" in request.text:
        from authorguard.exceptions import InputError

        raise InputError("the known writing is empty")
    return {"words": len(request.text.split())}


def _wait(client, job_id):
    for _ in range(100):
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError("the job did not finish")


def test_requests_for_another_host_are_refused():
    client = TestClient(create_app(work=_fake_work, methods=[]), base_url="http://127.0.0.1")
    assert client.get("/").status_code == 200
    assert client.get("/", headers={"host": "localhost:8765"}).status_code == 200
    assert client.get("/", headers={"host": "attacker.example"}).status_code == 400
    assert client.get("/api/methods", headers={"host": "192.168.1.5:8765"}).status_code == 400


def test_the_page_makes_no_external_requests():
    page = TestClient(create_app(work=_fake_work, methods=[]), base_url="http://127.0.0.1").get("/").text
    assert '<textarea id="text"' in page and "http://" not in page and "https://" not in page
    assert "<script src" not in page and "<link" not in page


def test_a_job_reports_progress_and_its_result_or_one_line():
    client = TestClient(create_app(work=_fake_work, methods=["dropout"]), base_url="http://127.0.0.1")
    job = _wait(client, client.post("/api/check", json={"text": "three words here", "known": "x"}).json()["job"])
    assert job["state"] == "done" and job["result"] == {"words": 3} and job["progress"] == ["counting"]
    failed = _wait(client, client.post("/api/check", json={"text": "fail", "known": "x"}).json()["job"])
    assert failed["state"] == "failed" and failed["error"] == "the known writing is empty"
    assert client.post("/api/check", json={"text": "  ", "known": "x"}).status_code == 422
    assert (
        client.post("/api/check", json={"text": "a", "methods": ["tarot"]}).json()["detail"]
        == "method 'tarot' is not offered here"
    )
    assert client.get("/api/jobs/nope").status_code == 404
    assert client.get("/api/methods").json() == {"methods": ["dropout"]}


def test_cross_site_and_non_json_posts_are_refused():
    client = TestClient(create_app(work=_fake_work, methods=[]), base_url="http://127.0.0.1")
    other_site = client.post("/api/check", json={"text": "a", "known": "x"}, headers={"origin": "https://evil.example"})
    assert other_site.status_code == 403
    form = client.post("/api/check", content=b'{"text": "a"}', headers={"content-type": "text/plain"})
    assert form.status_code == 415
    same = client.post("/api/check", json={"text": "a", "known": "x"}, headers={"origin": "http://127.0.0.1:8765"})
    assert same.status_code == 200


def test_one_check_at_a_time():
    import threading

    release = threading.Event()

    def slow(request, say):
        release.wait(10)
        return {}

    client = TestClient(create_app(work=slow, methods=[]), base_url="http://127.0.0.1")
    first = client.post("/api/check", json={"text": "a", "known": "x"}).json()["job"]
    assert client.post("/api/check", json={"text": "b", "known": "x"}).status_code == 409
    release.set()
    assert _wait(client, first)["state"] == "done"


def test_word_diff_marks_new_and_removed_words():
    segments = word_diff("the cat sat on the mat", "the dog sat on the mat today")
    assert segments == [
        {"op": "same", "text": "the"},
        {"op": "gone", "text": "cat"},
        {"op": "new", "text": "dog"},
        {"op": "same", "text": "sat on the mat"},
        {"op": "new", "text": "today"},
    ]


def test_serve_binds_the_loopback_address_only(monkeypatch):
    import uvicorn

    from authorguard.cli.app import app

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda application, **options: seen.update(options))
    result = CliRunner().invoke(app, ["serve", "--port", "8999"])
    assert result.exit_code == 0, result.output
    assert seen["host"] == "127.0.0.1" and seen["port"] == 8999
    assert CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"]).exit_code == 2  # no such option


def _check(client, habits_world, **extra):
    known, mine, _, _ = habits_world
    body = {
        "text": mine,
        "known": "\n---\n".join(known),
        "sizes": [5, 10],
        "attackers": ["char-ngrams", "function-words"],
        **extra,
    }
    job = _wait_long(client, client.post("/api/check", json=body).json()["job"])
    assert job["state"] == "done", job
    return job["result"]


def _wait_long(client, job_id, seconds=120):
    for _ in range(int(seconds / 0.1)):
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["state"] in ("done", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError("the job did not finish")


def test_the_editor_and_the_rewrite_reuse_the_checks_attackers(habits_world):
    app = create_app(background=habits_world[3], methods=["dropout(rate=0.4)"])
    client = TestClient(app, base_url="http://127.0.0.1")
    result = _check(client, habits_world)
    session = app.state.sessions.get(result["session"])
    assert session.fits == 4 and "synthetic habits" in result["background"]
    assert result["genre_reason"] == "your own background file"
    assert all(item["spans"] and item["advice"] for item in result["evidence"])
    edited = habits_world[1].replace("!!", ".")
    again = client.post("/api/recheck", json={"session": result["session"], "text": edited})
    assert again.status_code == 200 and len(again.json()["rankings"]) == 4
    assert session.fits == 4  # nothing refitted for an edit
    job = _wait_long(
        client,
        client.post("/api/rewrite", json={"session": result["session"], "method": "dropout(rate=0.4)"}).json()["job"],
    )
    assert job["state"] == "done", job
    assert job["partial"]["rewrite"]["text"] == job["result"]["rewrites"][0]["text"]  # shown before its rankings
    assert {r["threat_model"] for r in job["result"]["rewrites"][0]["rankings"]} == {"static", "augmented"}
    assert session.fits == 4 + 2  # only the augmented attackers are new
    # the page sends the text as it stands in the box: the rewrite is of the edit, not of the text first checked
    job = _wait_long(
        client,
        client.post(
            "/api/rewrite", json={"session": result["session"], "method": "dropout(rate=0.4)", "text": edited}
        ).json()["job"],
    )
    diff = job["result"]["rewrites"][0]["diff"]
    assert " ".join(seg["text"] for seg in diff if seg["op"] != "new").split() == edited.split()
    empty = client.post("/api/rewrite", json={"session": result["session"], "method": "dropout(rate=0.4)", "text": " "})
    assert empty.status_code == 422 and empty.json()["detail"] == "the text is empty"
    normalised = client.post("/api/normalise", json={"text": "I CANT believe it!!!"}).json()
    assert normalised["text"] != "I CANT believe it!!!" and normalised["diff"]
    assert client.post("/api/recheck", json={"session": "nope", "text": "a b c"}).status_code == 404


def test_too_large_a_text_or_request_is_a_413_with_a_message():
    from authorguard.check.config import TEXT_LIMIT_WORDS
    from authorguard.check.web.app import MAX_REQUEST_BYTES

    client = TestClient(create_app(work=_fake_work, methods=[]), base_url="http://127.0.0.1")
    long = client.post("/api/check", json={"text": "word " * (TEXT_LIMIT_WORDS + 1), "known": "x"})
    assert long.status_code == 413 and "a check reads at most" in long.json()["detail"]
    huge = client.post("/api/check", json={"text": "a", "known": "x" * (MAX_REQUEST_BYTES + 10)})
    assert huge.status_code == 413 and "the page takes at most" in huge.json()["detail"]
    assert client.post("/api/normalise", json={"text": "word " * (TEXT_LIMIT_WORDS + 1)}).status_code == 413


def test_finished_jobs_and_checks_are_forgotten_after_their_time():
    from authorguard.check.web.jobs import JobRunner, SessionStore

    runner = JobRunner(ttl=0)
    client = TestClient(create_app(runner=runner, work=_fake_work, methods=[]), base_url="http://127.0.0.1")
    job_id = client.post("/api/check", json={"text": "three words here", "known": "x"}).json()["job"]
    for _ in range(100):
        if runner._jobs[job_id].finished is not None:
            break
        time.sleep(0.02)
    time.sleep(0.01)
    gone = client.get(f"/api/jobs/{job_id}")
    assert gone.status_code == 404 and "kept" in gone.json()["detail"]
    store = SessionStore(ttl=0)
    store.put("a", object())
    time.sleep(0.01)
    assert store.get("a") is None
    kept = SessionStore(keep=2)
    for key in "abc":
        kept.put(key, object())
    assert kept.get("a") is None and kept.get("c") is not None and len(kept) == 2


def test_the_server_survives_a_client_that_leaves_mid_check():
    import socket
    import threading

    import httpx

    from tests.check.web.conftest import running_server

    release = threading.Event()

    def slow(request, say):
        release.wait(10)
        return {"done": True}

    app = create_app(work=slow, methods=[])
    with running_server(app) as base:
        try:
            body = b'{"text": "a text", "known": "x"}'
            port = int(base.rsplit(":", 1)[1])
            with socket.create_connection(("127.0.0.1", port)) as client:  # starts a check, leaves without an answer
                client.sendall(
                    b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
                )
            for _ in range(50):
                if app.state.runner.busy():
                    break
                time.sleep(0.05)
            second = httpx.post(f"{base}/api/check", json={"text": "b", "known": "x"})
            assert second.status_code == 409 and "wait for it" in second.json()["detail"]  # refused, with a message
            release.set()
            for _ in range(100):
                if not app.state.runner.busy():
                    break
                time.sleep(0.05)
            job_id = httpx.post(f"{base}/api/check", json={"text": "c", "known": "x"}).json()["job"]
            assert _wait(httpx.Client(base_url=base), job_id)["state"] == "done"
        finally:
            release.set()


def test_generalise_endpoint_changes_the_words_asked_and_refuses_empty_text():
    client = TestClient(create_app(methods=["normalise"]), base_url="http://127.0.0.1")
    answer = client.post("/api/generalise", json={"text": "My poodle met Ching in Toronto.", "words": ["poodle"]})
    assert answer.status_code == 200
    body = answer.json()
    assert body["text"] == "My dog met Ching in Toronto." and body["changes"] == [["poodle", "dog"]]
    assert any(segment["op"] == "new" for segment in body["diff"])
    every = client.post("/api/generalise", json={"text": "My poodle met Ching in Toronto.", "words": [], "names": True})
    assert "Toronto" not in every.json()["text"]
    assert client.post("/api/generalise", json={"text": "  ", "words": []}).status_code == 422


def test_a_stopped_runner_ends_the_worker_processes_the_checks_keep_warm():
    import os
    import time

    from joblib import Parallel, delayed
    from joblib.externals.loky import reusable_executor

    from authorguard.check.web.jobs import JobRunner

    Parallel(n_jobs=2, backend="loky")(delayed(abs)(-i) for i in range(4))  # what a check's fitting starts
    workers = list(reusable_executor._executor._processes)
    assert workers

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # a zombie has ended
            return stat.read().split(")")[-1].split()[0] != "Z"

    JobRunner().shutdown()
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in workers)
