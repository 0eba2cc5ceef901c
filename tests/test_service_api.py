"""The HTTP machinery over real HTTP on loopback: keys, errors, limits, request ids, metrics, OpenAPI,
persons, readiness. The app is built by the real factory around a pipeline with real face matching,
text matching and a temporary SQLite store (the classifier is the stand-in; see pipeline_support)."""

from __future__ import annotations

import io
import json
import logging
import re
import threading
import time

import numpy as np
import pytest
import requests

from docauth.config import Settings
from docauth.imageio import encode_jpeg, encode_png
from docauth.pipeline import DecisionPolicy, Pipeline, Thresholds
from docauth.pipeline.faces import FaceStage
from docauth.pipeline.loaders import load_text_matcher
from docauth.service.app import create_app
from pipeline_support import ASTRONAUT_PERSON, RuleClassifier, serve_in_thread


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("svc"), max_upload_bytes=2_000_000,
                         max_image_pixels=5_000_000, rate_limit_per_minute=100_000)


@pytest.fixture(scope="module")
def store(settings):
    from docauth.store import Store

    s = Store.from_settings(settings)
    s.upgrade()
    yield s
    s.close()


@pytest.fixture(scope="module")
def faces():
    return FaceStage.load()


def _pipeline(settings, store, faces, classifier=None):
    return Pipeline(classifier=classifier or RuleClassifier(), reader=None, faces=faces,
                    text_matcher=load_text_matcher(settings), store=store,
                    policy=DecisionPolicy.from_settings(settings), thresholds=Thresholds.from_settings(settings))


@pytest.fixture(scope="module")
def server(settings, store, faces):
    app = create_app(settings, store=store, pipeline=_pipeline(settings, store, faces))
    with serve_in_thread(app) as url:
        yield url


@pytest.fixture(scope="module")
def key(store):
    _, key = store.create_api_key("tests")
    return key


def auth(key):
    return {"Authorization": f"Bearer {key}"}


def png(pixels=None):
    if pixels is None:
        pixels = np.full((300, 500, 3), 200, np.uint8)
    return io.BytesIO(encode_png(pixels))


def assert_json_error(r, status, code=None):
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"])
    if code:
        assert body["error"]["code"] == code
    assert r.headers.get("X-Request-ID")


# -- keys -------------------------------------------------------------------------------------------
def test_every_v1_endpoint_needs_a_key(server, key):
    for method, path in [("post", "/v1/checks"), ("post", "/v1/classify"), ("post", "/v1/ocr"),
                         ("get", "/v1/persons"), ("post", "/v1/persons"), ("get", "/v1/persons/1"),
                         ("delete", "/v1/persons/1"), ("get", "/v1/runtime"), ("get", "/v1/nothing-here")]:
        r = getattr(requests, method)(server + path)
        assert_json_error(r, 401, "missing_api_key")
        r = getattr(requests, method)(server + path, headers={"Authorization": "Bearer dak_wrong" + "x" * 40})
        assert_json_error(r, 401, "invalid_api_key")


def test_bearer_and_x_api_key_both_work_and_revocation_is_immediate(server, store):
    record, key = store.create_api_key("to-revoke")
    assert requests.get(server + "/v1/persons", headers=auth(key)).status_code == 200
    assert requests.get(server + "/v1/persons", headers={"X-API-Key": key}).status_code == 200
    store.revoke_api_key(record.id)
    assert_json_error(requests.get(server + "/v1/persons", headers=auth(key)), 401, "invalid_api_key")


def test_rate_limit_answers_429_with_retry_after(settings, store, faces):
    limited = Settings.load(environ={}, data_dir=settings.data_dir, rate_limit_per_minute=6)  # burst of 1
    app = create_app(limited, store=store, pipeline=_pipeline(limited, store, faces))
    _, key = store.create_api_key("limited")
    with serve_in_thread(app) as url:
        first = requests.get(url + "/v1/persons", headers=auth(key))
        second = requests.get(url + "/v1/persons", headers=auth(key))
    assert first.status_code == 200
    assert_json_error(second, 429, "rate_limited")
    assert int(second.headers["Retry-After"]) >= 1


# -- errors are JSON everywhere -------------------------------------------------------------------
def test_unknown_route_and_wrong_method_are_json(server, key):
    assert_json_error(requests.get(server + "/nothing"), 404, "not_found")
    assert_json_error(requests.delete(server + "/healthz"), 405, "method_not_allowed")
    assert_json_error(requests.put(server + "/v1/checks", headers=auth(key)), 405)


