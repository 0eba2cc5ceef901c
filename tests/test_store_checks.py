"""Kept check results (docauth.store.checks) on a real SQLite store: one transaction with the audit row,
read back until they expire, erased with the person they are about, bounded in size."""

from __future__ import annotations

import time

import pytest

from docauth.errors import InputError, NotFound
from docauth.store.checks import MAX_RESULT_JSON_BYTES, CheckResults


@pytest.fixture()
def store(tmp_path):
    from docauth.store import Store

    s = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    s.upgrade()
    yield s
    s.close()


def _record(kept, result, **kw):
    args = dict(verdict=result["decision"], scores={}, reasons={"codes": []}, person_id=None, subject_id=None,
                channel="api", keep_days=30)
    args.update(kw)
    return kept.record(result, **args)


def test_a_result_is_kept_beside_its_audit_row_and_read_back(store):
    kept = CheckResults(store)
    result = {"decision": "review", "fields": {"surname": "ERIKSSON"}, "scores": {"face_distance": 0.31}}
    record = _record(kept, result)
    assert [c.id for c in store.list_checks()] == [record.id] and record.verdict == "review"
    got = kept.get(record.id)
    assert got["fields"] == {"surname": "ERIKSSON"} and got["check_id"] == record.id
    assert got["created_at"] < got["expires_at"]
    with pytest.raises(NotFound) as unknown:
        kept.get(record.id + 1000)
    assert unknown.value.code == "check_not_found"


def test_zero_days_keeps_the_audit_row_only_and_expired_results_are_gone_then_deleted(store):
    kept = CheckResults(store)
    not_kept = _record(kept, {"decision": "accept"}, keep_days=0)
    with pytest.raises(NotFound) as gone:
        kept.get(not_kept.id)
    assert gone.value.code == "check_result_gone"
    short = _record(kept, {"decision": "accept"}, keep_days=0.3 / 86400)  # 0.3 s
    assert kept.get(short.id)["decision"] == "accept"
    time.sleep(0.5)
    with pytest.raises(NotFound):
        kept.get(short.id)
    _record(kept, {"decision": "accept"})  # the next record deletes what expired
    with store.engine.connect() as conn:
        from sqlalchemy import text

        ids = [r[0] for r in conn.execute(text("SELECT check_id FROM check_results"))]
    assert short.id not in ids and len(ids) == 1


def test_results_are_erased_with_the_person_they_are_about(store):
    kept = CheckResults(store)
    person = store.add_person(surname="ERIKSSON", given_names="ANNA")
    by_id = _record(kept, {"decision": "accept", "fields": {"surname": "ERIKSSON"}}, person_id=person.id,
                    subject_id=person.id)
    claimed = _record(kept, {"decision": "accept", "fields": {"surname": "ERIKSSON"}}, subject_id=person.id)
    other = _record(kept, {"decision": "accept", "fields": {"surname": "OTHER"}})
    report = store.delete_person(person.id)
    assert report.check_results_deleted == 2 and report.checks_pseudonymised == 1
    for check in (by_id, claimed):
        with pytest.raises(NotFound):
            kept.get(check.id)
    assert kept.get(other.id)["fields"] == {"surname": "OTHER"}


def test_an_oversized_result_is_kept_without_stage_outputs_and_bad_input_is_refused(store):
    kept = CheckResults(store)
    big = {"decision": "review", "fields": {"surname": "X"},
           "stages": {"ocr": {"status": "ok", "output": {"text": "A" * (MAX_RESULT_JSON_BYTES + 10)}}}}
    got = kept.get(_record(kept, big).id)
    assert got["stages"] == {"ocr": {"status": "ok"}} and got["stages_truncated"] is True
    with pytest.raises(InputError):
        _record(kept, {"decision": "accept", "x": float("nan")})
    with pytest.raises(NotFound):
        _record(kept, {"decision": "accept"}, person_id=999999)
    assert store.list_checks() != [] and len(store.list_checks()) == 1  # nothing half-written
