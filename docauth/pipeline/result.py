"""The result tree of one check: every stage's output, scores, timings and the decision.

Everything here exports to plain JSON types; the HTTP layer and the batch
scanner only serialise :meth:`CheckResult.export`.

>>> r = CheckResult()
>>> r.add_reason("face_mismatch", "face", "the face differs from the enrolled photos")
>>> r.export()["reasons"][0]["code"]
'face_mismatch'
"""

from __future__ import annotations

import datetime as dt
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from docauth.pipeline.contracts import Classification
from docauth.pipeline.scores import normalise

ACCEPT, REVIEW, REJECT, RETAKE = "accept", "review", "reject", "retake"
#: Every decision, from the best answer to the one that overrides all others: ``retake`` (ask the customer
#: for a new photo) comes last because a verdict drawn from a capture that could not be seen well is not
#: trusted, a rejection included.
DECISIONS = (ACCEPT, REVIEW, REJECT, RETAKE)


@runtime_checkable
class Exportable(Protocol):
    """A stage's answer that says how it exports itself (every result object of docauth does)."""

    def export(self) -> dict: ...


def jsonable(value: Any) -> Any:
    """Plain JSON types from results that may hold numpy scalars, arrays, tuples or objects with ``export``.

    >>> jsonable({"a": np.float32(0.5), "b": (np.int64(2),), "c": float("nan")})
    {'a': 0.5, 'b': [2], 'c': None}
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        if value.ndim >= 2 and value.size > 64:
            return {"shape": list(value.shape)}  # images and embeddings stay out of results
        return jsonable(value.tolist())
    if isinstance(value, Exportable):
        return jsonable(value.export())
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return str(value)


def classification_output(c: Classification) -> dict:
    """A classifier's answer as the result tree and ``/v1/classify`` show it: its export, with its four
    values unrounded."""
    out = jsonable(c.export())
    out.update(is_document=bool(c.is_document), document_score=float(c.document_score or 0.0),
               side=jsonable(c.side), side_scores=jsonable(c.side_scores))
    return out


@dataclass(frozen=True)
class Reason:
    code: str  # stable, machine-readable (not_a_document, face_mismatch, ...)
    stage: str
    message: str
    severity: str = REVIEW  # set by the policy: review | reject | retake

    def export(self) -> dict:
        return {"code": self.code, "stage": self.stage, "message": self.message, "severity": self.severity}


@dataclass
class StageRecord:
    """What one stage did: ``ok``, ``skipped`` (with why) or ``failed`` (with the error)."""

    status: str = "ok"
    output: Any = None
    note: str | None = None

    def export(self) -> dict:
        out = {"status": self.status}
        if self.output is not None:
            out["output"] = jsonable(self.output)
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class CheckResult:
    decision: str = REVIEW
    reasons: list[Reason] = field(default_factory=list)
    stages: dict[str, StageRecord] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    # Milliseconds per stage and in all ("total"). A call made once for several images (the classifier's batch in
    # Pipeline.check_many) is charged to each image as its share, the call's time divided by the batch size.
    timings_ms: dict[str, float] = field(default_factory=dict)
    document: dict[str, Any] = field(default_factory=dict)  # is_document, side, kind
    fields: dict[str, Any] = field(default_factory=dict)  # what the document says (MRZ over printed)
    person_id: str | None = None
    claimed: bool = False  # claimed fields given instead of an enrolled person
    claimed_person_id: int | None = None  # the enrolled person the claimed fields name (external_ref/person_id)
    models: dict[str, Any] = field(default_factory=dict)
    # Boxes on the rectified document (docauth.pipeline.geometry), for the review desk; numbers only.
    geometry: dict[str, Any] | None = None
    # The upright rectified document the boxes are on: never exported (the service keeps it, as an image,
    # only for a check waiting for a clerk).
    rectified: np.ndarray | None = field(default=None, repr=False)

    def add_reason(self, code: str, stage: str, message: str) -> None:
        if not any(r.code == code for r in self.reasons):
            self.reasons.append(Reason(code, stage, message))

    @property
    def reason_codes(self) -> list[str]:
        return [r.code for r in self.reasons]

    def skip(self, stage: str, why: str) -> None:
        self.stages[stage] = StageRecord(status="skipped", note=why)

    @contextmanager
    def timed(self, stage: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings_ms[stage] = round((time.perf_counter() - start) * 1000.0, 2)

    def _threshold(self, stage: str) -> float | None:
        """The distance threshold a stage judged by (in its output), for ``scores_normalised``."""
        record = self.stages.get(stage)
        output = record.output if record is not None else None
        return output.get("threshold") if isinstance(output, dict) else None

    def export(self) -> dict:
        return {
            "decision": self.decision,
            "reasons": [r.export() for r in self.reasons],
            "document": jsonable(self.document),
            "fields": jsonable(self.fields),
            "person_id": self.person_id,
            "claimed": self.claimed,
            "claimed_person_id": self.claimed_person_id,
            "scores": jsonable(self.scores),
            "scores_normalised": jsonable(normalise(self.scores, face_threshold=self._threshold("face"),
                                                    duplicate_threshold=self._threshold("duplicates"))),
            "stages": {name: rec.export() for name, rec in self.stages.items()},
            "timings_ms": jsonable(self.timings_ms),
            "models": jsonable(self.models),
            "geometry": jsonable(self.geometry),
        }
