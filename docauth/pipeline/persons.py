"""A person's fields under their canonical names, whatever spelling a caller or a reader used."""

from __future__ import annotations

from typing import Any

FIELD_ALIASES = {
    "surname": ("surname", "last_name", "family_name"),
    "given_names": ("given_names", "given_name", "first_name", "first_names"),
    "date_of_birth": ("date_of_birth", "birth_date", "dob"),
    "document_number": ("document_number", "doc_number", "number"),
    "expiry_date": ("expiry_date", "date_of_expiry", "document_expiry", "expiration_date", "expires"),
    "nationality": ("nationality",),
    "sex": ("sex", "gender"),
    "issuing_country": ("issuing_country", "country", "issuer"),
    "document_type": ("document_type", "type"),
}


def _pick(d: dict, names) -> Any:
    for n in names:
        if d.get(n) not in (None, ""):
            return d[n]
    return None


def normalise_person(d: dict) -> dict:
    """Any of the accepted spellings -> the canonical field names (unknown keys kept)."""
    out = {k: v for k, v in d.items()}
    for canonical, names in FIELD_ALIASES.items():
        value = _pick(d, names)
        if value is not None:
            out[canonical] = value
    return out
