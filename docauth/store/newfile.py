"""A new SQLite database is built under a temporary name and moved into place whole.

A first use that fails part-way (a model missing, the disk full, an interrupt)
then leaves no empty or half-made ``docauth.sqlite3`` behind, and processes
starting at once build it once (the folder is locked while it is made).
"""

from __future__ import annotations

import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from docauth.errors import Unavailable


def pending_file(url) -> Path | None:
    """The SQLite file of ``url`` when it is still to be made (absent or empty), else None."""
    if url.get_backend_name() != "sqlite":
        return None
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    path = Path(database).expanduser()
    try:
        return path if path.stat().st_size == 0 else None
    except FileNotFoundError:
        return path


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the folder itself, so making the database leaves no lock file behind."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the caller's in-process lock is all there is
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        raise Unavailable(f"cannot open the database folder {folder}: {exc.strerror}") from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def build_whole(path: Path, migrate: Callable[[str], None]) -> None:
    """Run ``migrate(url)`` on a scratch file beside ``path``, then move it to ``path`` in one rename."""
    part = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    try:
        migrate(f"sqlite:///{part}")
        try:
            os.replace(part, path)
        except OSError as exc:
            raise Unavailable(f"cannot create the database {path}: {exc.strerror}") from exc
    finally:
        for leftover in (part, part.with_name(part.name + "-journal")):
            leftover.unlink(missing_ok=True)
