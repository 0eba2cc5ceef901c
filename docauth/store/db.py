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

import datetime as dt
import hashlib
import json
import re
import secrets
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from sqlalchemy import create_engine, delete, event, func, select, text, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session

from docauth.dates import parse_date
from docauth.errors import ConfigError, Conflict, InputError, NotFound, Unavailable
from docauth.face_encoding import ENCODING_SIZE, FACE_MODEL_NAME, FACE_MODEL_VERSION
from docauth.store.models import (ApiKeyRow, CheckResultRow, CheckRow, FaceTemplateRow, PersonRow, StoredImageRow,
                                   utcnow)
from docauth.store.newfile import build_whole, folder_lock, pending_file
from docauth.store.records import (
    PERSON_FIELDS,
    ApiKeyRecord,
    CheckRecord,
    ErasureReport,
    FaceTemplateRecord,
    PersonRecord,
)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
#: An audit record is scores and reasons, not a place for images.
MAX_AUDIT_JSON_BYTES = 64 * 1024
API_KEY_PREFIX = "dak_"
_SEX_VALUES = {"M", "F", "X"}
_PG_MIGRATION_LOCK = 0x646F6361  # "doca": one migrator at a time on PostgreSQL
_UPGRADE_LOCK = threading.Lock()


def normalise_url(url: str) -> str:
    """Use the psycopg 3 driver for plain ``postgresql://`` / ``postgres://`` URLs.

    >>> normalise_url("postgresql://u@h/db")
    'postgresql+psycopg://u@h/db'
    >>> normalise_url("sqlite:///x.db")
    'sqlite:///x.db'
    """
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def alembic_config(url: str | None = None):
    """An Alembic ``Config`` for the packaged migrations; no alembic.ini needed."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def hash_api_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _aware(value: dt.datetime | None) -> dt.datetime | None:
    # SQLite returns naive datetimes; everything stored is UTC.
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=dt.timezone.utc)
    return value


def _parse_date(name: str, value: Any) -> dt.date | None:
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
            values[name] = _parse_date(name, value)
        elif value is None:
            values[name] = None
        elif isinstance(value, (list, dict, bool)):  # JSON bodies: str() would store "['a', 'b']"
            raise InputError(f"{name} must be text, not a JSON {type(value).__name__}", code="invalid_field")
        else:
            value = str(value).strip()
            if "\x00" in value:  # PostgreSQL refuses NUL in text; refuse it on every database alike
                raise InputError(f"{name} contains a NUL character", code="invalid_field")
            if not _is_text(value):  # a lone surrogate ("\ud800" in JSON) cannot be stored as UTF-8 anywhere
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
    if sex is not None and sex not in _SEX_VALUES:
        raise InputError(f"sex must be one of M, F, X, got {sex!r}", code="invalid_field")
    nationality = values.get("nationality")
    if nationality is not None and not re.fullmatch(r"[A-Z]{1,3}", nationality):
        raise InputError(f"nationality must be a 3-letter ICAO code, got {nationality!r}", code="invalid_field")
    limits = {"surname": 200, "given_names": 200, "document_number": 32, "external_ref": 128}
    for name, limit in limits.items():
        if values.get(name) and len(values[name]) > limit:
            raise InputError(f"{name} is longer than {limit} characters", code="invalid_field")
    return values


def _vector_bytes(encoding) -> tuple[str, bytes]:
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


def _audit_json(name: str, value: Any) -> dict:
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


class Store:
    """Persons, face templates, check audit records and API keys in one database."""

    def __init__(self, url: str, *, connect_timeout: float = 5.0, echo: bool = False, probe_timeout: float = 1.0):
        self.url = normalise_url(url)
        self.engine = self._create_engine(self.url, connect_timeout, echo)
        self.probe_timeout = probe_timeout
        self._probe_engine: Engine | None = None
        self._probe_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings=None) -> "Store":
        from docauth.config import Settings

        settings = settings or Settings.load()
        return cls(settings.resolved_database_url, probe_timeout=settings.database_probe_timeout_s)

    @property
    def probe_engine(self) -> Engine:
        """The short-timeout engine of :mod:`docauth.store.probe` (the store's own where none is needed)."""
        if self._probe_engine is None:
            with self._probe_lock:
                if self._probe_engine is None:
                    from docauth.store.probe import probe_engine

                    self._probe_engine = probe_engine(self.engine.url, self.probe_timeout) or self.engine
        return self._probe_engine

    # --- engine and errors ------------------------------------------------
    @staticmethod
    def _create_engine(url: str, connect_timeout: float, echo: bool) -> Engine:
        try:
            parsed = make_url(url)
        except sa_exc.ArgumentError as exc:
            raise ConfigError(f"database URL is not valid: {exc}") from exc
        kwargs: dict[str, Any] = {"echo": echo, "pool_pre_ping": True}
        if parsed.get_backend_name() == "sqlite":
            database = parsed.database
            if database and database != ":memory:" and not database.startswith("file:"):
                try:
                    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise Unavailable(f"cannot create the database directory for {database}: {exc}") from exc
                kwargs["connect_args"] = {"timeout": 15}
            else:
                from sqlalchemy.pool import StaticPool

                # one shared connection, or every connection would see its own empty database
                kwargs["poolclass"] = StaticPool
                kwargs["connect_args"] = {"check_same_thread": False}
        elif parsed.get_backend_name() == "postgresql":
            kwargs["connect_args"] = {"connect_timeout": max(1, int(connect_timeout))}
        try:
            engine = create_engine(parsed, **kwargs)
        except (sa_exc.ArgumentError, sa_exc.NoSuchModuleError) as exc:
            raise ConfigError(f"cannot use database URL {parsed.render_as_string(hide_password=True)}: {exc}") from exc
        except ImportError as exc:
            raise ConfigError(f"the database driver is not installed: {exc}") from exc
        if parsed.get_backend_name() == "sqlite":
            event.listen(engine, "connect", _sqlite_on_connect)
        return engine

    @property
    def safe_url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def _translate_errors(self) -> Iterator[None]:
        try:
            yield
        except sa_exc.IntegrityError as exc:
            raise Conflict(f"the change conflicts with existing data: {_first_line(exc.orig)}") from exc
        except (sa_exc.OperationalError, sa_exc.ProgrammingError) as exc:
            message = str(exc.orig).lower()
            if "no such table" in message or ("relation" in message and "does not exist" in message):
                raise Unavailable(
                    "the database schema is missing or outdated; run `docauth db upgrade`", code="schema_missing"
                ) from exc
            raise Unavailable(f"the database is unavailable: {_first_line(exc.orig)}") from exc
        except sa_exc.DBAPIError as exc:
            raise Unavailable(f"the database is unavailable: {_first_line(exc.orig)}") from exc
        except sa_exc.SQLAlchemyError as exc:
            raise Unavailable(f"database error: {_first_line(exc)}") from exc

    @contextmanager
    def _transaction(self) -> Iterator[Session]:
        """One session, one transaction: commit on success, roll back on any error."""
        with self._translate_errors():
            with Session(self.engine, expire_on_commit=False) as session:
                with session.begin():
                    yield session

    def close(self) -> None:
        if self._probe_engine is not None and self._probe_engine is not self.engine:
            self._probe_engine.dispose()
        self.engine.dispose()

    def ping(self) -> None:
        """Raise :class:`Unavailable` unless the database answers."""
        with self._translate_errors():
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))

    def ping_write(self) -> None:
        """Raise :class:`Unavailable` within about ``probe_timeout`` unless a write could start now: the file
        is there and no other connection holds a lock that would block it (see :mod:`docauth.store.probe`)."""
        from docauth.store.probe import probe_write

        with self._translate_errors():
            probe_write(self.probe_engine)

    # --- migrations -------------------------------------------------------
    def ensure_schema(self) -> None:
        """Create or migrate the schema unless it is at the latest revision: every entry point's first use."""
        if pending_file(self.engine.url) is not None or self.current_revision() != self.head_revision():
            self.upgrade()

    def upgrade(self, revision: str = "head") -> str | None:
        """Run the Alembic migrations up to ``revision``; returns the revision reached.

        A new SQLite database is made whole or not at all (:mod:`docauth.store.newfile`).
        """
        # Alembic's context is process-global: one migration at a time per process;
        # across processes an advisory lock (PostgreSQL) or a lock file (SQLite).
        with _UPGRADE_LOCK:
            built = False
            new_file = pending_file(self.engine.url)
            if new_file is not None:
                with folder_lock(new_file.parent):
                    if pending_file(self.engine.url) is not None:  # not made by another process meanwhile
                        build_whole(new_file, lambda url: Store(url)._migrate(revision, close=True))
                        built = True
                self.engine.dispose()  # no pooled connection may still point at a file replaced
            if not built:
                with self._sqlite_file_lock():
                    self._migrate(revision)
        return self.current_revision()

    def _migrate(self, revision: str, *, close: bool = False) -> None:
        from alembic import command

        cfg = alembic_config()
        try:
            with self._translate_errors(), self.engine.begin() as conn:
                if self.dialect == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
        finally:
            if close:
                self.close()

    @contextmanager
    def _sqlite_file_lock(self) -> Iterator[None]:
        database = self.engine.url.database if self.dialect == "sqlite" else None
        if not database or database == ":memory:" or database.startswith("file:"):
            yield
            return
        try:
            import fcntl
        except ImportError:  # not POSIX: the in-process lock is all there is
            yield
            return
        try:
            handle = open(f"{database}.migrate-lock", "a")
        except OSError as exc:
            raise Unavailable(f"cannot lock the database for migration: {exc}") from exc
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def current_revision(self) -> str | None:
        from alembic.runtime.migration import MigrationContext

        with self._translate_errors():
            with self.engine.connect() as conn:
                return MigrationContext.configure(conn).get_current_revision()

    @staticmethod
    def head_revision() -> str | None:
        from alembic.script import ScriptDirectory

        return ScriptDirectory.from_config(alembic_config()).get_current_head()

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
        prepared = [(*_vector_bytes(enc), _check_sha256(sha)) for enc, sha in faces]
        now = utcnow()
        with self._transaction() as session:
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
            return _person_record(row, len(templates)), [_template_record(t) for t in templates]

    def get_person(self, person_id: int) -> PersonRecord:
        with self._transaction() as session:
            row = session.get(PersonRow, int(person_id))
            if row is None:
                raise NotFound(f"no person with id {person_id}")
            return _person_record(row, self._count_templates(session, row.id))

    def find_person(self, *, external_ref: str) -> PersonRecord:
        with self._transaction() as session:
            row = session.scalars(select(PersonRow).where(PersonRow.external_ref == external_ref)).first()
            if row is None:
                raise NotFound(f"no person with external reference {external_ref!r}")
            return _person_record(row, self._count_templates(session, row.id))

    def list_persons(self, *, limit: int = 1000, offset: int = 0) -> list[PersonRecord]:
        with self._transaction() as session:
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
            return [_person_record(row, n) for row, n in rows]

    def count_persons(self) -> int:
        with self._transaction() as session:
            return int(session.scalar(select(func.count(PersonRow.id))))

    def update_person(self, person_id: int, **fields: Any) -> PersonRecord:
        values = person_values(fields, partial=True)
        with self._transaction() as session:
            row = session.get(PersonRow, int(person_id))
            if row is None:
                raise NotFound(f"no person with id {person_id}")
            for name, value in values.items():
                setattr(row, name, value)
            row.updated_at = utcnow()
            session.flush()
            return _person_record(row, self._count_templates(session, row.id))

    def delete_person(self, person_id: int) -> ErasureReport:
        """Erase a person: their row (all personal fields) and face templates.

        Their audit records lose ``person_id`` and keep only the random
        ``subject_pseudonym``, which nothing links to anyone once the row is gone.
        """
        with self._transaction() as session:
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
        dtype, blob = _vector_bytes(encoding)
        sha = _check_sha256(photo_sha256)
        default_name, default_version = FACE_MODEL_NAME, FACE_MODEL_VERSION
        with self._transaction() as session:
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
            return _template_record(row)

    def face_templates(self, person_id: int | None = None) -> list[FaceTemplateRecord]:
        with self._transaction() as session:
            query = select(FaceTemplateRow).order_by(FaceTemplateRow.id)
            if person_id is not None:
                query = query.where(FaceTemplateRow.person_id == int(person_id))
            return [_template_record(r) for r in session.scalars(query)]

    def face_templates_version(self) -> tuple[int, int | None]:
        """``(count, max id)`` of the face templates: changes whenever any process enrols or erases.

        A worker compares it with the value its :class:`~docauth.store.index.FaceIndex` was
        loaded at, and reloads when it differs.
        """
        with self._transaction() as session:
            count, top = session.execute(select(func.count(FaceTemplateRow.id), func.max(FaceTemplateRow.id))).one()
            return int(count), (None if top is None else int(top))

    def face_template_matrix(self, model_name: str | None = None, model_version: str | None = None):
        """``(template_ids, person_ids, vectors float32 (N, 128))`` of one encoder's templates, for the 1:N index."""
        default_name, default_version = FACE_MODEL_NAME, FACE_MODEL_VERSION
        with self._transaction() as session:
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
        scores_json = _audit_json("scores", scores)
        reasons_json = _audit_json("reasons", reasons)
        with self._transaction() as session:
            return _check_record(add_check_row(session, verdict, scores_json, reasons_json, person_id, channel))

    def list_checks(
        self,
        *,
        person_id: int | None = None,
        subject_pseudonym: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[CheckRecord]:
        """Newest first."""
        with self._transaction() as session:
            query = select(CheckRow).order_by(CheckRow.created_at.desc(), CheckRow.id.desc())
            if person_id is not None:
                query = query.where(CheckRow.person_id == int(person_id))
            if subject_pseudonym is not None:
                query = query.where(CheckRow.subject_pseudonym == subject_pseudonym)
            return [_check_record(r) for r in session.scalars(query.limit(limit).offset(offset))]

    # --- API keys ---------------------------------------------------------
    def create_api_key(self, name: str, key: str | None = None) -> tuple[ApiKeyRecord, str]:
        """Store the SHA-256 of a new key; returns the record and the key (shown once, never stored)."""
        name = str(name).strip()
        if not name or len(name) > 100:
            raise InputError("an API key needs a name of 1-100 characters")
        key = key or API_KEY_PREFIX + secrets.token_urlsafe(32)
        if len(key) < 16:
            raise InputError("an API key must be at least 16 characters")
        with self._transaction() as session:
            row = ApiKeyRow(name=name, key_sha256=hash_api_key(key), created_at=utcnow())
            session.add(row)
            session.flush()
            return _api_key_record(row), key

    def verify_api_key(self, key: str) -> ApiKeyRecord | None:
        """The active key's record, or None (unknown or revoked)."""
        if not key:
            return None
        # Short timeout: every request looks its key up first, and must get a 503 at once, not wait on a lock.
        with self._translate_errors(), Session(self.probe_engine) as session:
            row = session.scalars(select(ApiKeyRow).where(ApiKeyRow.key_sha256 == hash_api_key(key))).first()
            if row is None or row.revoked_at is not None:
                return None
            return _api_key_record(row)

    def list_api_keys(self, include_revoked: bool = True) -> list[ApiKeyRecord]:
        with self._transaction() as session:
            query = select(ApiKeyRow).order_by(ApiKeyRow.id)
            if not include_revoked:
                query = query.where(ApiKeyRow.revoked_at.is_(None))
            return [_api_key_record(r) for r in session.scalars(query)]

    def revoke_api_key(self, key_id: int) -> ApiKeyRecord:
        with self._transaction() as session:
            row = session.get(ApiKeyRow, int(key_id))
            if row is None:
                raise NotFound(f"no API key with id {key_id}")
            if row.revoked_at is None:
                row.revoked_at = utcnow()
            session.flush()
            return _api_key_record(row)


# --- helpers ---------------------------------------------------------------
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


def _sqlite_on_connect(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _first_line(exc: object) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _check_sha256(value: str) -> str:
    value = str(value).lower()
    if not re.fullmatch(r"[0-9a-f]{64}", value):
        raise InputError("photo_sha256 must be 64 hex digits", code="invalid_field")
    return value


def _person_record(row: PersonRow, n_templates: int) -> PersonRecord:
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
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
        n_face_templates=int(n_templates),
    )


def _template_record(row: FaceTemplateRow) -> FaceTemplateRecord:
    return FaceTemplateRecord(
        id=row.id,
        person_id=row.person_id,
        model_name=row.model_name,
        model_version=row.model_version,
        encoding=decode_vector(row.dtype, row.vector),
        photo_sha256=row.photo_sha256,
        created_at=_aware(row.created_at),
    )


def _check_record(row: CheckRow) -> CheckRecord:
    return CheckRecord(
        id=row.id,
        created_at=_aware(row.created_at),
        person_id=row.person_id,
        subject_pseudonym=row.subject_pseudonym,
        verdict=row.verdict,
        channel=row.channel,
        scores=dict(row.scores or {}),
        reasons=dict(row.reasons or {}),
    )


def _api_key_record(row: ApiKeyRow) -> ApiKeyRecord:
    return ApiKeyRecord(id=row.id, name=row.name, created_at=_aware(row.created_at), revoked_at=_aware(row.revoked_at))
