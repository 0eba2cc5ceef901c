"""The API a bank integrates against, over real HTTP on loopback: a check read back by id (kept for
check_retention_days, erased with the person), persons by external_ref, PATCH, photos added later, a
claimed check naming the enrolled person, scores on one scale, and /openapi.json valid with typed schemas
that the real responses satisfy. The app is the real factory around real face matching, text matching and
a temporary SQLite store; the classifier is the rule stand-in and the reader reads back the fields it is
told (pipeline_support), so the document's fields are known."""

from __future__ import annotations

import datetime as dt
import io
import json

import numpy as np
import pytest
import requests

from docauth.config import Settings
from docauth.imageio import encode_jpeg, encode_png
from docauth.pipeline import DecisionPolicy, Pipeline, Thresholds
from docauth.pipeline.faces import FaceStage
from docauth.pipeline.loaders import load_text_matcher
from docauth.pipeline.scores import similarity
from docauth.service.app import create_app
from pipeline_support import (ASTRONAUT_PERSON, OTHER_PERSON, FieldsReader, RuleClassifier, astronaut_portrait,
                              document_of, serve_in_thread)

pytest_plugins = ["http_server"]  # the session-wide `server_session` fixture (a real `docauth serve`)
TODAY = dt.date(2026, 11, 22)


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("bank"), rate_limit_per_minute=100_000)


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


@pytest.fixture(scope="module")
def reader():
    return FieldsReader()


def _app(settings, store, faces, reader):
    pipeline = Pipeline(classifier=RuleClassifier(), reader=reader, faces=faces,
                        text_matcher=load_text_matcher(settings), store=store,
                        policy=DecisionPolicy.from_settings(settings), thresholds=Thresholds.from_settings(settings),
                        today=lambda: TODAY, settings=settings)
    return create_app(settings, store=store, pipeline=pipeline)


@pytest.fixture(scope="module")
def server(settings, store, faces, reader):
    with serve_in_thread(_app(settings, store, faces, reader)) as url:
        yield url


@pytest.fixture(scope="module")
def auth(store):
    _, key = store.create_api_key("bank")
    return {"Authorization": f"Bearer {key}"}


@pytest.fixture(scope="module")
def document():
    """The astronaut's passport page, as the stand-in reader will read it."""
    return encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False))


def _fields(person):
    out = {k: person[k] for k in ("surname", "given_names", "date_of_birth", "document_number", "nationality", "sex")}
    return {**out, "expiry_date": "2031-05-02"}


def _photo():
    import skimage.data

    return ("photo", ("a.png", io.BytesIO(encode_png(skimage.data.astronaut()))))


def error_code(r, status):
    assert r.status_code == status, (r.status_code, r.text[:500])
    body = r.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    return body["error"]["code"]


def _enrol(server, auth, person, *, ref, photo=True):
    r = requests.post(server + "/v1/persons", headers=auth, data={**person, "external_ref": ref},
                      files=[_photo()] if photo else None)
    assert r.status_code == 201, r.text
    return r.json()


def _check(server, auth, document, **form):
    r = requests.post(server + "/v1/checks", headers=auth, files={"image": ("d.jpg", io.BytesIO(document))},
                      data=form)
    assert r.status_code == 200, r.text
    return r.json()


