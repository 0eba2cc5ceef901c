"""The HTTP API. Views parse and validate the request, call the pipeline or the store held by
the app's :class:`~docauth.service.state.ServiceState`, and serialise ``export()`` results."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from flask import Response, current_app, g, request

from docauth import __version__
from docauth.errors import DocauthError, ImageTooLarge, InputError, NotFound, Unavailable
from docauth.imageio import declared_pixels, decode_image
from docauth.pipeline.result import classification_output, jsonable
from docauth.service import schemas
from docauth.service.params import json_value, row_id
from docauth.service.registry import registry
from docauth.service.state import state
from docauth.store.checks import CheckResults
from docauth.store.images import Images
from docauth.store.reviews import Reviews
from docauth.store.values import person_values

PERSON_FORM_FIELDS = ("external_ref", "surname", "given_names", "date_of_birth", "nationality", "sex",
                      "document_number", "document_expiry")


# -- request parsing -----------------------------------------------------------------------------
def _upload(field: str = "image") -> tuple[bytes, object]:
    if request.mimetype not in ("multipart/form-data", "application/x-www-form-urlencoded"):
        raise InputError(f"send the {field} as multipart/form-data (field {field!r})", code="expected_multipart")
    f = request.files.get(field)
    if f is None:
        raise InputError(f"the multipart field {field!r} (an image file) is missing", code="missing_image")
    return f.read(), f


def _within_pixel_budget(blobs: list[bytes]) -> None:
    """413 before decoding when the images of one request declare more pixels together than allowed."""
    s = state().settings
    total = sum(declared_pixels(b) for b in blobs)
    if total > s.max_request_pixels:
        raise ImageTooLarge(f"the {len(blobs)} image(s) of this request declare {total} pixels together, over the "
                            f"per-request limit of {s.max_request_pixels}; send fewer or smaller images",
                            code="request_too_many_pixels")


def _decode_one(data: bytes):
    """RGB pixels of one upload, within the per-image limits."""
    s = state().settings
    return decode_image(data, max_pixels=s.max_image_pixels, min_side=s.min_image_side,
                        max_aspect=s.max_image_aspect).pixels


def _decode(blobs: list[bytes]) -> list:
    """RGB pixels of each upload; call inside the in-flight gate, decoding is the costly part of a bad request."""
    _within_pixel_budget(blobs)
    return [_decode_one(b) for b in blobs]


def _json_field(name: str) -> dict | None:
    raw = request.form.get(name)
    if raw is None or raw.strip() == "":
        return None
    value = json_value(raw, name)
    if not isinstance(value, dict):
        raise InputError(f"{name} must be a JSON object", code="invalid_json")
    return value


def _person_id(raw) -> int | None:
    if raw is None or str(raw).strip() == "":
        return None
    try:
        value = int(str(raw).strip())
    except ValueError as exc:
        raise InputError("person_id must be an integer", code="invalid_person_id") from exc
    if not 0 < value < 2**63:
        raise InputError("person_id must be a positive integer", code="invalid_person_id")
    return value


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 2)


# -- checks ------------------------------------------------------------------------------------
@registry.route("/v1/checks", "POST", summary="Check a document image (and its holder)", tags=["checks"],
                request=schemas.CHECK_FORM, responses={200: schemas.CHECK_RESULT},
                errors=(400, 404, 413, 415, 422, 503))
def create_check():
    svc = state()
    data, _ = _upload()
    person_id = _person_id(request.form.get("person_id"))
    claimed = _json_field("claimed")
    if person_id is not None and claimed is not None:
        raise InputError("send either person_id or claimed, not both", code="ambiguous_person")
    pipeline = svc.pipeline
    with svc.gate:
        [image] = _decode([data])
        result = pipeline.check(image, person_id=person_id, claimed=claimed)
    out = result.export()
    svc.metrics.observe_check(out)
    if svc.settings.store_uploads:
        _store_upload(svc, "checks")
    body = {"check_id": None, "request_id": g.request_id, **out}
    # The audit trail keeps the decision, scores and reason codes; the result (fields, no image) is kept beside
    # it for check_retention_days, tied to the person it is about so that erasing them erases it.
    subject = person_id if person_id is not None else result.claimed_person_id
    record = CheckResults(svc.store).record(body, verdict=result.decision, scores=out["scores"],
                                            reasons={"codes": result.reason_codes}, person_id=person_id,
                                            subject_id=subject, channel="api",
                                            keep_days=svc.settings.check_retention_days)
    body["check_id"] = record.id
    if result.decision == "review" and result.rectified is not None and svc.settings.check_retention_days > 0:
        # What the review desk shows the clerk (never in a result): kept until the clerk decides.
        Images(svc.store).keep_check_document(record.id, result.rectified, person_id=subject,
                                              keep_days=svc.settings.check_retention_days)
    return body


@registry.route("/v1/checks/<int:check_id>", "GET", summary="A check's result again (no images), while it is kept",
                tags=["checks"], responses={200: schemas.KEPT_CHECK_RESULT}, errors=(404, 503),
                operation_id="getCheck")
def get_check(check_id: int):
    store = state().store
    kept = CheckResults(store).get(row_id(check_id, "check id"))
    return {**kept, "reviews": Reviews(store).history(check_id)}


@registry.route("/v1/classify", "POST", summary="Document or not, and which side", tags=["stages"],
                request=schemas.IMAGE_FORM, responses={200: schemas.CLASSIFY_RESULT},
                errors=(400, 413, 415, 422, 503))
def classify():
    svc = state()
    files = request.files.getlist("image") if request.mimetype == "multipart/form-data" else []
    if not files:
        _upload("image")  # raises the right error
    if len(files) > svc.settings.max_batch_size:
        raise InputError(f"at most {svc.settings.max_batch_size} images per request", code="too_many_images")
    blobs = [f.read() for f in files]
    pipeline = svc.pipeline
    start = time.perf_counter()
    with svc.gate:
        results = pipeline.classify(_decode(blobs))
    return {"results": [classification_output(r) for r in results], "timings_ms": {"classify": _ms(start)}}


@registry.route("/v1/ocr", "POST", summary="Locate, rectify and read a document (MRZ and printed fields)",
                tags=["stages"], request=schemas.IMAGE_FORM, responses={200: schemas.OCR_RESULT},
                errors=(400, 413, 415, 422, 503))
def ocr():
    svc = state()
    data, _ = _upload()
    pipeline = svc.pipeline
    start = time.perf_counter()
    with svc.gate:
        [image] = _decode([data])
        result = pipeline.read(image)
    return {"result": jsonable(result.export()),
            "timings_ms": {"ocr": _ms(start)}}


# -- persons -------------------------------------------------------------------------------------
def _person_fields() -> dict:
    if request.mimetype == "application/json":
        body = json_value(request.get_data(cache=True), "the JSON body")
        if not isinstance(body, dict):
            raise InputError("the body must be a JSON object of person fields", code="invalid_json")
        return body
    if request.mimetype not in ("multipart/form-data", "application/x-www-form-urlencoded"):
        raise InputError("send multipart/form-data (fields and photo files) or a JSON object",
                         code="unsupported_body")
    fields = _json_field("person") or {}
    for name in PERSON_FORM_FIELDS:
        value = request.form.get(name)
        if value not in (None, ""):
            fields[name] = value
    return fields


@registry.route("/v1/persons", "POST", summary="Enrol a person, with photos", tags=["persons"],
                request=schemas.PERSON_FORM, responses={201: schemas.PERSON}, errors=(400, 409, 413, 415, 422, 503))
def create_person():
    svc = state()
    fields = _person_fields()
    photos = request.files.getlist("photo") if request.mimetype == "multipart/form-data" else []
    faces, first_photo = _encode_photos(svc, photos)
    person, _templates = svc.store.enrol(fields, faces=faces)
    if first_photo is not None:
        Images(svc.store).keep_enrolment_photo(person.id, first_photo)  # the desk shows it beside the portrait
    return person.export(), 201


def _encode_photos(svc, photos) -> tuple[list[tuple], object]:
    """((encoding, sha256) of each enrolment photo, the first photo's pixels or None); any photo without exactly
    one face refuses them all."""
    faces = []
    first = None
    if photos:
        blobs = [f.read() for f in photos]
        pipeline = svc.pipeline  # the face encoder
        with svc.gate:
            _within_pixel_budget(blobs)
            for i, data in enumerate(blobs):
                pixels = _decode_one(data)  # one at a time: a photo's pixels go once it is encoded
                try:
                    encoding = pipeline.faces.encode_enrolment(pixels)
                except DocauthError as exc:
                    exc.message = f"photo {i + 1}: {exc.message}"
                    raise
                faces.append((encoding, hashlib.sha256(data).hexdigest()))
                first = pixels if first is None else first
    return faces, first


@registry.route("/v1/persons/<int:person_id>/photos", "POST", summary="Add enrolment photos to a person",
                tags=["persons"], request=schemas.PHOTOS_FORM, responses={201: schemas.PHOTOS_ADDED},
                errors=(400, 404, 413, 415, 422, 503), operation_id="addPersonPhotos")
def add_person_photos(person_id: int):
    svc = state()
    person_id = row_id(person_id, "person with id")
    if request.mimetype != "multipart/form-data":
        raise InputError("send the photos as multipart/form-data (field 'photo')", code="expected_multipart")
    photos = request.files.getlist("photo")
    if not photos:
        raise InputError("the multipart field 'photo' (one or more images) is missing", code="missing_photo")
    svc.store.get_person(person_id)  # 404 before any face is encoded
    faces, first_photo = _encode_photos(svc, photos)
    # The workers' 1:N indexes see the new templates by the store's (count, max id) on their next search.
    templates = [svc.store.add_face_template(person_id, encoding, sha) for encoding, sha in faces]
    Images(svc.store).keep_enrolment_photo(person_id, first_photo)  # the latest photo is the one shown
    return {"person": svc.store.get_person(person_id).export(),
            "templates": [t.export() for t in templates]}, 201


@registry.route("/v1/persons", "GET", summary="List enrolled persons", tags=["persons"],
                responses={200: schemas.PERSON_LIST},
                parameters=[{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1,
                                                                         "maximum": 1000}},
                            {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                            {"name": "external_ref", "in": "query", "schema": {"type": "string", "maxLength": 128},
                             "description": "only the person with this reference (an empty list when none)"}],
                errors=(400, 503))
def list_persons():
    try:
        limit = int(request.args.get("limit", 100))
        offset = int(request.args.get("offset", 0))
    except ValueError as exc:
        raise InputError("limit and offset must be integers", code="invalid_query") from exc
    if not (1 <= limit <= 1000 and 0 <= offset < 2**31):
        raise InputError("limit must be 1-1000 and offset >= 0", code="invalid_query")
    store = state().store
    if "external_ref" in request.args:
        ref = person_values({"external_ref": request.args["external_ref"]}, partial=True)["external_ref"]
        if ref is None:
            raise InputError("external_ref must not be empty", code="invalid_query")
        try:
            persons = [store.find_person(external_ref=ref)] if offset == 0 else []
        except NotFound:
            persons = []
    else:
        persons = store.list_persons(limit=limit, offset=offset)
    return {"persons": [p.export() for p in persons], "limit": limit, "offset": offset}


@registry.route("/v1/persons/<int:person_id>", "GET", summary="One enrolled person", tags=["persons"],
                responses={200: schemas.PERSON}, errors=(404, 503))
def get_person(person_id: int):
    return state().store.get_person(_person_id(person_id)).export()  # range-checked: SQL integers are 64-bit


@registry.route("/v1/persons/<int:person_id>", "PATCH", summary="Change some of a person's fields",
                tags=["persons"], request=schemas.PERSON_PATCH, responses={200: schemas.PERSON},
                errors=(400, 404, 409, 503), operation_id="updatePerson")
def update_person(person_id: int):
    person_id = row_id(person_id, "person with id")
    fields = _person_fields()
    unknown = sorted(set(fields) - set(PERSON_FORM_FIELDS))
    if unknown:
        raise InputError(f"unknown person field(s): {', '.join(map(str, unknown))[:200]}", code="invalid_field")
    if not fields:
        raise InputError("send at least one field to change", code="empty_update")
    # Validated as at enrolment (docauth.store.db.person_values); a field sent as null is cleared.
    return state().store.update_person(person_id, **fields).export()


@registry.route("/v1/persons/<int:person_id>", "DELETE", summary="Erase a person and their face templates",
                tags=["persons"], responses={204: None}, errors=(404, 503))
def delete_person(person_id: int):
    state().store.delete_person(_person_id(person_id))
    return Response(status=204)


# -- runtime and health --------------------------------------------------------------------------
@registry.route("/v1/runtime", "GET", summary="Backends, mode and why they were chosen", tags=["runtime"],
                responses={200: schemas.RUNTIME}, errors=(503,))
def runtime():
    svc = state()
    out = {"version": __version__, "mode": svc.settings.mode, "backend_requested": svc.settings.backend,
           "ready": svc.is_ready,
           "max_batch_size": svc.settings.max_batch_size, "max_queue_delay_ms": svc.settings.max_queue_delay_ms,
           "time_to_ready_s": svc.time_to_ready_s, "warmup_ms": svc.warmup_ms}
    if svc.is_ready:
        out["stages"] = svc.pipeline.describe()
        out["why"] = "; ".join(f"{name}: {info.get('reason')}" for name, info in out["stages"].items()
                               if isinstance(info, dict) and info.get("reason"))
    return out


@registry.route("/healthz", "GET", summary="Liveness: the process answers", tags=["health"], auth=False,
                responses={200: schemas.STATUS})
def healthz():
    return {"status": "ok"}


@registry.route("/readyz", "GET", summary="Readiness: models warmed and database reachable", tags=["health"],
                auth=False, responses={200: schemas.STATUS}, errors=(503,))
def readyz():
    svc = state()
    if svc.load_error is not None:
        raise Unavailable(svc.load_error.message, code="models_failed", retry_after=30.0)
    if not svc.is_ready:
        raise Unavailable("the models are loading", code="not_ready", retry_after=2.0)
    svc.store.ping_write()  # 503 within about a second while the database is down, locked or gone
    return {"status": "ready", "time_to_ready_s": svc.time_to_ready_s,
            "ready_since_server_start_s": svc.ready_since_server_start_s}


@registry.route("/metrics", "GET", summary="Prometheus metrics", tags=["health"], auth=False,
                responses={200: None})
def metrics():
    body, content_type = state().metrics.exposition()
    return Response(body, content_type=content_type)


@registry.route("/openapi.json", "GET", summary="This document", tags=["health"], auth=False,
                responses={200: {"type": "object"}})
def openapi():
    spec = registry.openapi(title="docauth", version=__version__)
    # Relative: the Host header is the client's to choose, and echoing it would let anyone poison a cached copy.
    spec["servers"] = [{"url": "/"}]
    return current_app.response_class(json.dumps(spec, indent=1), mimetype="application/json")


def _store_upload(svc, kind: str) -> None:
    """Only when DOCAUTH_STORE_UPLOADS is set: keep the upload under data_dir/uploads, named by request id."""
    f = request.files.get("image")
    if f is None:
        return
    f.stream.seek(0)
    folder = Path(svc.settings.data_dir) / "uploads" / kind
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{g.request_id}.bin").write_bytes(f.stream.read())
