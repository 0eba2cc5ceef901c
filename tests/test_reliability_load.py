"""Load on loopback, bounded in count and time, with the client of bench/load_test.py.

* ``POST /v1/checks`` at concurrency 1, 8 and 32: zero errors (no 5xx, no timeouts,
  no dropped connections);
* resident memory of the server (master + workers) after 2,000 checks is within
  10% of its memory after 200: no leak per request.

Latency numbers are not asserted (speed targets live in docs/benchmarks.md,
written by ``bench/load_test.py``); only correctness under load is.
Overload (503 + Retry-After at once) is tested in test_security_access.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.register_assert_rewrite("http_server", "bad_inputs")

pytest_plugins = ["http_server"]  # the session-wide `server_session` fixture

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import load_test  # noqa: E402  (bench/load_test.py)


@pytest.fixture(scope="module")
def check_body():
    return load_test.multipart({}, {"image": ("scene.jpg", load_test.scene_image(), "image/jpeg")})


def test_concurrency_1_8_32_zero_errors(server_session, check_body):
    client = load_test.Client(server_session.url, server_session.key)
    body, ctype = check_body
    for concurrency in (1, 8, 32):
        result = load_test.run_level(client, "/v1/checks", body, ctype, concurrency=concurrency, requests=64,
                                     max_seconds=240).export()
        assert result["errors"] == 0 and result["ok"] == 64, result
    server_session.assert_healthy()


def test_memory_after_2000_checks_within_10_percent_of_200(server_session, check_body):
    client = load_test.Client(server_session.url, server_session.key)
    body, ctype = check_body
    report = load_test.memory_growth(client, server_session, body, ctype, first=200, total=2000, concurrency=8)
    assert report["errors"] == 0, report
    assert report["growth_pct"] <= 10.0, f"resident memory grew {report['growth_pct']}%: {report}"