# -- GET /v1/checks/{id} ------------------------------------------------------------------------------
def test_a_check_is_read_back_by_id_until_the_person_is_erased(server, auth, reader, document):
    person = _enrol(server, auth, ASTRONAUT_PERSON, ref="cust-read-back")
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    body = _check(server, auth, document, person_id=str(person["id"]))
    assert body["decision"] == "accept", body["reasons"]
    r = requests.get(server + f"/v1/checks/{body['check_id']}", headers=auth)
    assert r.status_code == 200, r.text
    kept = r.json()
    assert {k: v for k, v in kept.items() if k not in ("created_at", "expires_at", "reviews")} == body
    created, expires = (dt.datetime.fromisoformat(kept[k]) for k in ("created_at", "expires_at"))
    assert abs((expires - created) - dt.timedelta(days=30)) < dt.timedelta(seconds=1)
    assert kept["fields"]["surname"] == ASTRONAUT_PERSON["surname"]
    assert len(r.content) < 100_000 and "base64" not in r.text  # no image travels back
    assert error_code(requests.get(server + f"/v1/checks/{body['check_id']}"), 401) == "missing_api_key"
    assert error_code(requests.get(server + "/v1/checks/99999999", headers=auth), 404) == "check_not_found"
    assert error_code(requests.get(server + f"/v1/checks/{2**70}", headers=auth), 404) == "not_found"
    assert error_code(requests.get(server + "/v1/checks/abc", headers=auth), 404) == "not_found"
    assert requests.delete(server + f"/v1/persons/{person['id']}", headers=auth).status_code == 204
    r = requests.get(server + f"/v1/checks/{body['check_id']}", headers=auth)
    assert error_code(r, 404) == "check_result_gone"


def test_check_retention_of_zero_days_keeps_no_result(settings, store, faces, reader, auth, document):
    zero = Settings.load(environ={}, data_dir=settings.data_dir, rate_limit_per_minute=100_000,
                         check_retention_days=0)
    reader.next_fields = _fields(OTHER_PERSON)
    with serve_in_thread(_app(zero, store, faces, reader)) as url:
        body = _check(url, auth, encode_jpeg(np.full((300, 500, 3), 200, np.uint8)),
                      claimed=json.dumps(_fields(OTHER_PERSON)))
        r = requests.get(url + f"/v1/checks/{body['check_id']}", headers=auth)
    assert error_code(r, 404) == "check_result_gone"
    assert store.list_checks(limit=1)[0].id == body["check_id"]  # the audit row is still written


# -- a claimed check of someone enrolled ------------------------------------------------------------------
def test_a_claimed_check_naming_the_customer_is_not_their_own_duplicate(server, auth, reader, document):
    person = _enrol(server, auth, ASTRONAUT_PERSON, ref="cust-claimed")
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    anonymous = _check(server, auth, document, claimed=json.dumps(_fields(ASTRONAUT_PERSON)))
    assert "duplicate_identity" in [r["code"] for r in anonymous["reasons"]]  # as before: no one named
    named = _check(server, auth, document,
                   claimed=json.dumps({**_fields(ASTRONAUT_PERSON), "external_ref": "cust-claimed"}))
    assert named["decision"] == "accept", named["reasons"]
    assert named["claimed_person_id"] == person["id"]
    assert named["stages"]["duplicates"]["output"]["excluded_person_id"] == person["id"]
    r = requests.post(server + "/v1/checks", headers=auth, files={"image": ("d.jpg", io.BytesIO(document))},
                      data={"claimed": json.dumps({"surname": "X", "person_id": 99999999})})
    assert error_code(r, 404) == "person_not_found"
    r = requests.post(server + "/v1/checks", headers=auth, files={"image": ("d.jpg", io.BytesIO(document))},
                      data={"claimed": json.dumps({"surname": "X", "external_ref": ["a"]})})
    assert error_code(r, 400) == "invalid_claimed"
    # the kept result is about the named customer: erasing them erases it
    assert requests.get(server + f"/v1/checks/{named['check_id']}", headers=auth).status_code == 200
    assert requests.delete(server + f"/v1/persons/{person['id']}", headers=auth).status_code == 204
    r = requests.get(server + f"/v1/checks/{named['check_id']}", headers=auth)
    assert error_code(r, 404) == "check_result_gone"


# -- persons: by reference, PATCH, photos ---------------------------------------------------------------
def test_persons_by_external_ref(server, auth):
    person = _enrol(server, auth, OTHER_PERSON, ref="cust-lookup", photo=False)
    r = requests.get(server + "/v1/persons", headers=auth, params={"external_ref": "cust-lookup"})
    assert r.status_code == 200 and [p["id"] for p in r.json()["persons"]] == [person["id"]]
    r = requests.get(server + "/v1/persons", headers=auth, params={"external_ref": "nobody-has-this"})
    assert r.status_code == 200 and r.json()["persons"] == []
    for bad in ("", "a\x00b", "x" * 129):
        r = requests.get(server + "/v1/persons", headers=auth, params={"external_ref": bad})
        assert 400 <= r.status_code < 500, (bad, r.text)
        error_code(r, 400)


