"""ORM rows as the plain records callers get (:mod:`docauth.store.records`), times in UTC."""

from __future__ import annotations

import datetime as dt

from docauth.store.models import ApiKeyRow, CheckRow, FaceTemplateRow, PersonRow
from docauth.store.records import ApiKeyRecord, CheckRecord, FaceTemplateRecord, PersonRecord
from docauth.store.values import decode_vector


def aware(value: dt.datetime | None) -> dt.datetime | None:
    # SQLite returns naive datetimes; everything stored is UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=dt.timezone.utc)
    return value


def person_record(row: PersonRow, n_templates: int) -> PersonRecord:
    return PersonRecord(
        id=row.id,
        surname=row.surname,
        given_names=row.given_names or "",
        date_of_birth=row.date_of_birth,
        nationality=row.nationality,
        sex=row.sex,
        document_number=row.document_number,
        document_expiry=row.document_expiry,
        external_ref=row.external_ref,
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
        n_face_templates=int(n_templates),
    )


def template_record(row: FaceTemplateRow) -> FaceTemplateRecord:
    return FaceTemplateRecord(
        id=row.id,
        person_id=row.person_id,
        model_name=row.model_name,
        model_version=row.model_version,
        encoding=decode_vector(row.dtype, row.vector),
        photo_sha256=row.photo_sha256,
        created_at=aware(row.created_at),
    )


def check_record(row: CheckRow) -> CheckRecord:
    return CheckRecord(
        id=row.id,
        created_at=aware(row.created_at),
        person_id=row.person_id,
        subject_pseudonym=row.subject_pseudonym,
        verdict=row.verdict,
        channel=row.channel,
        scores=dict(row.scores or {}),
        reasons=dict(row.reasons or {}),
    )


def api_key_record(row: ApiKeyRow) -> ApiKeyRecord:
    return ApiKeyRecord(id=row.id, name=row.name, created_at=aware(row.created_at), revoked_at=aware(row.revoked_at))
