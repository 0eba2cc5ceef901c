"""Issue 27's hostile and broken inputs, each reproduced against a real `docauth serve` (gunicorn, loopback).

Every response of this file is collected: none may be a 5xx. Fault tests on model files and the batch
scanner are in test_reliability_faults.py; the Hypothesis run over image sizes and JSON in test_fuzz_hostile.py.
"""

from __future__ import annotations

import functools
import io
import logging
import random
import shutil
import socket
import sqlite3
import string
import threading
import time

import pytest

pytest.register_assert_rewrite("http_server")

from http_server import DocauthServer, assert_json_error, png_bytes

pytest_plugins = ["http_server"]  # the session-wide `server_session` fixture

RESPONSES: list[tuple[str, int]] = []  # (label, status) of every HTTP answer in this file


def _seen(label: str, response):
    RESPONSES.append((label, response.status_code))
    assert response.status_code < 500, f"{label}: {response.status_code} {response.text[:300]}"
    return response


@functools.lru_cache(maxsize=None)
def _png(width: int, height: int) -> bytes:
    """A real PNG of that size (uniform grey compresses to a few KB even when tall)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.new("L", (width, height), 200).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def _worker_rss(srv) -> int:
    import psutil

    return sum(psutil.Process(pid).memory_info().rss for pid in srv.worker_pids())


# -- 1. a tiny, very tall image ------------------------------------------------------------------
def test_tall_3kb_image_is_refused_at_once_without_memory_growth(server_session):
    srv = server_session
    data = _png(16, 20000)
    assert len(data) < 4096, len(data)
    before = _worker_rss(srv)
    for _ in range(3):
        start = time.monotonic()
        r = _seen("16x20000 /v1/ocr", srv.post("/v1/ocr", files={"image": ("s.png", data, "image/png")}))
        elapsed = time.monotonic() - start
        body = assert_json_error(r, (413, 422))
        assert body["error"]["code"] == "implausible_aspect_ratio", body
        assert elapsed < 1.0, f"answered in {elapsed:.2f} s"
    grown = _worker_rss(srv) - before
    assert grown < 200 * 2**20, f"workers grew by {grown / 2**20:.0f} MB"


@pytest.mark.parametrize("size", [(16, 5000), (65535, 16), (20000, 16), (16, 2_500_000)])
@pytest.mark.parametrize("path", ["/v1/ocr", "/v1/checks", "/v1/classify"])
def test_strips_that_asserted_in_cv2_resize_get_a_4xx(server_session, size, path):
    data = _png(*size)
    r = _seen(f"{size} {path}", server_session.post(path, files={"image": ("s.png", data, "image/png")}))
    assert_json_error(r, (413, 422))


# -- 2. JSON nested deeply, or with a lone surrogate -------------------------------------------------
DEEP = "[" * 2000 + "]" * 2000
DEEP_OBJECT = '{"a":' * 2000 + "1" + "}" * 2000


def _check(srv, form: dict):
    return srv.post("/v1/checks", files={"image": ("a.png", png_bytes(200, 120), "image/png")}, data=form)


@pytest.mark.parametrize("payload", [DEEP, DEEP_OBJECT], ids=["array", "object"])
def test_deep_json_is_400_on_every_json_input(server_session, payload):
    srv = server_session
    attempts = {
        "claimed": lambda: _check(srv, {"claimed": payload}),
        "person field": lambda: srv.post("/v1/persons", data={"person": payload}),
        "JSON body": lambda: srv.post("/v1/persons", data=payload, headers={"Content-Type": "application/json"}),
    }
    for label, attempt in attempts.items():
        body = assert_json_error(_seen(label, attempt()), (400,))
        assert body["error"]["code"] == "json_too_deep", (label, body)
    srv.assert_healthy()


def test_lone_surrogates_are_400_and_never_reach_the_database(server_session):
    srv = server_session
    before = srv.get("/v1/persons?limit=1000").json()["persons"]
    for label, attempt in {
        "JSON body": lambda: srv.post("/v1/persons", data='{"surname": "\\ud800"}',
                                      headers={"Content-Type": "application/json"}),
        "JSON body, key": lambda: srv.post("/v1/persons", data='{"surname": "A", "\\udfff": "x"}',
                                           headers={"Content-Type": "application/json"}),
        "person field": lambda: srv.post("/v1/persons", data={"person": '{"surname": "X\\udc00Y"}'}),
        "claimed": lambda: _check(srv, {"claimed": '{"surname": "\\ud83d"}'}),
        "invalid UTF-8 body": lambda: srv.post("/v1/persons", data=b'{"surname": "\xed\xa0\x80"}',
                                               headers={"Content-Type": "application/json"}),
    }.items():
        body = assert_json_error(_seen(label, attempt()), (400,))
        assert body["error"]["code"] in ("invalid_text", "invalid_json"), (label, body)
    assert srv.get("/v1/persons?limit=1000").json()["persons"] == before
    # a proper astral character (a surrogate pair in JSON) is text and is stored
    r = _seen("pair", srv.post("/v1/persons", data='{"surname": "EMOJI\\ud83d\\ude00"}',
                               headers={"Content-Type": "application/json"}))
    assert r.status_code == 201 and r.json()["surname"] == "EMOJI\U0001F600", r.text


def test_oversized_json_is_413(server_session):
    big = '{"surname": "' + "A" * 70_000 + '"}'
    r = _seen("70 kB JSON", server_session.post("/v1/persons", data=big, headers={"Content-Type": "application/json"}))
    assert assert_json_error(r, (413,))["error"]["code"] == "json_too_large"


# -- 6. gunicorn's own errors, metrics labels, Host echo -------------------------------------------
def _raw(srv, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as s:
        s.sendall(request)
        chunks = []
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("name,request_bytes,status", [
    ("414", b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    ("431", b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n", 431),
    ("431 long header", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"v" * 9000 + b"\r\n\r\n", 431),
    ("400 garbage", b"NOT HTTP AT ALL\r\n\r\n", 400),
    ("400 version", b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", 400),
    ("400 header", b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: v\r\n\r\n", 400),
])
def test_errors_gunicorn_answers_itself_are_json(server_session, name, request_bytes, status):
    import json

    answer = _raw(server_session, request_bytes)
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line = head.split(b"\r\n", 1)[0].decode()
    RESPONSES.append((name, int(status_line.split()[1])))
    assert status_line.split()[1] == str(status), answer[:300]
    assert b"content-type: application/json" in head.lower(), answer[:300]
    error = json.loads(body)["error"]
    assert error["code"] and error["message"], error
    assert b"<html" not in answer.lower()


def test_random_method_names_do_not_grow_the_metrics(server_session):
    srv = server_session
    rng = random.Random(27)

    def method() -> str:
        return "".join(rng.choice(string.ascii_uppercase) for _ in range(rng.randint(3, 12)))

    def series() -> set[str]:
        text = srv.get("/metrics").text
        return {line.rsplit(" ", 1)[0] for line in text.splitlines()
                if line.startswith("docauth_http_requests_total{") and 'endpoint="/metrics"' not in line}

    for _ in range(50):
        _seen("method", srv.request(method(), "/healthz", key=None))
    before = series()
    names = [method() for _ in range(400)]
    for name in names:
        _seen(name, srv.request(name, "/healthz", key=None))
    after = series()
    assert after == before, sorted(after - before)[:10]  # counts change, series do not
    assert any('method="other"' in s for s in after)
    assert not any(f'method="{n}"' in s for s in after for n in names)


def test_openapi_does_not_echo_the_host_header(server_session):
    r = _seen("openapi", server_session.get("/openapi.json", key=None, headers={"Host": "evil.example:666"}))
    assert r.status_code == 200
    assert "evil.example" not in r.text
    assert r.json()["servers"] == [{"url": "/"}]


def test_unexpected_errors_are_logged_once_by_type_without_their_message(tmp_path):
    """Fault injected: a view raising an unexpected error that quotes personal data (in-process app)."""
    from docauth.config import Settings
    from docauth.service.app import create_app

    settings = Settings.load(environ={}, data_dir=tmp_path)
    app = create_app(settings, load="lazy")

    @app.route("/boom")
    def boom():
        raise ValueError("surname ERIKSSON, born 1974-08-12")

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        r = app.test_client().get("/boom?name=ERIKSSON")
    finally:
        root.removeHandler(handler)
    assert r.status_code == 500 and r.get_json()["error"]["code"] == "internal_error"
    errors = [rec for rec in records if rec.levelno >= logging.ERROR]
    assert len(errors) == 1, [rec.getMessage() for rec in errors]
    line = errors[0].getMessage()
    assert "ValueError" in line and errors[0].exc_info is None, line
    everything = " ".join(rec.getMessage() for rec in records)
    assert "ERIKSSON" not in everything and "1974" not in everything, everything


# -- 5. readiness that tells the truth ------------------------------------------------------------------
@pytest.fixture(scope="module")
def db_server():
    with DocauthServer(workers=1, threads=4) as srv:
        yield srv


def _time_ready(srv, expect: int, within: float) -> float:
    start = time.monotonic()
    while True:
        r = srv.get("/readyz", key=None, timeout=10)
        RESPONSES.append(("readyz", r.status_code))
        elapsed = time.monotonic() - start
        if r.status_code == expect:
            return elapsed
        assert elapsed < within, f"/readyz still {r.status_code} after {elapsed:.1f} s: {r.text[:200]}"
        time.sleep(0.1)


def test_readyz_503_while_the_database_is_locked_and_keys_fail_fast(db_server):
    srv = db_server
    assert _time_ready(srv, 200, 5) < 5
    lock = sqlite3.connect(srv.data_dir / "docauth.sqlite3", timeout=5, isolation_level=None)
    try:
        lock.execute("BEGIN EXCLUSIVE")
        start = time.monotonic()
        r = srv.get("/readyz", key=None, timeout=10)
        elapsed = time.monotonic() - start
        RESPONSES.append(("readyz locked", r.status_code))
        body = assert_json_error(r, (503,))
        assert elapsed < 2.0, f"/readyz took {elapsed:.2f} s"
        assert "database" in body["error"]["message"].lower() and r.headers.get("Retry-After"), body
        # key lookups need the database: a 503 at once from each of 8 concurrent requests, not a 30 s queue
        results = []

        def classify():
            t = time.monotonic()
            resp = srv.post("/v1/classify", files={"image": ("a.png", png_bytes(200, 120), "image/png")}, timeout=60)
            results.append((resp.status_code, time.monotonic() - t))

        threads = [threading.Thread(target=classify) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        RESPONSES.extend(("classify locked", s) for s, _ in results)
        assert all(s == 503 for s, _ in results), results
        assert max(t for _, t in results) < 10, results  # 8 requests, 4 threads, ~1 s each at worst
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert _time_ready(srv, 200, 5) < 5
    assert srv.worker_pids() and srv.alive()


def test_readyz_503_while_the_database_file_is_gone_then_200_without_restart(db_server):
    srv = db_server
    workers = srv.worker_pids()
    db = srv.data_dir / "docauth.sqlite3"
    aside = srv.data_dir / "moved-away.sqlite3"
    shutil.move(db, aside)
    try:
        assert _time_ready(srv, 503, 2.0) < 2.0
        r = srv.get("/v1/persons")
        RESPONSES.append(("persons while gone", r.status_code))
        assert_json_error(r, (503,))
        assert not db.exists(), "a probe created an empty database in its place"
    finally:
        shutil.move(aside, db)
    assert _time_ready(srv, 200, 5) < 5
    assert _seen("persons back", srv.get("/v1/persons")).status_code == 200
    assert srv.worker_pids() == workers  # recovered without a restart


def test_no_response_in_this_file_was_a_server_error():
    assert RESPONSES, "the tests above ran no request"
    assert [r for r in RESPONSES if r[1] >= 500 and r[0] not in ("readyz", "readyz locked", "classify locked",
                                                                  "persons while gone")] == []
    assert all(s in (200, 503) for label, s in RESPONSES if label.startswith(("readyz", "classify locked")))