def test_patch_changes_only_the_fields_sent_and_validates_them_as_at_enrolment(server, auth, store):
    person = _enrol(server, auth, OTHER_PERSON, ref="cust-patch", photo=False)
    url = server + f"/v1/persons/{person['id']}"
    r = requests.patch(url, headers=auth, json={"document_number": "ab1234567", "given_names": "ANNA"})
    assert r.status_code == 200, r.text
    changed = r.json()
    assert changed["document_number"] == "AB1234567" and changed["given_names"] == "ANNA"
    assert {k: changed[k] for k in ("surname", "date_of_birth", "external_ref")} == {
        "surname": OTHER_PERSON["surname"], "date_of_birth": OTHER_PERSON["date_of_birth"], "external_ref": "cust-patch"}
    r = requests.patch(url, headers=auth, data={"nationality": "nor"})  # a form works too
    assert r.status_code == 200 and r.json()["nationality"] == "NOR"
    _enrol(server, auth, ASTRONAUT_PERSON, ref="cust-taken", photo=False)
    refusals = [({"date_of_birth": "1974-13-40"}, 400), ({"sex": "Q"}, 400), ({"surname": None}, 400),
                ({"surname": ""}, 400), ({"person_id": 5}, 400), ({"id": 1}, 400), ({}, 400),
                ({"given_names": ["a"]}, 400), ({"external_ref": "cust-taken"}, 409)]
    for body, status in refusals:
        error_code(requests.patch(url, headers=auth, json=body), status)
    error_code(requests.patch(url, headers={**auth, "Content-Type": "application/json"}, data="[1, 2]"), 400)
    error_code(requests.patch(url, headers={**auth, "Content-Type": "application/json"},
                              data="[" * 5000 + "]" * 5000), 400)
    after = store.get_person(person["id"]).export()
    assert after["document_number"] == "AB1234567" and after["nationality"] == "NOR"  # the refusals changed nothing
    assert error_code(requests.patch(server + "/v1/persons/99999999", headers=auth, json={"sex": "F"}), 404)
    assert error_code(requests.patch(url, json={"sex": "F"}), 401) == "missing_api_key"


def test_a_photo_added_later_is_matched_and_searched(server, auth, reader, document, store):
    person = _enrol(server, auth, ASTRONAUT_PERSON, ref="cust-photo-later", photo=False)
    url = server + f"/v1/persons/{person['id']}/photos"
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    before = _check(server, auth, document, person_id=str(person["id"]))
    assert "face_not_checked" in [r["code"] for r in before["reasons"]]
    no_face = ("photo", ("n.jpg", io.BytesIO(encode_jpeg(np.full((200, 200, 3), 90, np.uint8)))))
    assert error_code(requests.post(url, headers=auth, files=[_photo(), no_face]), 400) == "no_face"
    assert store.get_person(person["id"]).n_face_templates == 0  # one bad photo refuses them all
    assert error_code(requests.post(url, headers=auth, files={"image": ("a.png", b"x")}), 400) == "missing_photo"
    assert error_code(requests.post(url, headers=auth, json={}), 400) == "expected_multipart"
    assert error_code(requests.post(server + "/v1/persons/99999999/photos", headers=auth, files=[_photo()]), 404)
    r = requests.post(url, headers=auth, files=[_photo()])
    assert r.status_code == 201, r.text
    added = r.json()
    assert added["person"]["n_face_templates"] == 1 and len(added["templates"]) == 1
    assert added["templates"][0]["person_id"] == person["id"]
    after = _check(server, auth, document, person_id=str(person["id"]))
    assert after["decision"] == "accept", after["reasons"]
    face = after["scores"]["face_distance"]
    threshold = after["stages"]["face"]["output"]["threshold"]
    # scores on one scale, the raw distance beside it
    assert after["scores_normalised"]["face"] == {"score": round(similarity(face, threshold), 4), "raw": face,
                                                  "raw_scale": "distance", "threshold": threshold}
    assert after["scores_normalised"]["face"]["score"] > 0.5
    assert after["scores_normalised"]["document"]["score"] == after["scores"]["document"]
    # the 1:N index sees the new photo: the same face claimed under another name is a duplicate of this person
    reader.next_fields = _fields(OTHER_PERSON)
    other = _check(server, auth, encode_jpeg(document_of(OTHER_PERSON, astronaut_portrait(), captured=False)),
                   claimed=json.dumps(_fields(OTHER_PERSON)))
    assert person["id"] in [m["person_id"] for m in other["stages"]["duplicates"]["output"]["matches"]]
    assert 0 <= other["scores_normalised"]["uniqueness"]["score"] <= 0.5


