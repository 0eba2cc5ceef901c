"""SQLAlchemy 2 table definitions. Only :mod:`docauth.store.db` uses these classes;
callers get plain records (:mod:`docauth.store.records`), never ORM objects.

The schema itself is created and evolved by the Alembic migrations in
``docauth/store/migrations``; these classes must match the latest revision.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, Date, DateTime, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class Base(DeclarativeBase):
    pass


class PersonRow(Base):
    __tablename__ = "persons"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    external_ref: Mapped[str | None] = mapped_column(String(128), unique=True)
    surname: Mapped[str] = mapped_column(String(200))
    given_names: Mapped[str] = mapped_column(String(200), default="")
    date_of_birth: Mapped[dt.date | None] = mapped_column(Date)
    nationality: Mapped[str | None] = mapped_column(String(3))
    sex: Mapped[str | None] = mapped_column(String(1))
    document_number: Mapped[str | None] = mapped_column(String(32), index=True)
    document_expiry: Mapped[dt.date | None] = mapped_column(Date)
    # Random token copied into this person's audit records; deleted with the
    # person, after which those records can no longer be linked to anyone.
    pseudonym: Mapped[str] = mapped_column(String(32), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class FaceTemplateRow(Base):
    __tablename__ = "face_templates"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("persons.id", ondelete="CASCADE"), index=True)
    model_name: Mapped[str] = mapped_column(String(100))
    model_version: Mapped[str] = mapped_column(String(100))
    # little-endian IEEE floats, `dtype` says which ("float64" from dlib, or "float32")
    dtype: Mapped[str] = mapped_column(String(16), default="float64")
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    photo_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CheckRow(Base):
    __tablename__ = "checks"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    person_id: Mapped[int | None] = mapped_column(ForeignKey("persons.id", ondelete="SET NULL"), index=True)
    subject_pseudonym: Mapped[str | None] = mapped_column(String(32), index=True)
    verdict: Mapped[str] = mapped_column(String(32))
    channel: Mapped[str | None] = mapped_column(String(32))
    scores: Mapped[dict] = mapped_column(JSON, default=dict)
    reasons: Mapped[dict] = mapped_column(JSON, default=dict)


class CheckResultRow(Base):
    """A check's exported result (fields, scores, stages; never images), until ``expires_at``."""

    __tablename__ = "check_results"

    check_id: Mapped[int] = mapped_column(ForeignKey("checks.id", ondelete="CASCADE"), primary_key=True)
    person_id: Mapped[int | None] = mapped_column(ForeignKey("persons.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), index=True)
    result: Mapped[dict] = mapped_column(JSON)


class CheckReviewRow(Base):
    """A clerk's decision on a check (accept, reject, retake): who (API key) and when; never edited."""

    __tablename__ = "check_reviews"
    __table_args__ = {"sqlite_autoincrement": True}  # audit ids are never reused

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    check_id: Mapped[int] = mapped_column(ForeignKey("checks.id", ondelete="CASCADE"), index=True)
    decision: Mapped[str] = mapped_column(String(16))
    reviewer: Mapped[str] = mapped_column(String(100))
    api_key_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ApiKeyRow(Base):
    __tablename__ = "api_keys"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    key_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    note: Mapped[str | None] = mapped_column(Text)


class StoredImageRow(Base):
    """An image the review desk shows: a check's rectified document while it waits for a clerk, or a person's
    enrolment photo. Deleted with the person (and the check), at ``expires_at``, or by the clerk's decision."""

    __tablename__ = "stored_images"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))  # check_document | enrolment_photo
    check_id: Mapped[int | None] = mapped_column(ForeignKey("checks.id", ondelete="CASCADE"), index=True)
    person_id: Mapped[int | None] = mapped_column(ForeignKey("persons.id", ondelete="CASCADE"), index=True)
    media_type: Mapped[str] = mapped_column(String(32))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), index=True)
