"""Kept check results, for ``GET /v1/checks/{id}``: the exported result (fields, scores, stages; never
images) beside the audit row, until it expires or the person it is about is erased.

    kept = CheckResults(store)
    record = kept.record(result, verdict="accept", scores=..., reasons=..., person_id=None,
                         subject_id=7, channel="api", keep_days=30)
    kept.get(record.id)     # {"check_id", "created_at", "expires_at", ...result}, or NotFound

The audit row (:meth:`Store.record_check`) and the kept result are written in one transaction.
``subject_id`` is the person the result is about (the form's ``person_id`` or the person the claimed
fields name): :meth:`Store.delete_person` deletes their kept results. Expired results are deleted by the
next ``record`` (no background job), and never returned meanwhile.
"""

from __future__ import annotations

import datetime as dt
import json

from sqlalchemy import delete, select

from docauth.errors import InputError, NotFound
from docauth.store.db import add_check_row
from docauth.store.models import CheckResultRow, CheckRow, utcnow
from docauth.store.records import CheckRecord
from docauth.store.rows import aware, check_record
from docauth.store.values import audit_json

#: A kept result is text and numbers; one larger than this is kept without its per-stage details.
MAX_RESULT_JSON_BYTES = 1024 * 1024


class CheckResults:
    def __init__(self, store):
        self.store = store

    def record(self, result: dict, *, verdict: str, scores: dict | None, reasons: dict | None,
               person_id: int | None, subject_id: int | None, channel: str | None,
               keep_days: float) -> CheckRecord:
        """The audit row, and the result kept ``keep_days`` (0: not kept) about ``subject_id``."""
        verdict = str(verdict).strip()
        if not verdict or len(verdict) > 32:
            raise InputError("verdict must be a short code (1-32 characters)")
        scores_json = audit_json("scores", scores)
        reasons_json = audit_json("reasons", reasons)
        kept = _bounded(result) if keep_days > 0 else None
        now = utcnow()
        with self.store.transaction() as session:
            row = add_check_row(session, verdict, scores_json, reasons_json, person_id, channel)
            session.execute(delete(CheckResultRow).where(CheckResultRow.expires_at < now))
            if kept is not None:
                session.add(CheckResultRow(check_id=row.id, person_id=subject_id, created_at=now,
                                           expires_at=now + dt.timedelta(days=keep_days), result=kept))
                session.flush()
            return check_record(row)

    def get(self, check_id: int) -> dict:
        """The kept result with ``check_id``, ``created_at`` and ``expires_at``; NotFound when the check is
        unknown (``check_not_found``) or its result is not kept, expired or erased (``check_result_gone``)."""
        with self.store.transaction() as session:
            kept = session.get(CheckResultRow, int(check_id))
            if kept is None or aware(kept.expires_at) < utcnow():
                if session.scalar(select(CheckRow.id).where(CheckRow.id == int(check_id))) is None:
                    raise NotFound(f"no check with id {check_id}", code="check_not_found")
                raise NotFound(f"the result of check {check_id} is no longer kept (expired, erased with the "
                               "person, or kept for 0 days)", code="check_result_gone")
            return {**dict(kept.result), "check_id": kept.check_id, "created_at": aware(kept.created_at).isoformat(),
                    "expires_at": aware(kept.expires_at).isoformat()}


def _bounded(result: dict) -> dict:
    """``result`` as stored JSON; its stages' outputs dropped if it would be larger than the limit."""
    try:
        encoded = json.dumps(result, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"a check result must be plain JSON: {exc}") from exc
    if len(encoded) <= MAX_RESULT_JSON_BYTES:
        return json.loads(encoded)
    stages = {name: {k: v for k, v in (rec or {}).items() if k != "output"}
              for name, rec in (result.get("stages") or {}).items()}
    return json.loads(json.dumps({**result, "stages": stages, "stages_truncated": True}, allow_nan=False))