# -- /openapi.json ------------------------------------------------------------------------------------------
def test_openapi_is_valid_typed_with_readable_ids_and_the_real_answers_fit_it(server, auth, reader, document):
    import re

    from openapi_schema_validator import OAS30Validator
    from openapi_spec_validator import validate

    spec = requests.get(server + "/openapi.json").json()
    validate(spec)  # raises on an invalid OpenAPI 3.0 document
    ops = {(path, method): op for path, item in spec["paths"].items() for method, op in item.items()}
    ids = [op["operationId"] for op in ops.values()]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z0-9]*)*", i) for i in ids), ids
    assert {"createCheck", "getCheck", "getPerson", "listPersons", "updatePerson", "addPersonPhotos"} <= set(ids)

    def schema(path, method, status):
        return ops[(path, method)]["responses"][str(status)]["content"]["application/json"]["schema"]

    check_schema = schema("/v1/checks", "post", 200)
    for name in ("document", "fields", "scores", "scores_normalised"):
        assert check_schema["properties"][name].get("properties"), f"{name} is an untyped object"

    def fits(body, path, method, status):
        errors = sorted(OAS30Validator(schema(path, method, status)).iter_errors(body), key=str)
        assert errors == [], f"{method.upper()} {path} {status}: {[e.message for e in errors][:5]}"

    person = _enrol(server, auth, ASTRONAUT_PERSON, ref="cust-openapi")
    fits(person, "/v1/persons", "post", 201)
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    body = _check(server, auth, document, person_id=str(person["id"]))
    assert body["scores_normalised"]["face"]  # a face score is there to be validated
    fits(body, "/v1/checks", "post", 200)
    fits(requests.get(server + f"/v1/checks/{body['check_id']}", headers=auth).json(), "/v1/checks/{check_id}",
         "get", 200)
    fits(requests.get(server + "/v1/persons", headers=auth, params={"external_ref": "cust-openapi"}).json(),
         "/v1/persons", "get", 200)
    fits(requests.patch(server + f"/v1/persons/{person['id']}", headers=auth, json={"sex": None}).json(),
         "/v1/persons/{person_id}", "patch", 200)
    added = requests.post(server + f"/v1/persons/{person['id']}/photos", headers=auth, files=[_photo()])
    fits(added.json(), "/v1/persons/{person_id}/photos", "post", 201)
    # the validator does reject what does not fit (the test can fail)
    with pytest.raises(AssertionError):
        fits({**body, "scores_normalised": {"face": {"score": 3, "raw": 0.1, "raw_scale": "distance"}}},
             "/v1/checks", "post", 200)


