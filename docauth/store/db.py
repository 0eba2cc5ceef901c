"""The person database: persons, face templates, the check audit trail, API keys.

    store = Store.from_settings()          # SQLite under DOCAUTH_DATA_DIR, or DOCAUTH_DATABASE_URL
    store.upgrade()                        # Alembic migrations to the latest revision
    person = store.add_person(surname="ERIKSSON", given_names="ANNA MARIA", date_of_birth="1974-08-12")
    store.add_face_template(person.id, encoding, photo_sha256)

Every method runs in one transaction: it commits whole or not at all. Callers
get plain records (:mod:`docauth.store.records`), never ORM objects. Database
failures become :class:`docauth.errors.Unavailable` (server unreachable,
schema missing), :class:`~docauth.errors.Conflict` (a unique value taken) or
:class:`~docauth.errors.NotFound`; SQLAlchemy exceptions do not escape.

Erasure (``delete_person``) deletes the person row, their face templates and kept check results;
audit records keep only ``subject_pseudonym``, a random token that lived in
the person row and is gone with it (see docs/matching.md).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from docauth.config import Settings
from docauth.errors import InputError, NotFound, Unavailable
from docauth.face_encoding import ENCODING_SIZE, FACE_MODEL_NAME, FACE_MODEL_VERSION
from docauth.store import schema
from docauth.store.engine import normalise_url, open_engine, translate_errors
from docauth.store.models import (
    ApiKeyRow,
    CheckResultRow,
    CheckRow,
    FaceTemplateRow,
    PersonRow,
    StoredImageRow,
    utcnow,
)
from docauth.store.newfile import pending_file
from docauth.store.probe import probe_engine, probe_write
from docauth.store.records import ApiKeyRecord, CheckRecord, ErasureReport, FaceTemplateRecord, PersonRecord
from docauth.store.rows import api_key_record, check_record, person_record, template_record
from docauth.store.values import audit_json, check_sha256, decode_vector, person_values, vector_bytes

API_KEY_PREFIX = "dak_"


def hash_api_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class Store:
    """Persons, face templates, check audit records and API keys in one database."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0, echo: bool = False, probe_timeout: float = 1.0):
        self.url = normalise_url(url)
        self.engine = open_engine(self.url, connect_timeout, echo)
        self.probe_timeout = probe_timeout
        self._probe_engine: Engine | None = None
        self._probe_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> "Store":
        settings = settings or Settings.load()
        return cls(settings.resolved_database_url, probe_timeout=settings.database_probe_timeout_s)

    @property
    def probe_engine(self) -> Engine:
        """The short-timeout engine of :mod:`docauth.store.probe` (the store's own where none is needed)."""
        if self._probe_engine is None:
            with self._probe_lock:
                if self._probe_engine is None:
                    self._probe_engine = probe_engine(self.engine.url, self.probe_timeout) or self.engine
        return self._probe_engine

    # --- engine and errors ------------------------------------------------
    @property
    def safe_url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One session, one transaction: commit on success, roll back on any error."""
        with translate_errors():
            with Session(self.engine, expire_on_commit=False) as session:
                with session.begin():
                    yield session

    def close(self) -> None:
        if self._probe_engine is not None and self._probe_engine is not self.engine:
            self._probe_engine.dispose()
        self.engine.dispose()

    def ping(self) -> None:
        """Raise :class:`Unavailable` unless the database answers."""
        with translate_errors():
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))

    def ping_write(self) -> None:
        """Raise :class:`Unavailable` within about ``probe_timeout`` unless a write could start now: the file
        is there and no other connection holds a lock that would block it (see :mod:`docauth.store.probe`)."""
        with translate_errors():
            probe_write(self.probe_engine)

    # --- migrations -------------------------------------------------------
    def upgrade(self, revision: str = "head") -> str | None:
        """Run the Alembic migrations up to ``revision`` (:mod:`docauth.store.schema`); returns the revision
        reached."""
        schema.upgrade(self.engine, revision)
        return self.current_revision()

    def current_revision(self) -> str | None:
        return schema.current_revision(self.engine)

    @staticmethod
    def head_revision() -> str | None:
        return schema.head_revision()

    def ensure_schema(self) -> None:
        """Create or migrate the schema unless it is at the latest revision: every entry point's first use."""
        if pending_file(self.engine.url) is not None or self.current_revision() != self.head_revision():
            self.upgrade()

    # --- persons ----------------------------------------------------------
    def add_person(self, **fields: Any) -> PersonRecord:
        person, _ = self.enrol(fields, faces=())
        return person

    def enrol(self, fields: dict[str, Any], faces=()) -> tuple[PersonRecord, list[FaceTemplateRecord]]:
        """Add a person and their face templates in one transaction.

        ``faces``: iterable of ``(encoding, photo_sha256)``; nothing is written
        when any of them is invalid.
        """
        values = person_values(dict(fields), partial=False)
        prepared = [(*vector_bytes(enc), check_sha256(sha)) for enc, sha in faces]
        now = utcnow()
        with self.transaction() as session:
            row = PersonRow(**values, pseudonym=secrets.token_hex(16), created_at=now, updated_at=now)
            session.add(row)
            session.flush()
            templates = []
            for dtype, blob, sha in prepared:
                t = FaceTemplateRow(
                    person_id=row.id,
                    model_name=FACE_MODEL_NAME,
                    model_version=FACE_MODEL_VERSION,
                    dtype=dtype,
                    vector=blob,
                    photo_sha256=sha,
                    created_at=now,
                )
                session.add(t)
                templates.append(t)
            session.flush()
            return person_record(row, len(templates)), [template_record(t) for t in templates]

    def get_person(self, person_id: int) -> PersonRecord:
        with self.transaction() as session:
            row = session.get(PersonRow, int(person_id))
            if row is None:
                raise NotFound(f"no person with id {person_id}")
            return person_record(row, self._count_templates(session, row.id))

    def find_person(self, *, external_ref: str) -> PersonRecord:
        with self.transaction() as session:
            row = session.scalars(select(PersonRow).where(PersonRow.external_ref == external_ref)).first()
            if row is None:
                raise NotFound(f"no person with external reference {external_ref!r}")
            return person_record(row, self._count_templates(session, row.id))

    def list_persons(self, *, limit: int = 1000, offset: int = 0) -> list[PersonRecord]:
        with self.transaction() as session:
            counts = (
                select(FaceTemplateRow.person_id, func.count(FaceTemplateRow.id).label("n"))
                .group_by(FaceTemplateRow.person_id)
                .subquery()
            )
            rows = session.execute(
                select(PersonRow, func.coalesce(counts.c.n, 0))
                .outerjoin(counts, counts.c.person_id == PersonRow.id)
                .order_by(PersonRow.id)
                .limit(limit)
                .offset(offset)
            ).all()
            return [person_record(row, n) for row, n in rows]

    def count_persons(self) -> int:
        with self.transaction() as session:
            return int(session.scalar(select(func.count(PersonRow.id))))

    def update_person(self, person_id: int, **fields: Any) -> PersonRecord:
        values = person_values(fields, partial=True)
        with self.transaction() as session:
            row = session.get(PersonRow, int(person_id))
            if row is None:
                raise NotFound(f"no person with id {person_id}")
            for name, value in values.items():
                setattr(row, name, value)
            row.updated_at = utcnow()
            session.flush()
            return person_record(row, self._count_templates(session, row.id))

    def delete_person(self, person_id: int) -> ErasureReport:
        """Erase a person: their row (all personal fields) and face templates.

        Their audit records lose ``person_id`` and keep only the random
        ``subject_pseudonym``, which nothing links to anyone once the row is gone.
        """
        with self.transaction() as session:
            row = session.get(PersonRow, int(person_id))
            if row is None:
                raise NotFound(f"no person with id {person_id}")
            # explicit, not only ON DELETE: the erasure must not depend on FK enforcement
            templates = session.execute(delete(FaceTemplateRow).where(FaceTemplateRow.person_id == row.id))
            results = session.execute(delete(CheckResultRow).where(CheckResultRow.person_id == row.id))
            session.execute(delete(StoredImageRow).where(StoredImageRow.person_id == row.id))  # desk images
            checks = session.execute(
                update(CheckRow)
                .where(CheckRow.person_id == row.id)
                .values(person_id=None, subject_pseudonym=row.pseudonym)
            )
            session.delete(row)
            return ErasureReport(
                person_id=int(person_id),
                face_templates_deleted=int(templates.rowcount or 0),
                checks_pseudonymised=int(checks.rowcount or 0),
                check_results_deleted=int(results.rowcount or 0),
            )

    @staticmethod
    def _count_templates(session: Session, person_id: int) -> int:
        return int(session.scalar(select(func.count(FaceTemplateRow.id)).where(FaceTemplateRow.person_id == person_id)))

    # --- face templates ---------------------------------------------------
    def add_face_template(
        self,
        person_id: int,
        encoding,
        photo_sha256: str,
        *,
        model_name: str | None = None,
        model_version: str | None = None,
    ) -> FaceTemplateRecord:
        dtype, blob = vector_bytes(encoding)
        sha = check_sha256(photo_sha256)
        default_name, default_version = FACE_MODEL_NAME, FACE_MODEL_VERSION
        with self.transaction() as session:
            if session.get(PersonRow, int(person_id)) is None:
                raise NotFound(f"no person with id {person_id}")
            row = FaceTemplateRow(
                person_id=int(person_id),
                model_name=model_name or default_name,
                model_version=model_version or default_version,
                dtype=dtype,
                vector=blob,
                photo_sha256=sha,
                created_at=utcnow(),
            )
            session.add(row)
            session.flush()
            return template_record(row)

    def face_templates(self, person_id: int | None = None) -> list[FaceTemplateRecord]:
        with self.transaction() as session:
            query = select(FaceTemplateRow).order_by(FaceTemplateRow.id)
            if person_id is not None:
                query = query.where(FaceTemplateRow.person_id == int(person_id))
            return [template_record(r) for r in session.scalars(query)]

    def face_templates_version(self) -> tuple[int, int | None]:
        """``(count, max id)`` of the face templates: changes whenever any process enrols or erases.

        A worker compares it with the value its :class:`~docauth.store.index.FaceIndex` was
        loaded at, and reloads when it differs.
        """
        with self.transaction() as session:
            count, top = session.execute(select(func.count(FaceTemplateRow.id), func.max(FaceTemplateRow.id))).one()
            return int(count), (None if top is None else int(top))

    def face_template_matrix(self, model_name: str | None = None, model_version: str | None = None):
        """``(template_ids, person_ids, vectors float32 (N, 128))`` of one encoder's templates, for the 1:N index."""
        default_name, default_version = FACE_MODEL_NAME, FACE_MODEL_VERSION
        with self.transaction() as session:
            rows = session.execute(
                select(FaceTemplateRow.id, FaceTemplateRow.person_id, FaceTemplateRow.dtype, FaceTemplateRow.vector)
                .where(FaceTemplateRow.model_name == (model_name or default_name))
                .where(FaceTemplateRow.model_version == (model_version or default_version))
                .order_by(FaceTemplateRow.id)
            ).all()
        template_ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        person_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        vectors = np.empty((len(rows), ENCODING_SIZE), dtype=np.float32)
        for i, r in enumerate(rows):
            vectors[i] = decode_vector(r[2], r[3])
        return template_ids, person_ids, vectors

    # --- audit ------------------------------------------------------------
    def record_check(
        self,
        verdict: str,
        *,
        scores: dict | None = None,
        reasons: dict | None = None,
        person_id: int | None = None,
        channel: str | None = None,
    ) -> CheckRecord:
        """Append an audit record: verdict, per-stage scores and reasons. No images, no personal data."""
        verdict = str(verdict).strip()
        if not verdict or len(verdict) > 32:
            raise InputError("verdict must be a short code (1-32 characters)")
        scores_json = audit_json("scores", scores)
        reasons_json = audit_json("reasons", reasons)
        with self.transaction() as session:
            return check_record(add_check_row(session, verdict, scores_json, reasons_json, person_id, channel))

    def list_checks(
        self,
        *,
        person_id: int | None = None,
        subject_pseudonym: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[CheckRecord]:
        """Newest first."""
        with self.transaction() as session:
            query = select(CheckRow).order_by(CheckRow.created_at.desc(), CheckRow.id.desc())
            if person_id is not None:
                query = query.where(CheckRow.person_id == int(person_id))
            if subject_pseudonym is not None:
                query = query.where(CheckRow.subject_pseudonym == subject_pseudonym)
            return [check_record(r) for r in session.scalars(query.limit(limit).offset(offset))]

    # --- API keys ---------------------------------------------------------
    def create_api_key(self, name: str, key: str | None = None) -> tuple[ApiKeyRecord, str]:
        """Store the SHA-256 of a new key; returns the record and the key (shown once, never stored)."""
        name = str(name).strip()
        if not name or len(name) > 100:
            raise InputError("an API key needs a name of 1-100 characters")
        key = key or API_KEY_PREFIX + secrets.token_urlsafe(32)
        if len(key) < 16:
            raise InputError("an API key must be at least 16 characters")
        with self.transaction() as session:
            row = ApiKeyRow(name=name, key_sha256=hash_api_key(key), created_at=utcnow())
            session.add(row)
            session.flush()
            return api_key_record(row), key

    def verify_api_key(self, key: str) -> ApiKeyRecord | None:
        """The active key's record, or None (unknown or revoked)."""
        if not key:
            return None
        # Short timeout: every request looks its key up first, and must get a 503 at once, not wait on a lock.
        with translate_errors(), Session(self.probe_engine) as session:
            row = session.scalars(select(ApiKeyRow).where(ApiKeyRow.key_sha256 == hash_api_key(key))).first()
            if row is None or row.revoked_at is not None:
                return None
            return api_key_record(row)

    def list_api_keys(self, include_revoked: bool = True) -> list[ApiKeyRecord]:
        with self.transaction() as session:
            query = select(ApiKeyRow).order_by(ApiKeyRow.id)
            if not include_revoked:
                query = query.where(ApiKeyRow.revoked_at.is_(None))
            return [api_key_record(r) for r in session.scalars(query)]

    def revoke_api_key(self, key_id: int) -> ApiKeyRecord:
        with self.transaction() as session:
            row = session.get(ApiKeyRow, int(key_id))
            if row is None:
                raise NotFound(f"no API key with id {key_id}")
            if row.revoked_at is None:
                row.revoked_at = utcnow()
            session.flush()
            return api_key_record(row)


def add_check_row(session: Session, verdict: str, scores: dict, reasons: dict, person_id, channel) -> CheckRow:
    """Insert one audit row in the caller's transaction (also used by :mod:`docauth.store.checks`)."""
    pseudonym = None
    if person_id is not None:
        person = session.get(PersonRow, int(person_id))
        if person is None:
            raise NotFound(f"no person with id {person_id}")
        pseudonym = person.pseudonym
    row = CheckRow(created_at=utcnow(), person_id=None if person_id is None else int(person_id),
                   subject_pseudonym=pseudonym, verdict=verdict, channel=channel, scores=scores, reasons=reasons)
    session.add(row)
    session.flush()
    return row


