"""Who a claimed-fields check says it is: ``person_id`` or ``external_ref`` inside the claimed fields.

A bank re-verifying a customer it enrolled sends the customer's reference with the claimed fields; the
duplicate (1:N) search must then not report that customer as a duplicate of themselves. An
``external_ref`` nobody has yet is a new customer (nothing to exclude); a ``person_id`` that does not
exist is the caller's error (404), as it is for the form's ``person_id``.
"""

from __future__ import annotations

from docauth.errors import InputError, NotFound
from docauth.store.values import person_values  # the store's own rules: text, no NUL, at most 128 characters


def claimed_person_id(store, claimed: dict | None) -> int | None:
    """The enrolled person the claimed fields name, or None (no store, no claim, or a reference unknown)."""
    if store is None or not claimed:
        return None
    raw_id, raw_ref = claimed.get("person_id"), claimed.get("external_ref")
    by_id = _person_by_id(store, raw_id) if raw_id not in (None, "") else None
    ref = _reference(raw_ref) if raw_ref not in (None, "") else None
    if by_id is not None:
        if ref is not None and by_id.external_ref != ref:
            raise InputError("claimed person_id and external_ref name different persons", code="ambiguous_person")
        return by_id.id
    if ref is None:
        return None
    try:
        return store.find_person(external_ref=ref).id
    except NotFound:
        return None


def _person_by_id(store, raw):
    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        raise InputError("claimed person_id must be an integer", code="invalid_claimed")
    try:
        person_id = int(str(raw).strip())
    except ValueError as exc:
        raise InputError("claimed person_id must be an integer", code="invalid_claimed") from exc
    if not 0 < person_id < 2**63:
        raise InputError("claimed person_id must be a positive integer", code="invalid_claimed")
    try:
        return store.get_person(person_id)
    except NotFound as exc:
        raise NotFound(f"no person with id {person_id}", code="person_not_found") from exc


def _reference(raw) -> str:
    if not isinstance(raw, str):
        raise InputError("claimed external_ref must be text", code="invalid_claimed")
    return person_values({"external_ref": raw}, partial=True)["external_ref"]