# -- the same under `docauth serve` (gunicorn, two workers, one database) ----------------------------------
def test_under_gunicorn_results_and_photos_are_seen_by_every_worker(server_session):
    from http_server import assert_json_error

    srv = server_session
    r = srv.post("/v1/persons", data={"surname": "WORKERS", "external_ref": "cust-gunicorn"}, files=[_photo()])
    assert r.status_code == 201, r.text
    person = r.json()
    body = srv.post("/v1/checks", files={"image": ("d.png", encode_png(np.full((300, 500, 3), 200, np.uint8)))},
                    data={"claimed": json.dumps({"surname": "WORKERS", "external_ref": "cust-gunicorn"})}).json()
    # requests spread over both workers: each reads the same kept result and the same person
    for _ in range(6):
        kept = srv.get(f"/v1/checks/{body['check_id']}")
        assert kept.status_code == 200 and kept.json()["decision"] == body["decision"], kept.text
        found = srv.get("/v1/persons", params={"external_ref": "cust-gunicorn"}).json()["persons"]
        assert [p["id"] for p in found] == [person["id"]]
    r = srv.request("PATCH", f"/v1/persons/{person['id']}", json={"given_names": "TWO"})
    assert r.status_code == 200 and r.json()["given_names"] == "TWO"
    r = srv.post(f"/v1/persons/{person['id']}/photos", files=[_photo()])
    assert r.status_code == 201 and r.json()["person"]["n_face_templates"] == 2, r.text
    assert_json_error(srv.request("PATCH", f"/v1/persons/{person['id']}", json={"person_id": 1}), (400,))
    assert srv.delete(f"/v1/persons/{person['id']}").status_code == 204
    assert_json_error(srv.get(f"/v1/checks/{body['check_id']}"), (404,))
    assert "Traceback" not in srv.log_text()


# -- the review desk's API: the queue, and a clerk's decision with who and when -----------------------------
def test_review_queue_and_a_clerks_decision_stored_with_who_and_when(server, auth, store, reader):
    _, clerk_key = store.create_api_key("clerk-anna")
    clerk = {"Authorization": f"Bearer {clerk_key}"}
    reader.next_fields = _fields(OTHER_PERSON)
    blank = encode_jpeg(np.full((300, 500, 3), 200, np.uint8))  # a "document" with no face, and no person
    body = _check(server, auth, blank)
    assert body["decision"] == "review", body["reasons"]
    queue = requests.get(server + "/v1/reviews", headers=clerk).json()["checks"]
    waiting = {c["check_id"]: c for c in queue}
    assert body["check_id"] in waiting
    assert set(waiting[body["check_id"]]["reasons"]) == {r["code"] for r in body["reasons"]}
    # "resubmit", the first name of "retake", is still taken and stored as "retake"
    r = requests.post(server + f"/v1/checks/{body['check_id']}/review", headers=clerk, json={"decision": "resubmit"})
    assert r.status_code == 201, r.text
    decided = r.json()
    assert (decided["decision"], decided["reviewer"], decided["check_id"]) == ("retake", "clerk-anna",
                                                                                 body["check_id"])
    when = dt.datetime.fromisoformat(decided["decided_at"])
    assert abs(dt.datetime.now(dt.timezone.utc) - when) < dt.timedelta(minutes=1)
    queue = requests.get(server + "/v1/reviews", headers=clerk).json()["checks"]
    assert body["check_id"] not in [c["check_id"] for c in queue]  # decided: off the queue
    r = requests.post(server + f"/v1/checks/{body['check_id']}/review", headers=auth, json={"decision": "reject"})
    assert r.status_code == 201 and r.json()["reviewer"] == "bank"
    kept = requests.get(server + f"/v1/checks/{body['check_id']}", headers=auth).json()
    assert [(d["decision"], d["reviewer"]) for d in kept["reviews"]] == [("retake", "clerk-anna"), ("reject", "bank")]
    from docauth.store.reviews import Reviews

    assert [d["decision"] for d in Reviews(store).history(body["check_id"])] == ["retake", "reject"]  # in the db
    url = server + f"/v1/checks/{body['check_id']}/review"
    for bad in ({"decision": "maybe"}, {"decision": 1}, {"decision": "accept", "note": "x"}, [], "accept"):
        error_code(requests.post(url, headers=clerk, json=bad), 400)
    assert error_code(requests.post(url, headers=clerk, data={"decision": "accept"}), 400) == "expected_json"
    error_code(requests.post(server + "/v1/checks/99999999/review", headers=clerk, json={"decision": "accept"}), 404)
    assert error_code(requests.post(url, json={"decision": "accept"}), 401) == "missing_api_key"
    assert error_code(requests.get(server + "/v1/reviews?limit=0", headers=clerk), 400) == "invalid_query"
    assert len(Reviews(store).history(body["check_id"])) == 2  # the refusals stored nothing
