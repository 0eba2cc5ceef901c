"""JSON schemas of the API's bodies (used by the route declarations and so by /openapi.json)."""

from __future__ import annotations

from docauth.pipeline.policy import REASONS
from docauth.pipeline.result import DECISIONS
from docauth.store.reviews import ALIASES, DECISIONS as CLERK_DECISIONS

REASON = {
    "type": "object",
    "properties": {
        "code": {"type": "string", "enum": sorted(REASONS)},
        "stage": {"type": "string"},
        "message": {"type": "string"},
        "severity": {"type": "string", "enum": ["review", "reject", "retake"],
                     "description": "retake: a capture-quality reason (ask the customer for a new photo)"},
    },
}

STAGE = {
    "type": "object",
    "required": ["status"],
    "properties": {"status": {"type": "string", "enum": ["ok", "skipped", "failed"]},
                   "output": {"description": "what the stage found (its own shape; see docs/api.md)"},
                   "note": {"type": "string", "description": "why it was skipped"}},
}

NUMBER_OR_NULL = {"type": "number", "nullable": True}
TEXT_OR_NULL = {"type": "string", "nullable": True}

DOCUMENT = {
    "type": "object",
    "description": "what the classifier and the MRZ say the image is",
    "properties": {
        "is_document": {"type": "boolean"},
        "document_score": {**NUMBER_OR_NULL, "description": "probability that it is a document (0-1)"},
        "side": {**TEXT_OR_NULL, "description": "front, back or open (a passport's data page)"},
        "side_scores": {"type": "object", "nullable": True, "additionalProperties": {"type": "number"}},
        "side_source": {**TEXT_OR_NULL, "description": "what decided the side: the model or the MRZ read"},
        "side_model": TEXT_OR_NULL,
        "side_classified": TEXT_OR_NULL,
        "kind": {**TEXT_OR_NULL, "description": "the MRZ format (TD1, TD2, TD3) when one was read"},
    },
}

# The document's fields as read (MRZ over printed); other keys may follow the reader's additions.
FIELDS = {
    "type": "object",
    "properties": {name: TEXT_OR_NULL for name in (
        "surname", "given_names", "date_of_birth", "sex", "nationality", "document_number", "expiry_date",
        "issuing_country", "document_type")},
}

SCORES = {
    "type": "object",
    "description": "raw scores, each on its own scale (see scores_normalised for one scale)",
    "properties": {
        "document": {**NUMBER_OR_NULL, "description": "probability that it is a document, 0-1"},
        "mrz": {**NUMBER_OR_NULL, "description": "MRZ structure and check-digit score, 0-100"},
        "text": {**NUMBER_OR_NULL, "description": "mean field similarity with the record, 0-1"},
        "face_distance": {**NUMBER_OR_NULL, "description": "face distance to the person's photos; lower is closer"},
        "duplicate_distance": {**NUMBER_OR_NULL,
                               "description": "face distance to the nearest other enrolled person"},
    },
    "additionalProperties": NUMBER_OR_NULL,
}

NORMALISED_SCORE = {
    "type": "object",
    "required": ["score", "raw", "raw_scale"],
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1, "description": "0-1, higher is better"},
        "raw": {"type": "number", "description": "the raw score it comes from"},
        "raw_scale": {"type": "string", "enum": ["probability", "0-100", "similarity", "distance"]},
        "threshold": {"type": "number", "description": "a distance's threshold; it maps to 0.5"},
    },
}

SCORES_NORMALISED = {
    "type": "object",
    "description": "every score on 0-1, higher is better (docauth.pipeline.scores); a key only where its raw "
                   "score is there",
    "properties": {name: NORMALISED_SCORE for name in ("document", "mrz", "text", "face", "uniqueness")},
    "additionalProperties": NORMALISED_SCORE,
}

BOX = {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4, "nullable": True,
       "description": "[x0, y0, x1, y1] in pixels of the rectified document"}

GEOMETRY = {
    "type": "object",
    "nullable": True,
    "description": "where the MRZ, the portrait and each printed field are on the upright, rectified document "
                   "(width x height pixels); null when OCR made none. Numbers only: the image is never in a result",
    "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}, "mrz": BOX, "face": BOX,
                   "fields": {"type": "object", "additionalProperties": BOX}},
}

