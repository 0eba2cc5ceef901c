"""JSON schemas of the API's bodies (used by the route declarations and so by /openapi.json)."""

from __future__ import annotations

from docauth.pipeline.policy import REASONS

REASON = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "enum": sorted(REASONS)},
        "stage": {"type": "string"},
        "message": {"type": "string"},
        "severity": {"type": "string", "enum": ["review", "reject"]},
    },
}

STAGE = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["ok", "skipped", "failed"]},
                   "output": {}, "note": {"type": "string"}},
}

CHECK_RESULT = {
    "type": "object",
    "required": ["decision", "reasons", "stages", "timings_ms"],
    "properties": {
        "check_id": {"type": "integer", "nullable": True},
        "request_id": {"type": "string"},
        "decision": {"type": "string", "enum": ["accept", "review", "reject"]},
        "reasons": {"type": "array", "items": REASON},
        "document": {"type": "object"},
        "fields": {"type": "object"},
        "person_id": {"type": "integer", "nullable": True},
        "claimed": {"type": "boolean"},
        "scores": {"type": "object"},
        "stages": {"type": "object", "additionalProperties": STAGE},
        "timings_ms": {"type": "object", "additionalProperties": {"type": "number", "nullable": True}},
        "models": {"type": "object"},
    },
}

CLASSIFICATION = {
    "type": "object",
    "properties": {
        "is_document": {"type": "boolean"},
        "document_score": {"type": "number"},
        "side": {"type": "string", "nullable": True},
        "side_scores": {"type": "object"},
    },
}

CLASSIFY_RESULT = {
    "type": "object",
    "properties": {"results": {"type": "array", "items": CLASSIFICATION}, "timings_ms": {"type": "object"}},
}

OCR_RESULT = {"type": "object", "properties": {"result": {"type": "object"}, "timings_ms": {"type": "object"}}}

PERSON_FIELDS = {
    "external_ref": {"type": "string", "maxLength": 128},
    "surname": {"type": "string", "maxLength": 200},
    "given_names": {"type": "string", "maxLength": 200},
    "date_of_birth": {"type": "string", "format": "date"},
    "nationality": {"type": "string", "maxLength": 3},
    "sex": {"type": "string", "enum": ["M", "F", "X"]},
    "document_number": {"type": "string", "maxLength": 32},
    "document_expiry": {"type": "string", "format": "date"},
}

PERSON = {
    "type": "object",
    # Optional fields come back as null when not given (found by the Schemathesis run).
    "properties": {"id": {"type": "integer"},
                   **{k: (v if k == "surname" else {**v, "nullable": True}) for k, v in PERSON_FIELDS.items()},
                   "n_face_templates": {"type": "integer"}, "created_at": {"type": "string"}},
}

PERSON_LIST = {
    "type": "object",
    "properties": {"persons": {"type": "array", "items": PERSON}, "limit": {"type": "integer"},
                   "offset": {"type": "integer"}},
}

IMAGE_FORM = {
    "multipart/form-data": {
        "schema": {
            "type": "object",
            "required": ["image"],
            "properties": {"image": {"type": "string", "format": "binary"}},
        }
    }
}

CHECK_FORM = {
    "multipart/form-data": {
        "schema": {
            "type": "object",
            "required": ["image"],
            "properties": {
                "image": {"type": "string", "format": "binary"},
                "person_id": {"type": "integer", "description": "an enrolled person to verify against"},
                "claimed": {"type": "string", "description": "JSON object of claimed fields "
                            "(surname, given_names, date_of_birth, document_number, ...) instead of person_id"},
            },
        }
    }
}

PERSON_FORM = {
    "multipart/form-data": {
        "schema": {
            "type": "object",
            "required": ["surname"],
            "properties": {
                **PERSON_FIELDS,
                "person": {"type": "string", "description": "the fields as one JSON object (instead of form fields)"},
                "photo": {"type": "array", "items": {"type": "string", "format": "binary"},
                          "description": "one or more photos with exactly one face each"},
            },
        }
    },
    "application/json": {"schema": {"type": "object", "required": ["surname"], "properties": PERSON_FIELDS}},
}

RUNTIME = {"type": "object", "properties": {"mode": {"type": "string"}, "ready": {"type": "boolean"},
                                            "stages": {"type": "object"}, "why": {"type": "string"}}}

STATUS = {"type": "object", "properties": {"status": {"type": "string"}}}
