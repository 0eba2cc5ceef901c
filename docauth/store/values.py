"""What the store accepts: a person's fields validated and normalised, face encodings as bytes, audit JSON
within its bound. Every rule is the same on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import numpy as np

from docauth.dates import parse_date
from docauth.errors import InputError, Unavailable
from docauth.face_encoding import ENCODING_SIZE
from docauth.store.records import PERSON_FIELDS

#: An audit record is scores and reasons, not a place for images.
MAX_AUDIT_JSON_BYTES = 64 * 1024
SEX_VALUES = {"M", "F", "X"}


def person_date(name: str, value: Any) -> dt.date | None:
    """A record's date (a full ISO date, a date or a datetime), or an InputError naming the field."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    parsed = parse_date(text) if len(text) == 10 else None  # a record's dates are full ISO dates
    if parsed is None:
        raise InputError(f"{name} must be a date YYYY-MM-DD, got {value!r}", code="invalid_date")
    return parsed


def person_values(fields: dict[str, Any], *, partial: bool) -> dict[str, Any]:
    """Validated, normalised column values (codes uppercased, dates parsed), or an InputError."""
    unknown = set(fields) - set(PERSON_FIELDS)
    if unknown:
        raise InputError(f"unknown person field(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for name, value in fields.items():
        if name in ("date_of_birth", "document_expiry"):
            values[name] = person_date(name, value)
        elif value is None:
            values[name] = None
        elif isinstance(value, (list, dict, bool)):  # JSON bodies: str() would store "['a', 'b']"
            raise InputError(f"{name} must be text, not a JSON {type(value).__name__}", code="invalid_field")
        else:
            value = str(value).strip()
            if "\x00" in value:  # PostgreSQL refuses NUL in text; refuse it on every database alike
                raise InputError(f"{name} contains a NUL character", code="invalid_field")
            if not is_text(value):  # a lone surrogate ("\ud800" in JSON) cannot be stored as UTF-8 anywhere
                raise InputError(f"{name} contains a lone UTF-16 surrogate, which is not text", code="invalid_text")
            if name in ("nationality", "sex", "document_number"):
                value = value.upper()
            values[name] = value or None
    if not partial or "surname" in values:
        if not values.get("surname"):
            raise InputError("surname is required", code="missing_field")
    if "given_names" in values and values["given_names"] is None:
        values["given_names"] = ""
    sex = values.get("sex")
    if sex is not None and sex not in SEX_VALUES:
        raise InputError(f"sex must be one of M, F, X, got {sex!r}", code="invalid_field")
    nationality = values.get("nationality")
    if nationality is not None and not re.fullmatch(r"[A-Z]{1,3}", nationality):
        raise InputError(f"nationality must be a 3-letter ICAO code, got {nationality!r}", code="invalid_field")
    limits = {"surname": 200, "given_names": 200, "document_number": 32, "external_ref": 128}
    for name, limit in limits.items():
        if values.get(name) and len(values[name]) > limit:
            raise InputError(f"{name} is longer than {limit} characters", code="invalid_field")
    return values


def vector_bytes(encoding) -> tuple[str, bytes]:
    """(dtype, bytes) of a face encoding as stored, or an InputError when it is not 128 finite numbers."""
    vec = np.asarray(encoding, dtype=np.float64).reshape(-1)
    if vec.shape != (ENCODING_SIZE,) or not np.all(np.isfinite(vec)):
        raise InputError(f"a face encoding is {ENCODING_SIZE} finite numbers", code="invalid_encoding")
    return "float64", vec.astype("<f8").tobytes()


def decode_vector(dtype: str, data: bytes) -> np.ndarray:
    """Stored template bytes -> (128,) float64 (stored as little-endian float64 or float32)."""
    kind = {"float64": "<f8", "float32": "<f4"}.get(dtype)
    if kind is None:
        raise Unavailable(f"face template stored with unknown dtype {dtype!r}", code="corrupt_template")
    return np.frombuffer(data, dtype=kind).astype(np.float64)


def audit_json(name: str, value: Any) -> dict:
    """An audit record's scores or reasons as a small JSON object, or an InputError."""
    if value is None:
        return {}
    try:
        encoded = json.dumps(value, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InputError(f"check {name} must be JSON (plain numbers, strings, lists, dicts): {exc}") from exc
    if len(encoded) > MAX_AUDIT_JSON_BYTES:
        raise InputError(f"check {name} is {len(encoded)} bytes; audit records hold scores and reasons, not images")
    decoded = json.loads(encoded)
    if not isinstance(decoded, dict):
        raise InputError(f"check {name} must be a JSON object")
    return decoded


def is_text(value: str) -> bool:
    """False for a string with a lone UTF-16 surrogate, which no database can store as UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_sha256(value: str) -> str:
    value = str(value).lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise InputError("photo_sha256 must be 64 hex digits", code="invalid_field")
    return value
