"""Access control and data protection, against the real server.

* every ``/v1`` route of the app's url_map refuses requests without a valid key
  (routes are enumerated, so a new endpoint is covered without editing this file);
* revoked keys stop working at once; a per-key rate limit answers 429 + Retry-After;
* no personal data reaches the logs; check records keep scores and reasons only;
* uploads are not written to disk unless ``DOCAUTH_STORE_UPLOADS`` is set, and no
  temporary file is left behind.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.register_assert_rewrite("http_server", "bad_inputs")

from http_server import DocauthServer, assert_json_error, png_bytes

pytest_plugins = ["http_server"]

# Routes outside /v1 that are public on purpose; anything else outside /v1 fails the test.
PUBLIC_ROUTES = {"/healthz", "/readyz", "/metrics", "/openapi.json", "/", "/static/<path:filename>"}


def _app_rules():
    from docauth.config import Settings
    from docauth.service.app import create_app

    app = create_app(Settings.load(environ={}), load="lazy")
    return [(rule.rule, sorted(rule.methods - {"HEAD", "OPTIONS"})) for rule in app.url_map.iter_rules()]


def _concrete(rule: str) -> str:
    def fill(m):
        kind = m.group(1) or "string"
        return "1" if kind == "int" else "x"

    return re.sub(r"<(?:([a-z]+)(?:\([^)]*\))?:)?[a-z_]+>", fill, rule)


def test_no_v1_route_answers_without_a_valid_key(server_session):
    srv = server_session
    rules = _app_rules()
    v1 = [(rule, methods) for rule, methods in rules if rule.startswith("/v1")]
    assert len(v1) >= 6, v1  # checks, classify, ocr, persons x4, runtime
    others = {rule for rule, _ in rules if not rule.startswith("/v1")}
    assert others <= PUBLIC_ROUTES, f"routes outside /v1 must be reviewed for access: {others - PUBLIC_ROUTES}"
    bad_credentials = [
        {},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer dak_" + "A" * 43},
        {"Authorization": f"Basic {srv.key}"},
        {"Authorization": f"Bearer {srv.key}x"},
        {"Authorization": f"Bearer {srv.key[:-1]}"},
        {"X-API-Key": "dak_wrong"},
        {"X-API-Key": "' OR 1=1 --"},
        {"X-API-Key": "é" * 50},
        {"X-API-Key": "k" * 5000},
    ]
    checked = 0
    for rule, methods in v1:
        path = _concrete(rule)
        for method in methods:
            for headers in bad_credentials:
                r = srv.request(method, path, key=None, headers=headers, files={"image": ("a.png", png_bytes(), "image/png")}
                                if method == "POST" else None)
                body = assert_json_error(r, (401,))
                assert body["error"]["code"] in ("missing_api_key", "invalid_api_key"), body
                assert r.headers.get("WWW-Authenticate", "").startswith("Bearer")
                checked += 1
            # a key in the query string or a cookie is not a key
            r = srv.request(method, f"{path}?api_key={srv.key}&key={srv.key}", key=None,
                            cookies={"api_key": srv.key, "session": srv.key})
            assert r.status_code == 401, (method, path, r.status_code)
    assert checked >= len(v1) * len(bad_credentials)


@pytest.mark.parametrize("path", ["//v1/persons", "/v1//persons", "/v1/./persons", "/v1/persons/../persons",
                                  "/%76%31/persons", "/v1%2Fpersons", "/V1/persons", "/v1/persons/", "/v1/persons%00"])
def test_path_tricks_do_not_bypass_auth(server_session, path):
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", server_session.port, timeout=30)
    conn.request("GET", path)  # sent verbatim, not normalised by a client library
    r = conn.getresponse()
    body = r.read().decode(errors="replace")
    conn.close()
    assert r.status in (301, 302, 307, 308, 400, 401, 404), (path, r.status, body[:200])
    assert '"persons"' not in body, (path, body[:200])


def test_valid_key_works_both_headers(server_session):
    srv = server_session
    assert srv.get("/v1/persons", key=None, headers={"Authorization": f"Bearer {srv.key}"}).status_code == 200
    assert srv.get("/v1/persons", key=None, headers={"Authorization": f"bearer {srv.key}"}).status_code == 200
    assert srv.get("/v1/persons", key=None, headers={"X-API-Key": srv.key}).status_code == 200


def test_keys_revoked_with_the_cli_stop_working_at_once(server_session):
    srv = server_session
    key_id, key = srv.create_key("to-revoke", with_cli=True)
    assert srv.get("/v1/persons", key=key).status_code == 200
    out = srv.cli("keys", "revoke", str(key_id))
    assert out.returncode == 0, out.stderr
    r = srv.get("/v1/persons", key=key)
    assert assert_json_error(r, (401,))["error"]["code"] == "invalid_api_key"
    assert srv.get("/v1/persons").status_code == 200  # other keys unaffected
    listing = srv.cli("keys", "list")
    assert "revoked" in listing.stdout and key not in listing.stdout
    # keys are stored hashed: the database file never holds the key itself
    raw = (srv.data_dir / "docauth.sqlite3").read_bytes()
    assert key.encode() not in raw and srv.key.encode() not in raw


# -- rate limit, overload, stored uploads: one server with tight limits -------------------------
@pytest.fixture(scope="module")
def limited_server():
    env = {"DOCAUTH_RATE_LIMIT_PER_MINUTE": 60, "DOCAUTH_MAX_INFLIGHT_CHECKS": 1, "DOCAUTH_STORE_UPLOADS": 1}
    with DocauthServer(workers=1, threads=8, env=env) as srv:
        yield srv


def test_per_key_rate_limit(limited_server):
    srv = limited_server
    _, key_a = srv.create_key("a")
    _, key_b = srv.create_key("b")
    statuses = []
    limited = None
    for _ in range(25):  # 60/min allows a burst of 10
        r = srv.get("/v1/persons?limit=1", key=key_a)
        statuses.append(r.status_code)
        if r.status_code == 429:
            limited = r
    assert statuses[:5] == [200] * 5, statuses
    assert limited is not None, statuses
    assert set(statuses) <= {200, 429}
    body = assert_json_error(limited, (429,))
    assert body["error"]["code"] == "rate_limited"
    retry_after = int(limited.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    assert srv.get("/v1/persons?limit=1", key=key_b).status_code == 200  # per key, not global
    time.sleep(retry_after + 0.2)
    assert srv.get("/v1/persons?limit=1", key=key_a).status_code == 200  # the bucket refills


def test_overload_answers_503_with_retry_after_not_timeouts(limited_server):
    srv = limited_server
    keys = [srv.create_key(f"load{i}")[1] for i in range(12)]  # one key each: the rate limit is not the point
    from bad_inputs import generated_inputs

    image = generated_inputs()["valid_jpeg"][0]

    def one(key):
        start = time.perf_counter()
        r = srv.post("/v1/ocr", key=key, files={"image": ("a.jpg", image, "image/jpeg")}, timeout=60)
        return r.status_code, r.headers.get("Retry-After"), r.text, time.perf_counter() - start

    with ThreadPoolExecutor(len(keys)) as pool:
        results = list(pool.map(one, keys))
    statuses = [s for s, *_ in results]
    assert 200 in statuses, statuses
    assert 503 in statuses, f"12 concurrent requests against a limit of 1 were all served: {statuses}"
    for status, retry_after, text, elapsed in results:
        assert status in (200, 503), (status, text[:200])
        if status == 503:
            assert json.loads(text)["error"]["code"] == "overloaded"
            assert retry_after is not None and int(retry_after) >= 1
            assert elapsed < 10, f"a refusal took {elapsed:.1f}s; overload must answer at once"
    srv.assert_healthy()


def test_uploads_kept_only_when_configured(limited_server, server_session):
    # configured (limited_server has DOCAUTH_STORE_UPLOADS=1): the upload is kept, by request id
    srv = limited_server
    r = srv.post("/v1/checks", files={"image": ("a.png", png_bytes(200, 120), "image/png")})
    assert r.status_code == 200, r.text[:300]
    kept = list((srv.data_dir / "uploads").rglob("*"))
    assert any(p.is_file() and p.stat().st_size > 0 for p in kept), kept
    # default server: nothing under the data dir or TMPDIR besides the database
    default = server_session
    before = _files(default)
    big = png_bytes(1800, 1200)  # > 500 kB: Werkzeug would spool this to a temporary file
    for path in ("/v1/checks", "/v1/classify", "/v1/ocr"):
        r = default.post(path, files={"image": ("a.png", big, "image/png")}, timeout=120)
        assert r.status_code == 200, (path, r.text[:300])
    r = default.post("/v1/persons", files={"photo": ("p.png", big, "image/png")}, data={"surname": "NOFACE"})
    assert r.status_code < 500
    after = _files(default)
    assert not (default.data_dir / "uploads").exists()
    assert after == before, f"new files: {sorted(set(after) - set(before))}"


def _files(srv) -> set:
    found = set()
    for root in (srv.data_dir, srv.tmp_dir):
        for p in root.rglob("*"):
            if p.is_file() and not p.name.startswith("docauth.sqlite3") and "metrics-" not in str(p):
                found.add(str(p))
    return found


# -- personal data ------------------------------------------------------------------------------
PERSON = {"surname": "QUIXLEYWORTH", "given_names": "ZEPHYRINA MARGOLD", "date_of_birth": "1971-03-14",
          "document_number": "ZQ7319846", "nationality": "UTO", "sex": "F", "external_ref": "BANKREF-55519"}
TRACES = ["QUIXLEYWORTH", "Quixleyworth", "ZEPHYRINA", "MARGOLD", "1971-03-14", "710314", "14.03.1971",
          "ZQ7319846", "BANKREF-55519"]


def test_personal_data_never_in_logs_and_check_records_keep_scores_only(server_session):
    srv = server_session
    log_start = len(srv.log_text())
    r = srv.post("/v1/persons", json=PERSON)
    assert r.status_code == 201, r.text[:300]
    person_id = r.json()["id"]
    image = png_bytes(320, 200)
    for form in ({"person_id": str(person_id)}, {"claimed": json.dumps(PERSON)}):
        r = srv.post("/v1/checks", files={"image": ("QUIXLEYWORTH-1971-03-14.png", image, "image/png")}, data=form)
        assert r.status_code == 200, r.text[:300]
    srv.get(f"/v1/persons/{person_id}")
    srv.get(f"/v1/persons?limit=5&q={PERSON['surname']}")
    # refusals that quote values back to the client must not log them either
    srv.post("/v1/persons", json={**PERSON, "sex": "QUIXLEYWORTH"})
    srv.post("/v1/checks", files={"image": ("a.png", image, "image/png")},
             data={"person_id": "QUIXLEYWORTH", "claimed": "{QUIXLEYWORTH"})
    srv.delete(f"/v1/persons/{person_id}")
    time.sleep(0.5)
    log = srv.log_text()[log_start:]
    assert "POST /v1/checks" in log  # the access log is there, so its absence of data means something
    leaked = [t for t in TRACES if t.lower() in log.lower()]
    assert not leaked, f"personal data in the server log: {leaked}\n{log[-2000:]}"
    # the check records: scores and reason codes, nothing the person could be identified by
    db = sqlite3.connect(srv.data_dir / "docauth.sqlite3")
    try:
        tables = [t for (t,) in db.execute("select name from sqlite_master where type='table'")]
        check_tables = [t for t in tables if "check" in t.lower()]
        assert check_tables, tables
        rows = []
        for t in check_tables:
            rows += [json.dumps(row, default=str) for row in db.execute(f'select * from "{t}"')]
    finally:
        db.close()
    assert rows, "no check record was written"
    text = "\n".join(rows).lower()
    leaked = [t for t in TRACES if t.lower() in text]
    assert not leaked, f"personal data in check records: {leaked}"
