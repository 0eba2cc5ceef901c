"""Schema-driven fuzzing of the HTTP API from its own ``/openapi.json`` (Schemathesis), bounded.

Schemathesis generates valid and invalid requests for every operation in the
spec the server publishes and checks: no 5xx, status codes and content types
that the spec declares, and JSON bodies that match the declared schemas. A
fixed seed and a small ``--max-examples`` keep it reproducible and to about a
minute; it gets its own API key.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.register_assert_rewrite("http_server", "bad_inputs")

pytest_plugins = ["http_server"]

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


def _st() -> list[str]:
    exe = Path(sys.executable).with_name("st")
    if exe.exists():
        return [str(exe)]
    if shutil.which("st"):
        return ["st"]
    pytest.skip("schemathesis is not installed (requirements/extra.txt)")


def test_openapi_spec_lists_every_route(server_session):
    spec = server_session.get("/openapi.json", key=None).json()
    assert spec["openapi"].startswith("3.")
    published = {(path, method.upper()) for path, ops in spec["paths"].items() for method in ops}
    for required in [("/v1/checks", "POST"), ("/v1/classify", "POST"), ("/v1/ocr", "POST"), ("/v1/persons", "POST"),
                     ("/v1/persons", "GET"), ("/v1/persons/{person_id}", "GET"),
                     ("/v1/persons/{person_id}", "DELETE")]:
        assert required in published, required
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if path.startswith("/v1"):
                assert op.get("security"), f"{method.upper()} {path} is not declared as authenticated"
                assert "401" in op["responses"], f"{method.upper()} {path} does not declare 401"


def test_schemathesis_finds_no_server_errors(server_session, tmp_path):
    srv = server_session
    _, key = srv.create_key("schemathesis")
    report = tmp_path / "report.json"
    cmd = [*_st(), "run", f"{srv.url}/openapi.json",
           "-H", f"Authorization: Bearer {key}",
           "--checks", CHECKS,
           "--max-examples", "10", "--seed", "20261122", "--generation-database", "none", "--no-shrink",
           "--phases", "examples,coverage,fuzzing", "--workers", "1",
           "--request-timeout", "60",
           "--report", "json", "--report-json-path", str(report), "--no-color"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=400, cwd=tmp_path)
    summary = out.stdout[-6000:]
    assert out.returncode == 0, f"schemathesis found problems:\n{summary}\n{out.stderr[-2000:]}"
    assert "Traceback" not in srv.log_text()[-200_000:]
    srv.assert_healthy()
    if report.exists():
        data = json.loads(report.read_text())
        assert data, "empty schemathesis report"
