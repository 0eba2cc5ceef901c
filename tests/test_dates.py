"""One model of dates: the OCR, the text matcher, the pipeline and the store read a date the same way."""

from __future__ import annotations

import datetime as dt

from docauth.dates import EXPIRY_HORIZON_YEARS, full_date, parse_date
from docauth.ocr.mrz import mrz_date

TODAY = dt.date(2026, 1, 1)


def test_an_expiry_printed_470101_is_the_same_date_everywhere():
    # Two digits of year: 2047 is more than the horizon ahead, so 1947 (long expired) for every reader.
    assert EXPIRY_HORIZON_YEARS == 20
    assert mrz_date("470101", kind="expiry", today=TODAY) == "1947-01-01"
    assert parse_date("470101", kind="expiry", today=TODAY) == dt.date(1947, 1, 1)
    assert mrz_date("460101", kind="expiry", today=TODAY) == "2046-01-01"
    assert parse_date("460101", kind="expiry", today=TODAY) == dt.date(2046, 1, 1)


def test_a_birth_date_is_never_in_the_future():
    assert full_date(26, 1, 2, kind="birth", today=TODAY) == dt.date(1926, 1, 2)
    assert parse_date("251231", kind="birth", today=TODAY) == dt.date(2025, 12, 31)
    assert mrz_date("260102", kind="birth", today=TODAY) == "1926-01-02"


def test_the_matcher_and_the_store_take_the_same_iso_dates():
    from docauth.errors import InputError
    from docauth.store.values import person_date

    assert person_date("date_of_birth", "1974-08-12") == parse_date("1974-08-12") == dt.date(1974, 8, 12)
    for bad in ("1974-02-30", "740812", "12.08.1974"):
        try:
            person_date("date_of_birth", bad)
        except InputError:
            continue
        raise AssertionError(f"{bad!r} accepted as a record's date")
