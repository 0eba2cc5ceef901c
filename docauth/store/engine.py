"""Connecting to the person database: its URL, the engine (SQLite or PostgreSQL), and SQLAlchemy's errors
translated into docauth's, so none escapes the store."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from sqlalchemy import create_engine, event, exc as sa_exc
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import StaticPool

from docauth.errors import ConfigError, Conflict, Unavailable


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


def open_engine(url: str, connect_timeout: float = 5.0, echo: bool = False) -> Engine:
    """An engine for ``url``: SQLite (its folder created, foreign keys on) or PostgreSQL (a connect timeout)."""
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


@contextmanager
def translate_errors() -> Iterator[None]:
    """SQLAlchemy's exceptions as docauth's: Conflict, Unavailable (schema missing, server down)."""
    try:
        yield
    except sa_exc.IntegrityError as exc:
        raise Conflict(f"the change conflicts with existing data: {first_line(exc.orig)}") from exc
    except (sa_exc.OperationalError, sa_exc.ProgrammingError) as exc:
        message = str(exc.orig).lower()
        if "no such table" in message or ("relation" in message and "does not exist" in message):
            raise Unavailable(
                "the database schema is missing or outdated; run `docauth db upgrade`", code="schema_missing"
            ) from exc
        raise Unavailable(f"the database is unavailable: {first_line(exc.orig)}") from exc
    except sa_exc.DBAPIError as exc:
        raise Unavailable(f"the database is unavailable: {first_line(exc.orig)}") from exc
    except sa_exc.SQLAlchemyError as exc:
        raise Unavailable(f"database error: {first_line(exc)}") from exc


def _sqlite_on_connect(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def first_line(exc: object) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