def test_upload_over_the_limit_is_413_json(server, key):
    big = io.BytesIO(b"\xff\xd8\xff" + b"0" * 2_100_000)
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("big.jpg", big)})
    assert_json_error(r, 413, "payload_too_large")


def test_pixel_limit_and_content_sniffing(server, key):
    huge = np.zeros((2500, 2500, 3), np.uint8)  # 6.25 MP > 5 MP limit, small as PNG
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", png(huge))})
    assert_json_error(r, 413, "image_too_large")
    r = requests.post(server + "/v1/checks", headers=auth(key),
                      files={"image": ("doc.jpg", io.BytesIO(b"<html>not an image</html>"), "image/jpeg")})
    assert_json_error(r, 415, "unsupported_media_type")
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", io.BytesIO(b""))})
    assert_json_error(r, 400, "empty_file")
    corrupt = b"\x89PNG\r\n\x1a\n" + bytes(np.random.default_rng(0).integers(0, 255, 3000, dtype=np.uint8))
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", io.BytesIO(corrupt))})
    assert_json_error(r, 422, "invalid_image")


def test_bad_form_fields_are_400(server, key):
    r = requests.post(server + "/v1/checks", headers=auth(key), data={"person_id": "1"})
    assert_json_error(r, 400, "missing_image")
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", png())},
                      data={"claimed": "{not json"})
    assert_json_error(r, 400, "invalid_json")
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", png())},
                      data={"person_id": "abc"})
    assert_json_error(r, 400, "invalid_person_id")
    r = requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", png())},
                      data={"person_id": "99999"})
    assert_json_error(r, 404, "person_not_found")
    r = requests.post(server + "/v1/checks", headers={**auth(key), "Content-Type": "application/json"}, data="{}")
    assert_json_error(r, 400, "expected_multipart")


# -- request ids, logs --------------------------------------------------------------------------------
def test_request_id_is_echoed_or_made_and_logged_without_personal_data(server, key, caplog):
    r = requests.get(server + "/healthz", headers={"X-Request-ID": "abc-123"})
    assert r.headers["X-Request-ID"] == "abc-123"
    r = requests.get(server + "/healthz", headers={"X-Request-ID": "bad id with spaces\u00e9"})
    assert r.headers["X-Request-ID"] != "bad id with spaces" and len(r.headers["X-Request-ID"]) == 32
    with caplog.at_level(logging.INFO, logger="docauth.service"):
        r = requests.post(server + "/v1/persons", headers={**auth(key), "X-Request-ID": "req-enrol-1"},
                          data={"surname": "ZYXWVUTS", "given_names": "SECRETNAME", "date_of_birth": "1961-02-03"})
        assert r.status_code == 201
        pid = r.json()["id"]
        requests.get(server + f"/v1/persons/{pid}", headers={**auth(key), "X-Request-ID": "req-get-1"})
    # the app's own lines (the test harness's Werkzeug server logs raw paths; gunicorn's access log is off)
    lines = [(rec.request_id, rec.getMessage()) for rec in caplog.records if rec.name.startswith("docauth")]
    assert any(rid == "req-enrol-1" and "/v1/persons -> 201" in msg for rid, msg in lines), lines
    text = "\n".join(msg for _, msg in lines)
    for personal in ("ZYXWVUTS", "SECRETNAME", "1961-02-03", f"/v1/persons/{pid} "):
        assert personal not in text


# -- persons, checks -----------------------------------------------------------------------------------
def test_person_enrol_get_list_delete(server, key):
    import skimage.data

    form = {"person": json.dumps({k: ASTRONAUT_PERSON[k] for k in ("surname", "given_names", "date_of_birth")})}
    r = requests.post(server + "/v1/persons", headers=auth(key), data=form,
                      files=[("photo", ("a.png", io.BytesIO(encode_png(skimage.data.astronaut()))))])
    assert r.status_code == 201, r.text
    person = r.json()
    assert person["n_face_templates"] == 1 and person["surname"] == ASTRONAUT_PERSON["surname"]
    got = requests.get(server + f"/v1/persons/{person['id']}", headers=auth(key)).json()
    assert got["id"] == person["id"]
    listed = requests.get(server + "/v1/persons?limit=1000", headers=auth(key)).json()["persons"]
    assert person["id"] in [p["id"] for p in listed]
    assert requests.delete(server + f"/v1/persons/{person['id']}", headers=auth(key)).status_code == 204
    assert_json_error(requests.get(server + f"/v1/persons/{person['id']}", headers=auth(key)), 404)
    assert_json_error(requests.delete(server + f"/v1/persons/{person['id']}", headers=auth(key)), 404)