CHECK_RESULT = {
    "type": "object",
    "required": ["decision", "reasons", "stages", "timings_ms"],
    "properties": {
        "check_id": {"type": "integer", "nullable": True},
        "request_id": {"type": "string"},
        "decision": {"type": "string", "enum": list(DECISIONS),
                     "description": "accept; review (a clerk should look); reject; retake (ask the customer for a "
                                    "new photo: blurred, glare, cut off, too small or too dark; overrides the "
                                    "others)"},
        "reasons": {"type": "array", "items": REASON},
        "document": DOCUMENT,
        "fields": FIELDS,
        "person_id": {"type": "integer", "nullable": True},
        "claimed": {"type": "boolean"},
        "claimed_person_id": {"type": "integer", "nullable": True,
                              "description": "the enrolled person the claimed fields name (external_ref or "
                                             "person_id); excluded from the duplicate search"},
        "scores": SCORES,
        "scores_normalised": SCORES_NORMALISED,
        "stages": {"type": "object", "additionalProperties": STAGE},
        "timings_ms": {"type": "object", "additionalProperties": {"type": "number", "nullable": True}},
        "models": {"type": "object", "additionalProperties": {"type": "object"}},
        "geometry": GEOMETRY,
    },
}

KEPT_CHECK_RESULT = {
    **CHECK_RESULT,
    "required": [*CHECK_RESULT["required"], "check_id", "created_at", "expires_at"],
    "properties": {**CHECK_RESULT["properties"], "created_at": {"type": "string", "format": "date-time"},
                   "expires_at": {"type": "string", "format": "date-time"},
                   "stages_truncated": {"type": "boolean"}},
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

def _nullable(schema: dict) -> dict:
    """``schema`` or null (OpenAPI 3.0: an enum must list null itself for a null to validate)."""
    out = {**schema, "nullable": True}
    if "enum" in schema:
        out["enum"] = [*schema["enum"], None]
    return out


PERSON = {
    "type": "object",
    # Optional fields come back as null when not given (found by the Schemathesis run).
    "properties": {"id": {"type": "integer"},
                   **{k: (v if k == "surname" else _nullable(v)) for k, v in PERSON_FIELDS.items()},
                   "n_face_templates": {"type": "integer"}, "created_at": {"type": "string"},
                   "updated_at": {"type": "string", "nullable": True}},
}

FACE_TEMPLATE = {
    "type": "object",
    "properties": {"id": {"type": "integer"}, "person_id": {"type": "integer"}, "model_name": {"type": "string"},
                   "model_version": {"type": "string"}, "photo_sha256": {"type": "string"},
                   "created_at": {"type": "string", "nullable": True}},
}

PHOTOS_ADDED = {
    "type": "object",
    "required": ["person", "templates"],
    "properties": {"person": PERSON, "templates": {"type": "array", "items": FACE_TEMPLATE}},
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

PERSON_PATCH = {
    "application/json": {"schema": {"type": "object", "minProperties": 1,
                                     "properties": {k: (v if k == "surname" else _nullable(v))
                                                    for k, v in PERSON_FIELDS.items()},
                                     "description": "only the fields to change; null clears one"}},
    "multipart/form-data": {"schema": {"type": "object", "properties": {
        **PERSON_FIELDS, "person": {"type": "string", "description": "the fields as one JSON object"}}}},
}

PHOTOS_FORM = {
    "multipart/form-data": {
        "schema": {
            "type": "object",
            "required": ["photo"],
            "properties": {"photo": {"type": "array", "items": {"type": "string", "format": "binary"},
                                     "description": "one or more photos with exactly one face each"}},
        }
    }
}

REVIEW = {
    "type": "object",
    "required": ["check_id", "decision", "reviewer", "decided_at"],
    "properties": {"id": {"type": "integer"}, "check_id": {"type": "integer"},
                   "decision": {"type": "string", "enum": list(CLERK_DECISIONS)},
                   "reviewer": {"type": "string", "description": "the API key's name"},
                   "api_key_id": {"type": "integer", "nullable": True},
                   "decided_at": {"type": "string", "format": "date-time"}},
}

KEPT_CHECK_RESULT["properties"]["reviews"] = {"type": "array", "items": REVIEW,
                                              "description": "clerks' decisions on this check, oldest first"}

REVIEW_QUEUE = {
    "type": "object",
    "properties": {
        "checks": {"type": "array", "items": {"type": "object", "properties": {
            "check_id": {"type": "integer"}, "created_at": {"type": "string", "format": "date-time"},
            "expires_at": {"type": "string", "format": "date-time"},
            "person_id": {"type": "integer", "nullable": True},
            "reasons": {"type": "array", "items": {"type": "string"}}}}},
        "limit": {"type": "integer"},
    },
}

REVIEW_DECISION = {
    "application/json": {"schema": {"type": "object", "required": ["decision"], "additionalProperties": False,
                                    "properties": {"decision": {"type": "string",
                                                                "enum": [*CLERK_DECISIONS, *ALIASES],
                                                                "description": "retake: ask for a new photo "
                                                                               "(resubmit: its former name)"}}}},
}

JPEG_IMAGE = {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}}}

RUNTIME = {"type": "object", "properties": {"mode": {"type": "string"}, "ready": {"type": "boolean"},
                                            "stages": {"type": "object"}, "why": {"type": "string"}}}

STATUS = {"type": "object", "properties": {"status": {"type": "string"}}}
