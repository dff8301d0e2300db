"""The local server: loopback only, the page has no external requests, jobs report progress and results."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from authorguard.web.app import create_app, word_diff  # noqa: E402


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
    assert "<textarea id=\"text\"" in page and "http://" not in page and "https://" not in page
    assert "<script src" not in page and "<link" not in page


def test_a_job_reports_progress_and_its_result_or_one_line():
    client = TestClient(create_app(work=_fake_work, methods=["dropout"]), base_url="http://127.0.0.1")
    job = _wait(client, client.post("/api/check", json={"text": "three words here", "known": "x"}).json()["job"])
    assert job["state"] == "done" and job["result"] == {"words": 3} and job["progress"] == ["counting"]
    failed = _wait(client, client.post("/api/check", json={"text": "fail", "known": "x"}).json()["job"])
    assert failed["state"] == "failed" and failed["error"] == "the known writing is empty"
    assert client.post("/api/check", json={"text": "  ", "known": "x"}).status_code == 422
    assert client.post("/api/check", json={"text": "a", "methods": ["tarot"]}).json()["detail"] == \
        "method 'tarot' is not offered here"
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
    assert segments == [{"op": "same", "text": "the"}, {"op": "gone", "text": "cat"}, {"op": "new", "text": "dog"},
                        {"op": "same", "text": "sat on the mat"}, {"op": "new", "text": "today"}]


def test_serve_binds_the_loopback_address_only(monkeypatch):
    import uvicorn

    from authorguard.cli.app import app

    seen = {}
    monkeypatch.setattr(uvicorn, "run", lambda application, **options: seen.update(options))
    result = CliRunner().invoke(app, ["serve", "--port", "8999"])
    assert result.exit_code == 0, result.output
    assert seen["host"] == "127.0.0.1" and seen["port"] == 8999
    assert CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"]).exit_code == 2  # no such option
