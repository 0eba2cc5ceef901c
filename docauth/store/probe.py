"""Short-timeout access to the database for readiness and API-key lookups.

The store's own engine waits up to 15 s for a locked SQLite file (a write that is merely slow should
succeed), keeps pooled connections to a file that has since been moved away, and its ``SELECT 1`` never
touches the file. Readiness and key lookups must instead tell the truth within about a second: this engine
opens the file afresh each time, never creates it (``mode=rw``), and gives up after ``timeout_s``.
"""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine, URL
from sqlalchemy.pool import NullPool


def sqlite_file(url: URL) -> Path | None:
    """The database file of a file-backed SQLite URL, else None (memory, ``file:`` URIs, other databases)."""
    if url.get_backend_name() != "sqlite":
        return None
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def probe_engine(url: URL, timeout_s: float) -> Engine | None:
    """An engine for quick probes of the database at ``url``, or None where the store's engine is as good."""
    path = sqlite_file(url)
    if path is not None:
        uri = f"file:{quote(str(path.resolve()))}?mode=rw"

        def connect():
            return sqlite3.connect(uri, uri=True, timeout=timeout_s, check_same_thread=False)

        engine = create_engine("sqlite://", creator=connect, poolclass=NullPool)
        event.listen(engine, "connect", _sqlite_busy_timeout(timeout_s))
        return engine
    if url.get_backend_name() == "postgresql":
        millis = max(1, int(timeout_s * 1000))
        return create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=8, pool_timeout=timeout_s,
                             connect_args={"connect_timeout": max(1, math.ceil(timeout_s)),
                                           "options": f"-c statement_timeout={millis} -c lock_timeout={millis}"})
    return None


def _sqlite_busy_timeout(timeout_s: float):
    def on_connect(dbapi_connection, _record) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout={max(1, int(timeout_s * 1000))}")
        cursor.close()

    return on_connect


def probe_write(engine: Engine) -> None:
    """Take the lock a write would take, then roll back; raises SQLAlchemy errors (the caller translates).

    SQLite: ``BEGIN IMMEDIATE`` (the reserved lock every write needs; fails while another connection holds
    an exclusive lock). PostgreSQL: a read-write transaction that takes ``ROW EXCLUSIVE`` on ``persons``,
    the lock an insert takes, so a table locked against writes or a read-only server fail the probe.
    """
    if engine.dialect.name == "sqlite":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            try:
                conn.exec_driver_sql("SELECT count(*) FROM sqlite_master")  # reads the schema from the file
            finally:
                conn.exec_driver_sql("ROLLBACK")
        return
    with engine.connect() as conn:
        transaction = conn.begin()
        try:
            if engine.dialect.name == "postgresql":
                conn.execute(text("SET TRANSACTION READ WRITE"))
                conn.execute(text("LOCK TABLE persons IN ROW EXCLUSIVE MODE"))
            else:
                conn.execute(text("SELECT 1"))
        finally:
            transaction.rollback()
