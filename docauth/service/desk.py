"""The review desk's API: the queue of checks waiting for a clerk, and the clerk's decision, stored with
who (the API key's name) and when. Routes join :data:`docauth.service.registry.registry`."""

from __future__ import annotations

from flask import Response, g, request

from docauth.errors import InputError
from docauth.service import schemas
from docauth.service.params import json_value, row_id
from docauth.service.registry import registry
from docauth.service.state import state
from docauth.store.images import JPEG, Images
from docauth.store.reviews import DECISIONS, Reviews


@registry.route("/v1/reviews", "GET", summary="Checks waiting for a clerk (decided review, not yet reviewed)",
                tags=["review"], responses={200: schemas.REVIEW_QUEUE}, errors=(400, 503),
                parameters=[{"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1,
                                                                         "maximum": 500}}],
                operation_id="listReviewQueue")
def review_queue():
    try:
        limit = int(request.args.get("limit", 50))
    except ValueError as exc:
        raise InputError("limit must be an integer", code="invalid_query") from exc
    if not 1 <= limit <= 500:
        raise InputError("limit must be 1-500", code="invalid_query")
    return {"checks": Reviews(state().store).queue(limit=limit), "limit": limit}


@registry.route("/v1/checks/<int:check_id>/review", "POST", summary="A clerk's decision on a check (audited)",
                tags=["review"], request=schemas.REVIEW_DECISION, responses={201: schemas.REVIEW},
                errors=(400, 404, 413, 503), operation_id="reviewCheck")
def review_check(check_id: int):
    check_id = row_id(check_id, "check with id")
    if request.mimetype != "application/json":
        raise InputError("send a JSON object {\"decision\": ...}", code="expected_json")
    body = json_value(request.get_data(cache=True), "the JSON body")
    if not isinstance(body, dict) or set(body) != {"decision"}:
        raise InputError(f"send exactly {{\"decision\": one of {', '.join(DECISIONS)}}}", code="invalid_json")
    decision = body["decision"]
    if not isinstance(decision, str):
        raise InputError(f"decision must be one of {', '.join(DECISIONS)}", code="invalid_decision")
    return Reviews(state().store).decide(check_id, decision, reviewer=g.api_key_name, api_key_id=g.api_key_id), 201


def _image(data: bytes) -> Response:
    response = Response(data, mimetype=JPEG)
    response.headers["Cache-Control"] = "no-store"  # personal data: never kept by a browser or a proxy
    return response


@registry.route("/v1/checks/<int:check_id>/document.jpg", "GET",
                summary="The upright, rectified document of a check waiting for a clerk (the geometry's boxes "
                        "are on it)", tags=["review"], responses={200: schemas.JPEG_IMAGE}, errors=(404, 503),
                operation_id="getCheckDocumentImage")
def check_document_image(check_id: int):
    return _image(Images(state().store).check_document(row_id(check_id, "check with id")))


@registry.route("/v1/persons/<int:person_id>/photo.jpg", "GET", summary="A person's latest enrolment photo",
                tags=["persons"], responses={200: schemas.JPEG_IMAGE}, errors=(404, 503),
                operation_id="getPersonPhoto")
def person_photo(person_id: int):
    return _image(Images(state().store).enrolment_photo(row_id(person_id, "person with id")))