def test_enrolment_photo_without_a_face_is_refused_and_nothing_is_written(server, key, store):
    before = store.count_persons()
    r = requests.post(server + "/v1/persons", headers=auth(key), data={"surname": "NOFACE"},
                      files=[("photo", ("p.jpg", io.BytesIO(encode_jpeg(np.full((200, 200, 3), 90, np.uint8)))))])
    assert 400 <= r.status_code < 500 and r.json()["error"]["code"] == "no_face"
    assert store.count_persons() == before
    assert_json_error(requests.post(server + "/v1/persons", headers=auth(key), data={"given_names": "X"}), 400)
    r = requests.get(server + "/v1/persons?limit=0", headers=auth(key))
    assert_json_error(r, 400, "invalid_query")


def test_check_with_claimed_fields_and_classify(server, key):
    import skimage.data

    r = requests.post(server + "/v1/checks", headers=auth(key),
                      files={"image": ("selfie.png", io.BytesIO(encode_png(skimage.data.astronaut())))},
                      data={"claimed": json.dumps({"surname": "DOE"})})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["decision"] == "reject" and body["reasons"][0]["code"] == "not_a_document"
    assert body["claimed"] is True and isinstance(body["check_id"], int) and body["request_id"]
    r = requests.post(server + "/v1/classify", headers=auth(key),
                      files=[("image", ("a.png", png())), ("image", ("b.png", png(np.zeros((100, 100, 3), np.uint8))))])
    assert [c["is_document"] for c in r.json()["results"]] == [True, False]


# -- metrics, OpenAPI, runtime -------------------------------------------------------------------------
def test_metrics_have_requests_latency_and_stages(server, key):
    requests.post(server + "/v1/checks", headers=auth(key), files={"image": ("x.png", png())})
    text = requests.get(server + "/metrics").text
    assert 'docauth_http_requests_total{endpoint="/v1/checks",method="POST",status="200"}' in text
    assert 'docauth_http_request_duration_seconds_bucket{endpoint="/v1/checks"' in text
    assert 'docauth_stage_duration_seconds_count{stage="face"}' in text
    assert 'docauth_decisions_total{decision=' in text
    assert "docauth_queue_depth" in text and "docauth_batch_size" in text


