"""A real, throwaway PostgreSQL server for the store tests.

``postgres_url`` (session-wide, started once per test process) yields a URL to
a fresh empty database per test. Order of preference:

1. ``DOCAUTH_TEST_DATABASE_URL`` when set (an external server; each test gets
   its own database created on it, so the role needs CREATEDB);
2. a server started here from the Debian ``postgresql`` binaries
   (/usr/lib/postgresql/<version>/bin): data directory and unix socket in a
   temporary directory, trust authentication, a free TCP port on 127.0.0.1.
   As root it runs as the ``postgres`` OS user (PostgreSQL refuses root).
   It is stopped when the test process ends.

When neither is possible the PostgreSQL tests are skipped with the reason.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest

_server: "_PgServer | None" = None
_failure: str | None = None


def _find_bin_dir() -> Path | None:
    candidates = ["/usr/lib/postgresql/15/bin"] + sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for c in candidates:
        if Path(c, "initdb").exists() and Path(c, "pg_ctl").exists():
            return Path(c)
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _PgServer:
    def __init__(self, bin_dir: Path):
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="docauth-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        self.os_user = "postgres" if self.as_root else None

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        cmd = [str(self.bin_dir / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.root)

    def start(self) -> None:
        if self.as_root:
            shutil.chown(self.root, user="postgres", group="postgres")
        os.chmod(self.root, 0o700)
        init = self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync")
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed: {init.stderr.strip()[-500:]}")
        options = (
            f"-k {self.root} -p {self.port} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=50"
        )
        start = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options, "-w", "-t", "60", "start")
        if start.returncode != 0:
            log = (self.root / "server.log").read_text(errors="replace")[-800:] if (self.root / "server.log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {start.stderr.strip()[-400:]} {log}")

    def stop(self) -> None:
        if self.data.exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"


def _start_server() -> "_PgServer":
    global _server, _failure
    if _server is not None:
        return _server
    if _failure is not None:
        pytest.skip(_failure)
    bin_dir = _find_bin_dir()
    if bin_dir is None:
        _failure = "PostgreSQL tests skipped: no PostgreSQL binaries (install Debian 'postgresql') and no DOCAUTH_TEST_DATABASE_URL"
        pytest.skip(_failure)
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        _failure = "PostgreSQL tests skipped: running as root without `runuser` to drop to the postgres user"
        pytest.skip(_failure)
    server = _PgServer(bin_dir)
    try:
        server.start()
    except (RuntimeError, OSError, LookupError, subprocess.TimeoutExpired) as exc:
        server.stop()
        _failure = f"PostgreSQL tests skipped: cannot start a throwaway server ({exc})"
        pytest.skip(_failure)
    atexit.register(server.stop)
    _server = server
    return server


def _create_database(admin_url: str) -> tuple[str, callable]:
    """A new empty database on the server behind ``admin_url``; returns its URL and a dropper."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = "docauth_test_" + uuid.uuid4().hex[:12]
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return url, drop


@pytest.fixture
def postgres_url():
    """URL of a fresh, empty PostgreSQL database (dropped afterwards)."""
    external = os.environ.get("DOCAUTH_TEST_DATABASE_URL")
    if external:
        from docauth.store.engine import normalise_url

        admin_url = normalise_url(external)
    else:
        admin_url = _start_server().admin_url
    url, drop = _create_database(admin_url)
    try:
        yield url
    finally:
        drop()
