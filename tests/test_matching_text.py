"""Text matching of document fields against a person record."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docauth.matching.text import (
    compare_birth_dates,
    compare_document_numbers,
    compare_names,
    fold_name,
    match_person,
    name_variants,
)
from docauth.dates import parse_date

TODAY = dt.date(2026, 11, 22)


@pytest.mark.parametrize(
    ("document", "record", "reason"),
    [
        ("ERIKSSON", "Eriksson", "exact"),
        ("ANNA MARIA", "Anna-Maria", "exact"),
        ("MUELLER", "Müller", "transliteration"),
        ("MULLER", "Müller", "transliteration"),
        ("STRASSE", "Straße", "transliteration"),
        ("HAEGER", "Häger", "transliteration"),
        ("JOERGENSEN", "Jørgensen", "transliteration"),
        ("AASEN", "Åsen", "transliteration"),
        ("ASEN", "Åsen", "transliteration"),
        ("PENA", "Peña", "transliteration"),
        ("LOPEZ GARCIA", "López García", "transliteration"),
        ("IVANOV", "Иванов", "transliteration"),
        ("ZHUKOVA", "Жукова", "transliteration"),
        ("SCHCHERBAKOV", "Щербаков", "fuzzy"),
        ("SMITH JOHN", "John Smith", "token_order"),
        ("SVENLARS", "Sven Lars", "token_order"),
        ("ONEILL", "O'Neill", "exact"),
        ("WOLFESCHLEGELSTEINHAUSENBERGERD", "Wolfeschlegelsteinhausenbergerdorff", "truncated"),
        ("ERIKSON", "Eriksson", "fuzzy"),
        ("SMITH", "Jones", "mismatch"),
        ("ERIKSSON", "Eriksen", "mismatch"),
    ],
)
def test_name_reasons(document, record, reason):
    result = compare_names(document, record, "surname")
    assert result.reason == reason
    assert result.match is (reason != "mismatch")
    assert 0.0 <= result.score <= 1.0


def test_missing_names_are_not_compared():
    assert compare_names(None, "X").reason == "missing"
    assert compare_names("", "X").match is None
    assert compare_names("X", "  ").reason == "missing"


def test_folding_and_variants():
    assert fold_name("  Gößmann-Øster ") == "GOESSMANN OESTER"
    assert {"GOESSMANN", "GOSSMANN"} <= name_variants("Gößmann")
    assert fold_name("Łódź") == "LODZ"


@given(st.text(min_size=1, max_size=30))
@settings(max_examples=200, deadline=None)
def test_any_name_matches_itself_and_never_raises(name):
    result = compare_names(name, name)
    assert result.reason in ("exact", "missing")
    assert result.match in (True, None)


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜÉÈÑØÅ -'", min_size=2, max_size=25))
@settings(max_examples=200, deadline=None)
def test_an_icao_rendering_always_matches_its_original(name):
    for variant in name_variants(name):
        result = compare_names(variant, name)
        assert result.match in (True, None), (variant, name, result)


def test_document_number_ocr_confusion_is_reported():
    exact = compare_document_numbers("L898902C3", "l898902c3")
    assert (exact.reason, exact.score, exact.match) == ("exact", 1.0, True)
    confused = compare_document_numbers("L8989O2C3", "L898902C3")
    assert confused.reason == "ocr_confusion" and confused.match and confused.score < 1.0
    assert confused.details == {"positions": [5], "substitutions": ["0->O"]}
    swapped = compare_document_numbers("1B98902C5", "L898902C3")
    assert swapped.reason == "mismatch"  # 3 -> 5 is not a confusion pair
    assert compare_document_numbers("S12", "512").reason == "ocr_confusion"
    assert compare_document_numbers("X123", "L898902C3").match is False
    assert compare_document_numbers(None, "X").reason == "missing"


def test_dates_from_mrz_and_iso():
    assert parse_date("740812", today=TODAY) == dt.date(1974, 8, 12)
    assert parse_date("051231", today=TODAY) == dt.date(2005, 12, 31)
    assert parse_date("301231", kind="expiry", today=TODAY) == dt.date(2030, 12, 31)
    assert parse_date("19740812") == dt.date(1974, 8, 12)
    assert parse_date("741312") is None and parse_date("yesterday") is None


def test_a_birth_date_a_century_apart_is_the_same_birth_any_other_difference_is_not():
    # A zone's 110101 is 2011 by the century rule; a record (or a print) may state 1911.
    century = compare_birth_dates("110101", "1911-01-01", TODAY)
    assert (century.match, century.reason) == (True, "century")
    assert compare_birth_dates("1911-01-01", "1911-01-01", TODAY).reason == "exact"
    for other in ("1911-01-02", "1912-01-01", "1921-01-01", "1911-10-01"):
        assert compare_birth_dates("1911-01-01", other, TODAY).reason == "mismatch", other


PERSON = {
    "surname": "Müller",
    "given_names": "Jörg Hans",
    "date_of_birth": "1974-08-12",
    "document_number": "C01X00T47",
    "document_expiry": "2030-01-31",
    "nationality": "DEU",
    "sex": "M",
}


def test_whole_match_of_a_german_id_card():
    fields = {
        "surname": "MUELLER",
        "given_names": "JOERG HANS",
        "date_of_birth": "740812",
        "document_number": "C01X0OT47",  # OCR read 0 as O
        "date_of_expiry": "300131",
        "nationality": "D",
        "sex": "M",
    }
    m = match_person(fields, PERSON, today=TODAY)
    reasons = {name: f.reason for name, f in m.fields.items()}
    assert reasons == {
        "surname": "transliteration",
        "given_names": "transliteration",
        "date_of_birth": "exact",
        "document_number": "ocr_confusion",
        "expiry": "exact",
        "nationality": "exact",
        "sex": "exact",
    }
    assert m.match and not m.expired and m.reasons == []
    out = json.loads(json.dumps(m.export()))
    assert out["fields"]["document_number"]["details"]["substitutions"] == ["0->O"]
    audit = json.dumps(m.audit())
    for personal in ("MUELLER", "Müller", "1974", "C01X00T47"):
        assert personal not in audit


def test_expired_and_mismatching_fields_are_flagged():
    fields = {"surname": "SCHMIDT", "given_names": "JOERG HANS", "date_of_birth": "1974-08-13", "expiry_date": "2020-01-31"}
    m = match_person(fields, PERSON, today=TODAY)
    assert not m.match and m.expired
    assert set(m.reasons) == {"surname:mismatch", "date_of_birth:mismatch", "expiry:expired"}
    assert m.fields["expiry"].details["days_left"] < 0
    assert m.fields["document_number"].reason == "missing" and m.fields["document_number"].match is None


def test_expiry_without_a_record_value_is_still_checked():
    valid = match_person({"surname": "X", "expiry": "2031-01-01"}, {"surname": "X"}, today=TODAY)
    assert valid.fields["expiry"].reason == "not_expired" and valid.match
    expired = match_person({"surname": "X", "expiry": "2026-11-21"}, {"surname": "X"}, today=TODAY)
    assert expired.fields["expiry"].reason == "expired" and not expired.match


def test_nothing_comparable_is_not_a_match():
    m = match_person({}, PERSON, today=TODAY)
    assert not m.match and m.score is None
    assert all(f.reason == "missing" for f in m.fields.values())


def test_person_record_objects_are_accepted():
    from docauth.store.records import PersonRecord

    record = PersonRecord(id=1, surname="Åberg", given_names="Lars", date_of_birth=dt.date(1990, 1, 2))
    m = match_person({"surname": "AABERG", "given_names": "LARS", "date_of_birth": "900102"}, record, today=TODAY)
    assert m.match and m.fields["surname"].reason == "transliteration"


def test_given_names_cut_short_by_a_full_zone_name_field_match_however_short():
    from docauth.matching.text import match_person

    full = match_person({"surname": "ABERCROMBIE FITZGERALD", "given_names": "JEAN E"},
                        {"surname": "Abercrombie Fitzgerald", "given_names": "Jean Einar"})
    assert (full.fields["given_names"].reason, full.fields["given_names"].match) == ("truncated", True)
    short = match_person({"surname": "SMITH", "given_names": "JO"}, {"surname": "Smith", "given_names": "John"})
    assert short.fields["given_names"].match is False  # a short name is no cut one