def test_openapi_is_generated_from_the_routes(server):
    from docauth.service.registry import registry

    spec = requests.get(server + "/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    for route in registry.routes:
        op = spec["paths"][route.openapi_path][route.method.lower()]
        assert ("security" in op) == route.auth
        if route.auth:
            assert "401" in op["responses"]
    assert "multipart/form-data" in spec["paths"]["/v1/checks"]["post"]["requestBody"]["content"]
    reasons = spec["paths"]["/v1/checks"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert "face_mismatch" in reasons["properties"]["reasons"]["items"]["properties"]["code"]["enum"]


def test_runtime_reports_mode(server, key):
    body = requests.get(server + "/v1/runtime", headers=auth(key)).json()
    assert body["mode"] == "realtime" and body["ready"] is True and "stages" in body


# -- readiness and overload ----------------------------------------------------------------------------
def test_not_ready_until_loaded_then_ready(settings, store, faces):
    release = threading.Event()

    def slow_factory(s, st):
        release.wait(30)
        return _pipeline(s, st, faces)

    app = create_app(settings, store=store, pipeline_factory=slow_factory)
    _, key = store.create_api_key("ready")
    with serve_in_thread(app) as url:
        assert requests.get(url + "/healthz").status_code == 200
        assert_json_error(requests.get(url + "/readyz"), 503, "not_ready")
        r = requests.post(url + "/v1/checks", headers=auth(key), files={"image": ("x.png", png())})
        assert_json_error(r, 503, "not_ready")
        assert int(r.headers["Retry-After"]) >= 1
        release.set()
        for _ in range(100):
            if requests.get(url + "/readyz").status_code == 200:
                break
            time.sleep(0.1)
        assert requests.get(url + "/readyz").json()["status"] == "ready"
        r = requests.post(url + "/v1/checks", headers=auth(key), files={"image": ("x.png", png())})
        assert r.status_code == 200


def test_overload_sheds_with_503_and_retry_after(settings, store, faces):
    gate_open = threading.Event()
    entered = threading.Event()

    class Blocking(RuleClassifier):
        def __call__(self, images):
            entered.set()
            gate_open.wait(30)
            return super().__call__(images)

    one = Settings.load(environ={}, data_dir=settings.data_dir, max_inflight_checks=1)
    app = create_app(one, store=store, pipeline=_pipeline(one, store, faces, classifier=Blocking()))
    _, key = store.create_api_key("overload")
    with serve_in_thread(app) as url:
        first = {}
        t = threading.Thread(target=lambda: first.update(r=requests.post(
            url + "/v1/classify", headers=auth(key), files={"image": ("x.png", png())})))
        t.start()
        assert entered.wait(10)
        r = requests.post(url + "/v1/classify", headers=auth(key), files={"image": ("x.png", png())})
        gate_open.set()
        t.join(10)
    assert_json_error(r, 503, "overloaded")
    assert int(r.headers["Retry-After"]) >= 1
    assert first["r"].status_code == 200


# -- throughput mode: concurrent requests share classifier batches ----------------------------------
def test_throughput_mode_batches_concurrent_requests(settings, store, tmp_path_factory):
    from concurrent.futures import ThreadPoolExecutor

    from docauth.classifiers import DocumentClassifier
    from docauth.runtime import load_model
    from docauth.runtime.untrained import build_untrained_model

    models = tmp_path_factory.mktemp("models")
    build_untrained_model(models, "document", height=128, width=128, labels=("not_document", "document"))
    build_untrained_model(models, "side", height=128, width=128, labels=("front", "back", "open"))
    # Twelve may run at once (the default, one, is for the shipped models, whose batches do not pay).
    tp = Settings.load(environ={}, data_dir=settings.data_dir, mode="throughput", max_batch_size=8,
                       max_queue_delay_ms=100.0, running_checks=12)
    # the runtime's throughput mode: each model gets a micro-batcher
    clf = DocumentClassifier(load_model("document", models_dir=models, mode="throughput"),
                             load_model("side", models_dir=models, mode="throughput"))
    pipeline = Pipeline(classifier=clf, reader=None, faces=None, text_matcher=None, store=store)
    app = create_app(tp, store=store, pipeline=pipeline)
    _, key = store.create_api_key("throughput")
    body = encode_png(np.full((300, 500, 3), 180, np.uint8))
    with serve_in_thread(app) as url:
        def one(_):
            return requests.post(url + "/v1/classify", headers=auth(key), files={"image": ("x.png", io.BytesIO(body))})

        with ThreadPoolExecutor(12) as pool:
            responses = list(pool.map(one, range(24)))
        metrics = requests.get(url + "/metrics").text
    assert all(r.status_code == 200 for r in responses)
    stats = clf.document_model.batcher.stats()
    assert stats["items_run"] == 24
    assert stats["batches_run"] < 24 and stats["mean_batch_size"] > 1  # requests met in batches
    count = float(re.search(r'^docauth_batch_size_count{model="document"} (\S+)$', metrics, re.M).group(1))
    total = float(re.search(r'^docauth_batch_size_sum{model="document"} (\S+)$', metrics, re.M).group(1))
    assert (count, total) == (stats["batches_run"], 24.0)
    clf.document_model.close()
    clf.side_model.close()


def test_uploads_stay_in_memory(settings, store, faces):
    """Werkzeug spools uploads over 500 kB to temporary files; the service keeps them in memory."""
    app = create_app(settings, store=store, pipeline=_pipeline(settings, store, faces))
    payload = np.random.default_rng(1).integers(0, 255, (700, 700, 3), dtype=np.uint8)
    body = encode_png(payload)
    assert len(body) > 1_000_000
    with app.test_request_context("/v1/checks", method="POST", data={"image": (io.BytesIO(body), "x.png")},
                                  content_type="multipart/form-data"):
        from flask import request

        upload = request.files["image"]
        assert isinstance(upload.stream, io.BytesIO)
        assert upload.read() == body
