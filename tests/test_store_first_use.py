"""The embedded database is made on first use, whole or not at all (docauth.store.newfile)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docauth.errors import Unavailable
from docauth.store import schema
from docauth.store.db import Store

ROOT = Path(__file__).resolve().parent.parent


def _url(folder: Path) -> str:
    return f"sqlite:///{folder / 'docauth.sqlite3'}"


def test_first_use_creates_the_schema_and_nothing_else(tmp_path):
    store = Store(_url(tmp_path / "data"))
    store.ensure_schema()
    assert store.current_revision() == Store.head_revision()
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["docauth.sqlite3"]
    person = store.add_person(surname="ERIKSSON", date_of_birth="1974-08-12")
    store.ensure_schema()  # at head: nothing happens, nothing is lost
    assert store.get_person(person.id).surname == "ERIKSSON"


def test_an_empty_file_left_by_an_older_version_is_made_whole(tmp_path):
    (tmp_path / "docauth.sqlite3").write_bytes(b"")
    store = Store(_url(tmp_path))
    store.ensure_schema()
    assert store.current_revision() == Store.head_revision()
    assert store.count_persons() == 0


def test_a_failed_migration_leaves_no_file_behind(tmp_path, monkeypatch):
    real_migrate = schema.migrate

    def migrate_then_fail(engine, revision):  # an injected fault: the disk fills mid-way
        real_migrate(engine, revision)
        raise Unavailable("disk full")

    monkeypatch.setattr(schema, "migrate", migrate_then_fail)
    folder = tmp_path / "data"
    with pytest.raises(Unavailable, match="disk full"):
        Store(_url(folder)).ensure_schema()
    assert list(folder.iterdir()) == []


def test_processes_starting_at_once_make_one_database(tmp_path):
    script = ("import sys; from docauth.store.db import Store; s = Store(sys.argv[1]); s.ensure_schema(); "
              "s.add_person(surname=sys.argv[2])")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", script, _url(tmp_path), f"P{i}"], env=env,
                              stderr=subprocess.PIPE, text=True) for i in range(3)]
    for proc in procs:
        assert proc.wait(120) == 0, proc.stderr.read()
    store = Store(_url(tmp_path))
    # Had a later creator replaced the file, an earlier one's person would be gone with it.
    assert sorted(p.surname for p in store.list_persons()) == ["P0", "P1", "P2"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []
