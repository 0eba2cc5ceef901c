"""What the check takes from the reader's answer: the fields, whether a zone was found and is valid, which
fields a check digit confirms, and where print and zone disagree."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from docauth.pipeline.contracts import MRZ, DocumentRead
from docauth.pipeline.persons import normalise_person
from docauth.pipeline.result import jsonable


@dataclass
class OCRSummary:
    export: dict | None = None  # the reader's whole answer, JSON-safe
    fields: dict = field(default_factory=dict)  # canonical field -> value: the reader's, then the zone's
    mrz_found: bool = False
    mrz_valid: bool = False
    mrz_checks_pass: bool = False  # format and check digits hold, some unchecked character read unsurely or not
    mrz_score: float | None = None
    kind: str | None = None  # the zone's format when one was found
    format_sure: bool = False  # that format is certain, its check digits aside (MRZResult.format_sure)
    viz_mrz_mismatch: list[str] = field(default_factory=list)  # fields whose print and zone disagree
    verified: set[str] = field(default_factory=set)  # fields a passing check digit confirms
    unsure: set[str] = field(default_factory=set)  # fields read from print without confidence


def ocr_summary(ocr: DocumentRead) -> OCRSummary:
    """The reader's answer as the check needs it."""
    mrz = ocr.mrz
    found = mrz is not None and bool(mrz.type) and bool(mrz.lines)
    # The reader already chose the best source per field (check-digit-verified MRZ, longer printed names).
    fields = {k: v for k, v in normalise_person(dict(ocr.fields or {})).items() if v not in (None, "")}
    if found:
        for k, v in _mrz_fields(mrz).items():
            if v not in (None, ""):
                fields.setdefault(k, v)
    fields = {k: jsonable(v) for k, v in fields.items() if not isinstance(v, (dict, list))}
    valid = found and bool(mrz.valid)
    return OCRSummary(
        export=jsonable(ocr.export()),
        fields=fields,
        mrz_found=found,
        mrz_valid=valid,
        mrz_checks_pass=found and bool(mrz.checks_pass),
        mrz_score=jsonable(mrz.score) if found else None,
        kind=jsonable(mrz.type) if found else None,
        format_sure=found and bool(mrz.format_sure),
        viz_mrz_mismatch=_viz_mrz_mismatch(ocr),
        verified=_verified_fields(ocr, mrz, fields, valid),
        unsure=set(ocr.unsure or ()),
    )


def _verified_fields(ocr: DocumentRead, mrz: MRZ | None, fields: dict, valid: bool) -> set[str]:
    """Fields whose value a passing MRZ check digit confirms; the rest were read from print alone."""
    if ocr.sources is not None:
        return {name for name, source in ocr.sources.items() if source == "mrz"}
    # A reader that does not say: what a valid MRZ carries with the same value.
    if not valid:
        return set()
    carried = _mrz_fields(mrz)
    return {name for name, value in fields.items() if carried.get(name) == value}


def _mrz_fields(mrz: MRZ) -> dict:
    return normalise_person(dict(mrz.fields or {}))


def _viz_mrz_mismatch(ocr: DocumentRead) -> list[str]:
    """Fields whose printed and MRZ values were both read and disagree (an entry is {"agree": ...} or the
    bare answer)."""
    out = []
    for name, entry in (ocr.consistency or {}).items():
        agree = entry.get("agree") if isinstance(entry, dict) else entry
        if agree is False:
            out.append(name)
    return out


def rectified(ocr: DocumentRead) -> np.ndarray | None:
    """The upright document the reader cut out, when it located one."""
    img = ocr.document.rectified if ocr.document is not None else None
    return img if isinstance(img, np.ndarray) and img.size else None
