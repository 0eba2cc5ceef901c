"""End to end: the real ``docauth serve`` (gunicorn) on loopback with the shipped models and SQLite,
a key from ``docauth keys create``, a person enrolled with a photo, synthetic documents photographed
phone-style. One server for the whole module (the review page's browser test, tests/test_service_review.py,
drives the same page the server serves here)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from docauth.config import default_models_dir
from docauth.imageio import encode_jpeg, encode_png
from pipeline_support import ASTRONAUT_PERSON, OTHER_PERSON, astronaut_portrait, document_of, free_port

ROOT = Path(__file__).resolve().parent.parent
DOCAUTH = ROOT / ".venv" / "bin" / "docauth"
MODELS = ("document", "side", "mrz_lines")
# A phone capture of an ID card front that the shipped models read whole (the phone style varies scale,
# blur, glare and rotation per seed; OCR of printed fields is the weakest stage, see docs/benchmarks.md).
DOC_SEED, DOC_KIND = 8, "td1_front"

pytestmark = pytest.mark.slow


def _models_present() -> bool:
    return all((default_models_dir() / f"{m}.json").is_file() for m in MODELS)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    if not _models_present():
        pytest.skip("the shipped models are not in models/ yet")
    data = tmp_path_factory.mktemp("e2e-data")
    env = dict(os.environ, DOCAUTH_DATA_DIR=str(data), OMP_THREAD_LIMIT="1", TF_CPP_MIN_LOG_LEVEL="2")
    key = subprocess.run([str(DOCAUTH), "keys", "create", "--name", "e2e"], env=env, capture_output=True,
                         text=True, timeout=120)
    assert key.returncode == 0, key.stderr
    api_key = key.stdout.strip().splitlines()[-1]
    assert api_key.startswith("dak_") and " " not in api_key
    port = free_port()
    log_path = data / "server.log"
    log = open(log_path, "w")
    proc = subprocess.Popen([str(DOCAUTH), "serve", "--port", str(port), "--workers", "1"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    try:
        while time.monotonic() - started < 240:
            if proc.poll() is not None:
                pytest.fail("server exited:\n" + log_path.read_text()[-4000:])
            try:
                if requests.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):
                pass
            time.sleep(0.5)
        else:
            pytest.fail("server not ready in 240 s:\n" + log_path.read_text()[-4000:])
        yield {"url": url, "key": api_key, "log": log_path, "env": env}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def H(live):
    return {"Authorization": "Bearer " + live["key"]}


@pytest.fixture(scope="module")
def enrolled(live):
    import skimage.data

    r = requests.post(live["url"] + "/v1/persons", headers=H(live), data=ASTRONAUT_PERSON,
                      files=[("photo", ("astronaut.png", io.BytesIO(encode_png(skimage.data.astronaut()))))])
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture(scope="module")
def own_document(tmp_path_factory):
    path = tmp_path_factory.mktemp("docs") / "own.png"  # the capture already carries its JPEG-like noise
    path.write_bytes(encode_png(document_of(ASTRONAUT_PERSON, astronaut_portrait(), seed=DOC_SEED, kind=DOC_KIND)))
    return path


def check(live, image_bytes, person_id=None):
    data = {"person_id": str(person_id)} if person_id else {}
    r = requests.post(live["url"] + "/v1/checks", headers=H(live), data=data,
                      files={"image": ("doc.jpg", io.BytesIO(image_bytes))}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def test_own_document_is_accepted(live, enrolled, own_document):
    result = check(live, own_document.read_bytes(), enrolled["id"])
    assert result["decision"] == "accept", json.dumps(result, indent=1)[:3000]
    assert result["document"]["is_document"] is True
    assert result["stages"]["face"]["output"]["match"] is True
    assert result["stages"]["text"]["output"]["match"] is True
    assert set(result["timings_ms"]) >= {"classify", "ocr", "face", "text", "total"}


def test_someone_elses_document_is_rejected(live, enrolled):
    image = encode_jpeg(document_of(OTHER_PERSON, None, seed=13), 92)
    result = check(live, image, enrolled["id"])
    assert result["decision"] == "reject", json.dumps(result, indent=1)[:3000]
    codes = {r["code"] for r in result["reasons"]}
    assert codes & {"face_mismatch", "name_mismatch"}, codes


def test_a_selfie_is_not_a_document(live, enrolled):
    import skimage.data

    result = check(live, encode_jpeg(skimage.data.astronaut(), 90), enrolled["id"])
    assert result["decision"] == "reject"
    assert [r["code"] for r in result["reasons"]] == ["not_a_document"]
    assert result["stages"]["ocr"]["status"] == "skipped"


def test_service_surface(live, enrolled):
    r = requests.get(live["url"] + "/v1/runtime", headers=H(live))
    assert r.status_code == 200 and r.json()["ready"] is True and r.json()["mode"] == "realtime"
    assert r.headers["X-Request-ID"]
    metrics = requests.get(live["url"] + "/metrics").text
    assert 'docauth_stage_duration_seconds_count{stage="ocr"}' in metrics
    assert 'docauth_http_requests_total{endpoint="/v1/checks",method="POST",status="200"}' in metrics
    assert requests.get(live["url"] + "/v1/persons").status_code == 401
    log = live["log"].read_text()
    assert "ready: pipeline loaded and warmed" in log
    for personal in (ASTRONAUT_PERSON["surname"], ASTRONAUT_PERSON["document_number"], "1956-11-19"):
        assert personal not in log
