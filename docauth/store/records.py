"""Plain records the store returns (never ORM objects), each with ``export()``."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import numpy as np

PERSON_FIELDS = (
    "external_ref",
    "surname",
    "given_names",
    "date_of_birth",
    "nationality",
    "sex",
    "document_number",
    "document_expiry",
)


def _iso(value):
    return value.isoformat() if value is not None else None


@dataclass(frozen=True)
class PersonRecord:
    id: int
    surname: str
    given_names: str
    date_of_birth: dt.date | None = None
    nationality: str | None = None
    sex: str | None = None
    document_number: str | None = None
    document_expiry: dt.date | None = None
    external_ref: str | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    n_face_templates: int = 0

    def export(self) -> dict:
        return {
            "id": self.id,
            "external_ref": self.external_ref,
            "surname": self.surname,
            "given_names": self.given_names,
            "date_of_birth": _iso(self.date_of_birth),
            "nationality": self.nationality,
            "sex": self.sex,
            "document_number": self.document_number,
            "document_expiry": _iso(self.document_expiry),
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "n_face_templates": self.n_face_templates,
        }


@dataclass(frozen=True)
class FaceTemplateRecord:
    id: int
    person_id: int
    model_name: str
    model_version: str
    encoding: np.ndarray  # (128,) float64
    photo_sha256: str
    created_at: dt.datetime | None = None

    def export(self, include_encoding: bool = False) -> dict:
        out = {
            "id": self.id,
            "person_id": self.person_id,
            "model_name": self.model_name,
            "model_version": self.model_version,
            "photo_sha256": self.photo_sha256,
            "created_at": _iso(self.created_at),
        }
        if include_encoding:
            out["encoding"] = [float(v) for v in self.encoding]
        return out


@dataclass(frozen=True)
class CheckRecord:
    id: int
    created_at: dt.datetime
    person_id: int | None
    subject_pseudonym: str | None
    verdict: str
    channel: str | None
    scores: dict
    reasons: dict

    def export(self) -> dict:
        return {
            "id": self.id,
            "created_at": _iso(self.created_at),
            "person_id": self.person_id,
            "subject_pseudonym": self.subject_pseudonym,
            "verdict": self.verdict,
            "channel": self.channel,
            "scores": self.scores,
            "reasons": self.reasons,
        }


@dataclass(frozen=True)
class ApiKeyRecord:
    id: int
    name: str
    created_at: dt.datetime
    revoked_at: dt.datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def export(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "created_at": _iso(self.created_at),
            "revoked_at": _iso(self.revoked_at),
            "active": self.active,
        }


@dataclass(frozen=True)
class ErasureReport:
    person_id: int
    face_templates_deleted: int
    checks_pseudonymised: int
    check_results_deleted: int = 0

    def export(self) -> dict:
        return {
            "person_id": self.person_id,
            "face_templates_deleted": self.face_templates_deleted,
            "checks_pseudonymised": self.checks_pseudonymised,
            "check_results_deleted": self.check_results_deleted,
        }
