"""The person database on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import datetime as dt
import json
import socket

import numpy as np
import pytest
from sqlalchemy import text

from docauth.config import Settings
from docauth.errors import Conflict, InputError, NotFound, Unavailable
from docauth.store import Store
from docauth.store.records import CheckRecord, PersonRecord

try:
    from tests.pg_server import postgres_url  # noqa: F401  (fixture)
except ImportError:  # tests/ is not a package: pytest put it on sys.path
    from pg_server import postgres_url  # noqa: F401


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'data' / 'docauth.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_url")
    s = Store(url)
    s.upgrade()
    yield s
    s.close()


def _encoding(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 0.09, 128)


SHA = "ab" * 32


def _all_text(store: Store) -> str:
    """Every value in every table, as one string (to prove what is *not* stored)."""
    chunks = []
    with store.engine.connect() as conn:
        for table in ("persons", "face_templates", "checks", "check_results", "check_reviews", "api_keys"):
            for row in conn.execute(text(f"SELECT * FROM {table}")):
                chunks.append(repr(tuple(row)))
    return "\n".join(chunks)


def test_upgrade_is_idempotent_and_reaches_head(store):
    assert store.current_revision() == Store.head_revision() == "0004"
    assert store.upgrade() == "0004"  # second run: nothing to do


def test_models_match_the_migrations_and_downgrade_works(store):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import inspect

    from docauth.store.schema import alembic_config
    from docauth.store.models import Base

    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    cfg = alembic_config()
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert set(inspect(store.engine).get_table_names()) <= {"alembic_version"}
    assert store.upgrade() == "0004"
    assert {"persons", "face_templates", "checks", "api_keys"} <= set(inspect(store.engine).get_table_names())


def test_person_round_trip_returns_plain_records(store):
    person = store.add_person(
        surname="Müller", given_names="Jörg Hans", date_of_birth="1980-02-29", nationality="deu",
        sex="m", document_number="c01x00t47", document_expiry=dt.date(2031, 5, 1), external_ref="bank-1",
    )  # fmt: skip
    assert isinstance(person, PersonRecord)
    assert (person.nationality, person.sex, person.document_number) == ("DEU", "M", "C01X00T47")
    got = store.get_person(person.id)
    assert got.surname == "Müller" and got.date_of_birth == dt.date(1980, 2, 29)
    assert got.created_at.tzinfo is not None
    assert store.find_person(external_ref="bank-1").id == person.id
    json.dumps(got.export())  # JSON-safe
    updated = store.update_person(person.id, document_number="D22", document_expiry="2035-01-01")
    assert updated.document_number == "D22" and updated.document_expiry == dt.date(2035, 1, 1)
    assert updated.updated_at >= person.updated_at
    store.add_face_template(person.id, _encoding(1), SHA)
    listed = store.list_persons()
    assert [(p.id, p.n_face_templates) for p in listed] == [(person.id, 1)]
    assert store.count_persons() == 1


def test_invalid_person_fields_are_input_errors(store):
    with pytest.raises(InputError):
        store.add_person(surname="", given_names="X")
    with pytest.raises(InputError):
        store.add_person(surname="X", date_of_birth="12/31/1990")
    with pytest.raises(InputError):
        store.add_person(surname="X", sex="Q")
    with pytest.raises(InputError):
        store.add_person(surname="X", favourite_colour="blue")
    assert store.count_persons() == 0


def test_unknown_ids_are_not_found(store):
    for call in (
        lambda: store.get_person(999),
        lambda: store.delete_person(999),
        lambda: store.update_person(999, surname="X"),
        lambda: store.add_face_template(999, _encoding(1), SHA),
        lambda: store.record_check("accept", person_id=999),
        lambda: store.find_person(external_ref="nobody"),
    ):
        with pytest.raises(NotFound):
            call()


def test_duplicate_external_ref_is_a_conflict_and_writes_nothing(store):
    store.add_person(surname="A", external_ref="same")
    with pytest.raises(Conflict):
        store.enrol({"surname": "B", "external_ref": "same"}, faces=[(_encoding(2), SHA)])
    assert store.count_persons() == 1
    assert store.face_templates() == []


def test_enrol_is_one_transaction(store, monkeypatch):
    """A fault after the rows were flushed leaves neither the person nor the templates."""
    import docauth.store.db as db

    def broken(row):
        raise RuntimeError("injected fault after the INSERTs")

    monkeypatch.setattr(db, "template_record", broken)
    with pytest.raises(RuntimeError):
        store.enrol({"surname": "Half"}, faces=[(_encoding(1), SHA), (_encoding(2), SHA)])
    monkeypatch.undo()
    assert store.count_persons() == 0
    assert store.face_templates() == []
    with pytest.raises(InputError):  # a bad encoding is refused before anything is written
        store.enrol({"surname": "Half"}, faces=[(_encoding(1), SHA), (np.zeros(5), SHA)])
    assert store.count_persons() == 0


def test_face_templates_round_trip_exactly(store):
    person = store.add_person(surname="T")
    enc = _encoding(3)
    t = store.add_face_template(person.id, enc, SHA.upper())
    assert t.photo_sha256 == SHA and t.model_name.startswith("dlib")
    (back,) = store.face_templates(person.id)
    assert back.encoding.dtype == np.float64 and np.array_equal(back.encoding, enc)
    assert store.face_templates_version() == (1, t.id)
    ids, persons, matrix = store.face_template_matrix()
    assert ids.tolist() == [t.id] and persons.tolist() == [person.id]
    assert matrix.dtype == np.float32 and np.allclose(matrix[0], enc, atol=1e-6)
    with pytest.raises(InputError):
        store.add_face_template(person.id, np.full(128, np.nan), SHA)
    with pytest.raises(InputError):
        store.add_face_template(person.id, enc, "not-a-hash")


def test_checks_are_recorded_newest_first_and_hold_only_json(store):
    person = store.add_person(surname="Checked")
    first = store.record_check("accept", scores={"face_distance": 0.31}, reasons={"face": ["ok"]}, person_id=person.id)
    second = store.record_check("reject", scores={"document": 0.1}, reasons={"codes": ["not_a_document"]}, channel="batch")
    assert isinstance(first, CheckRecord) and first.subject_pseudonym and second.subject_pseudonym is None
    assert [c.id for c in store.list_checks()] == [second.id, first.id]
    assert [c.id for c in store.list_checks(person_id=person.id)] == [first.id]
    assert store.list_checks(person_id=person.id)[0].scores == {"face_distance": 0.31}
    with pytest.raises(InputError):
        store.record_check("accept", scores={"image": np.zeros((4, 4))})
    with pytest.raises(InputError):
        store.record_check("accept", reasons={"image": "x" * 70_000})
    with pytest.raises(InputError):
        store.record_check("", scores={})
    assert len(store.list_checks()) == 2


def test_erasure_removes_personal_data_and_keeps_a_pseudonymous_audit(store):
    keep = store.add_person(surname="Keeper", given_names="Kim")
    person, _ = store.enrol(
        {"surname": "Zyxwvutsrq", "given_names": "Erasmus", "date_of_birth": "1961-07-13",
         "document_number": "QX4471901", "external_ref": "erase-me"},
        faces=[(_encoding(5), SHA), (_encoding(6), SHA)],
    )  # fmt: skip
    store.add_face_template(keep.id, _encoding(7), SHA)
    c1 = store.record_check("accept", scores={"face_distance": 0.3}, person_id=person.id)
    c2 = store.record_check("reject", scores={"face_distance": 0.8}, person_id=person.id)
    store.record_check("accept", person_id=keep.id)

    report = store.delete_person(person.id)

    assert report.export() == {"person_id": person.id, "face_templates_deleted": 2, "checks_pseudonymised": 2,
                               "check_results_deleted": 0}
    with pytest.raises(NotFound):
        store.get_person(person.id)
    assert [t.person_id for t in store.face_templates()] == [keep.id]
    audit = {c.id: c for c in store.list_checks()}
    assert audit[c1.id].person_id is None and audit[c2.id].person_id is None
    # the two records still belong together, but to nobody nameable
    assert audit[c1.id].subject_pseudonym == audit[c2.id].subject_pseudonym == c1.subject_pseudonym
    assert audit[c1.id].scores == {"face_distance": 0.3}
    dump = _all_text(store)
    for value in ("Zyxwvutsrq", "Erasmus", "1961-07-13", "QX4471901", "erase-me"):
        assert value not in dump
    assert "Keeper" in dump  # the other person is untouched
    assert store.get_person(keep.id).n_face_templates == 1
    # the external reference is free again
    store.add_person(surname="New", external_ref="erase-me")


def test_api_keys_store_only_a_hash(store):
    record, key = store.create_api_key("service")
    assert key.startswith("dak_") and len(key) > 30
    assert store.verify_api_key(key).id == record.id
    assert store.verify_api_key(key + "x") is None and store.verify_api_key("") is None
    assert key not in _all_text(store)
    other, other_key = store.create_api_key("batch", key="a-chosen-key-0123456789")
    assert [k.name for k in store.list_api_keys()] == ["service", "batch"]
    revoked = store.revoke_api_key(record.id)
    assert revoked.revoked_at is not None and not revoked.active
    assert store.verify_api_key(key) is None
    assert store.verify_api_key(other_key).id == other.id
    assert [k.id for k in store.list_api_keys(include_revoked=False)] == [other.id]
    with pytest.raises(Conflict):
        store.create_api_key("again", key="a-chosen-key-0123456789")
    with pytest.raises(NotFound):
        store.revoke_api_key(12345)


def test_missing_schema_is_unavailable_with_a_hint(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    with pytest.raises(Unavailable) as err:
        s.list_persons()
    assert err.value.code == "schema_missing" and "db upgrade" in err.value.message


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_postgres_is_unavailable_not_a_sqlalchemy_error():
    s = Store(f"postgresql://nobody@127.0.0.1:{_closed_port()}/docauth", connect_timeout=2)
    assert s.url.startswith("postgresql+psycopg://")
    for call in (s.ping, s.list_persons, lambda: s.add_person(surname="X"), s.upgrade):
        with pytest.raises(Unavailable):
            call()


def test_unwritable_sqlite_location_is_unavailable(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(Unavailable):
        Store(f"sqlite:///{blocker / 'sub' / 'db.sqlite3'}")


def test_from_settings_uses_the_data_dir_or_the_database_url(tmp_path):
    s = Store.from_settings(Settings.load(environ={"DOCAUTH_DATA_DIR": str(tmp_path / "d")}))
    assert s.url == f"sqlite:///{tmp_path / 'd' / 'docauth.sqlite3'}"
    s.upgrade()
    assert (tmp_path / "d" / "docauth.sqlite3").exists()
    pg = Store.from_settings(Settings.load(environ={"DOCAUTH_DATABASE_URL": "postgresql://u:secret@db.example/x"}))
    assert pg.url.startswith("postgresql+psycopg://") and "secret" not in pg.safe_url


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_concurrent_upgrades_at_start_up_are_safe(backend, tmp_path, request):
    """Several service workers may run the migrations at the same moment."""
    import threading

    url = f"sqlite:///{tmp_path / 'race.sqlite3'}" if backend == "sqlite" else request.getfixturevalue("postgres_url")
    stores = [Store(url) for _ in range(3)]
    results, errors = [], []

    def upgrade(s):
        try:
            results.append(s.upgrade())
        except Exception as exc:  # collected for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=upgrade, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and results == ["0004"] * 3
    for s in stores:
        s.close()


def test_ids_are_never_reused_after_erasure(store):
    a, (ta,) = store.enrol({"surname": "A"}, faces=[(_encoding(1), SHA)])
    version = store.face_templates_version()
    store.delete_person(a.id)
    b, (tb,) = store.enrol({"surname": "B"}, faces=[(_encoding(2), SHA)])
    assert b.id != a.id and tb.id != ta.id
    assert store.face_templates_version() != version
