"""The review desk's store: the queue of checks waiting for a clerk, and each clerk's decision (audit).

    reviews = Reviews(store)
    reviews.queue(limit=50)          # checks decided `review`, not yet reviewed, whose result is still kept
    reviews.decide(12, "accept", reviewer="clerk-anna", api_key_id=3)
    reviews.history(12)              # every decision on check 12, oldest first

A decision is appended, never edited: a second decision on the same check is a new audit row, and the
latest one stands. The first decision deletes the check's kept document image (docauth.store.images). Rows carry no personal data (the check id, the decision, the key's name and id).
"""

from __future__ import annotations

from sqlalchemy import delete, exists, select

from docauth.errors import InputError, NotFound
from docauth.store.models import CheckResultRow, CheckReviewRow, CheckRow, StoredImageRow, utcnow
from docauth.store.rows import aware

#: accept / reject the check, or ask the customer for a new photo of the document (``retake``, the same word
#: as the check's own decision).
DECISIONS = ("accept", "reject", "retake")
#: Spellings accepted on input and stored as the decision they name (``resubmit`` was the first name of retake).
ALIASES = {"resubmit": "retake"}


class Reviews:
    def __init__(self, store):
        self.store = store

    def queue(self, *, limit: int = 50, offset: int = 0) -> list[dict]:
        """Checks waiting for a clerk, oldest first: decided ``review``, no decision yet, result still kept."""
        now = utcnow()
        reviewed = exists().where(CheckReviewRow.check_id == CheckRow.id)
        with self.store.transaction() as session:
            rows = session.execute(
                select(CheckRow, CheckResultRow.expires_at)
                .join(CheckResultRow, CheckResultRow.check_id == CheckRow.id)
                .where(CheckRow.verdict == "review", CheckResultRow.expires_at >= now, ~reviewed)
                .order_by(CheckRow.created_at, CheckRow.id)
                .limit(limit)
                .offset(offset)
            ).all()
            return [{"check_id": row.id, "created_at": aware(row.created_at).isoformat(),
                     "expires_at": aware(expires).isoformat(), "person_id": row.person_id,
                     "reasons": list((row.reasons or {}).get("codes", []))} for row, expires in rows]

    def decide(self, check_id: int, decision: str, *, reviewer: str, api_key_id: int | None) -> dict:
        decision = ALIASES.get(decision, decision)
        if decision not in DECISIONS:
            raise InputError(f"decision must be one of {', '.join(DECISIONS)}", code="invalid_decision")
        with self.store.transaction() as session:
            if session.get(CheckRow, int(check_id)) is None:
                raise NotFound(f"no check with id {check_id}", code="check_not_found")
            row = CheckReviewRow(check_id=int(check_id), decision=decision, reviewer=str(reviewer)[:100],
                                 api_key_id=api_key_id, created_at=utcnow())
            session.add(row)
            # The document image was kept for the clerk to decide by; decided, it goes.
            session.execute(delete(StoredImageRow).where(StoredImageRow.check_id == int(check_id),
                                                         StoredImageRow.kind == "check_document"))
            session.flush()
            return _export(row)

    def history(self, check_id: int) -> list[dict]:
        with self.store.transaction() as session:
            rows = session.scalars(select(CheckReviewRow).where(CheckReviewRow.check_id == int(check_id))
                                   .order_by(CheckReviewRow.id))
            return [_export(r) for r in rows]


def _export(row: CheckReviewRow) -> dict:
    return {"id": row.id, "check_id": row.check_id, "decision": ALIASES.get(row.decision, row.decision),
            "reviewer": row.reviewer,
            "api_key_id": row.api_key_id, "decided_at": aware(row.created_at).isoformat()}
