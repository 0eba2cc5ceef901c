"""Dates on documents and records: one parser, and the century of a two-digit year by one rule per kind.

MRZs and many printed zones give years as two digits. The century is the latest one that keeps the date
possible for its kind:

- ``birth`` and ``issue``: not in the future;
- ``expiry``: at most ``EXPIRY_HORIZON_YEARS`` after today (documents are valid for 10-15 years at most).

>>> full_date(74, 8, 12, kind="birth", today=date(2026, 1, 1))
datetime.date(1974, 8, 12)
>>> full_date(25, 12, 31, kind="birth", today=date(2026, 1, 1)), full_date(26, 1, 2, kind="birth", today=date(2026, 1, 1))
(datetime.date(2025, 12, 31), datetime.date(1926, 1, 2))
>>> full_date(46, 1, 1, kind="expiry", today=date(2026, 1, 1)), full_date(47, 1, 1, kind="expiry", today=date(2026, 1, 1))
(datetime.date(2046, 1, 1), datetime.date(1947, 1, 1))
>>> full_date(74, 13, 12, kind="birth") is None
True
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

KINDS = ("birth", "issue", "expiry")
EXPIRY_HORIZON_YEARS = 20


def latest_possible(kind: str, today: date | None = None) -> date:
    """The latest date a date of this kind can be."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    today = today or date.today()
    if kind == "expiry":
        return date(min(today.year + EXPIRY_HORIZON_YEARS, 9999), today.month, min(today.day, 28))
    return today


def full_date(yy: int, month: int, day: int, *, kind: str, today: date | None = None) -> date | None:
    """The date with a two-digit year in the latest century that keeps it possible; None if no calendar date."""
    limit = latest_possible(kind, today)
    century = (limit.year // 100) * 100
    for base in (century, century - 100):
        try:
            candidate = date(base + yy, month, day)
        except ValueError:
            return None
        if candidate <= limit:
            return candidate
    return None


def parse_date(value: Any, *, kind: str = "birth", today: date | None = None) -> date | None:
    """A date from a ``date``, ISO ``YYYY-MM-DD``, ``YYYYMMDD`` or an MRZ's ``YYMMDD`` (century by
    :func:`full_date`); None for anything else.

    >>> parse_date("1974-08-12"), parse_date("740812", today=date(2026, 1, 1))
    (datetime.date(1974, 8, 12), datetime.date(1974, 8, 12))
    >>> parse_date("470101", kind="expiry", today=date(2026, 1, 1)), parse_date("2031-02-30")
    (datetime.date(1947, 1, 1), None)
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip()
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return date.fromisoformat(text)
        if re.fullmatch(r"\d{8}", text):
            return date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError:
        return None
    if re.fullmatch(r"\d{6}", text):
        return full_date(int(text[:2]), int(text[2:4]), int(text[4:]), kind=kind, today=today)
    return None
