"""The database schema: Alembic's packaged migrations, run one migrator at a time (an advisory lock on
PostgreSQL, a lock file beside a SQLite database), a new SQLite file made whole or not at all."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Engine

from docauth.errors import Unavailable
from docauth.store.engine import normalise_url, open_engine, translate_errors
from docauth.store.newfile import build_whole, folder_lock, pending_file

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_PG_MIGRATION_LOCK = 0x646F6361  # "doca": one migrator at a time on PostgreSQL
# Alembic's context is process-global: one migration at a time per process.
_UPGRADE_LOCK = threading.Lock()


def alembic_config(url: str | None = None):
    """An Alembic ``Config`` for the packaged migrations; no alembic.ini needed."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Run the migrations up to ``revision``. A new SQLite database is made whole or not at all
    (:mod:`docauth.store.newfile`); across processes an advisory lock (PostgreSQL) or a lock file (SQLite)
    lets one migrator run at a time."""
    with _UPGRADE_LOCK:
        built = False
        new_file = pending_file(engine.url)
        if new_file is not None:
            with folder_lock(new_file.parent):
                if pending_file(engine.url) is not None:  # not made by another process meanwhile
                    build_whole(new_file, lambda url: _migrate_new_file(url, revision))
                    built = True
            engine.dispose()  # no pooled connection may still point at a file replaced
        if not built:
            with _sqlite_file_lock(engine):
                migrate(engine, revision)


def _migrate_new_file(url: str, revision: str) -> None:
    engine = open_engine(normalise_url(url))
    try:
        migrate(engine, revision)
    finally:
        engine.dispose()


def migrate(engine: Engine, revision: str) -> None:
    cfg = alembic_config()
    with translate_errors(), engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


@contextmanager
def _sqlite_file_lock(engine: Engine) -> Iterator[None]:
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:"):
        yield
        return
    try:
        import fcntl  # POSIX only
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


def current_revision(engine: Engine) -> str | None:
    with translate_errors():
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
