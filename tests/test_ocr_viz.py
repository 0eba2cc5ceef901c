"""Printed fields: date formats, label/value pairing, content fallbacks, MRZ agreement."""

from __future__ import annotations

from datetime import date

import pytest

from docauth.ocr.viz import Phrase, compare_field, fields_from_phrases, fill_from_content, normalise_date

TODAY = date(2026, 1, 1)


@pytest.mark.parametrize("text,kind,iso", [
    ("12 AUG 1974", "birth", "1974-08-12"),
    ("12.08.1974", "birth", "1974-08-12"),
    ("12 08 1974", "birth", "1974-08-12"),
    ("12/08/1974", "birth", "1974-08-12"),
    ("1974-08-12", "birth", "1974-08-12"),
    ("3 FEB 2031", "expiry", "2031-02-03"),
    ("14 JUL/JUIL 76", "birth", "1976-07-14"),
    ("09 OCT/OCT 26", "expiry", "2026-10-09"),
    ("09 OCT/OCT 26", "birth", "1926-10-09"),  # a birth date cannot be in the future
    ("31.02.1990", "birth", None),
    ("SURNAME", "birth", None),
])
def test_dates(text, kind, iso):
    assert normalise_date(text, kind=kind, today=TODAY) == iso


def _p(text, x, y, h):
    return Phrase(text, x, y, x + 12 * len(text), y + h, 90.0)


def test_labels_pair_with_the_value_below():
    phrases = [
        _p("Nom / Surname", 300, 100, 10), _p("GARCÍA", 300, 114, 20),
        _p("Given names", 300, 150, 10), _p("ANA LUCIA", 300, 164, 20),
        _p("Sex", 300, 200, 10), _p("F", 300, 214, 20),
        _p("Nationality", 500, 200, 10), _p("ESP", 500, 214, 20),
        _p("Date of birth", 300, 250, 10), _p("01 03 1980", 300, 264, 20),
        _p("Document no.", 500, 250, 10), _p("AB123456", 500, 264, 20),
        _p("Date of expiry", 300, 300, 10), _p("02.04.2031", 300, 314, 20),
    ]
    f = fields_from_phrases(phrases, today=TODAY)
    assert f == {"surname": "GARCÍA", "given_names": "ANA LUCIA", "sex": "F", "nationality": "ESP",
                 "date_of_birth": "1980-03-01", "document_number": "AB123456", "expiry_date": "2031-04-02"}


def test_content_fallback_when_labels_are_illegible():
    phrases = [
        _p("REPUBLIC OF SPAIN", 40, 10, 30),
        _p("Nbm/ Srnme", 300, 100, 10), _p("GARCIA", 300, 114, 20),
        _p("Gv nms", 300, 150, 10), _p("ANA", 300, 164, 20),
        _p("01 03 1980", 300, 264, 20), _p("AB123456", 500, 264, 20), _p("02.04.2031", 300, 314, 20),
        _p("M", 300, 214, 20),
    ]
    fields = fields_from_phrases(phrases, today=TODAY)
    fill_from_content(fields, phrases, (400, 1000), today=TODAY)
    assert fields["date_of_birth"] == "1980-03-01"
    assert fields["expiry_date"] == "2031-04-02"
    assert fields["document_number"] == "AB123456"
    assert fields["sex"] == "M"
    assert (fields["surname"], fields["given_names"]) == ("GARCIA", "ANA")


def test_agreement_with_the_mrz():
    assert compare_field("surname", "MÜLLER", "MUELLER") is True
    assert compare_field("surname", "Garcia Lopez", "GARCIA LOPEZ") is True
    # the MRZ truncates long names: a printed name that starts with it agrees
    assert compare_field("given_names", "MARIE CHRISTINE ANTOINETTE", "MARIE CHRISTINE AN") is True
    assert compare_field("document_number", "AB 123456", "AB123456") is True
    assert compare_field("date_of_birth", "1980-03-01", "1980-03-02") is False
    assert compare_field("sex", None, "F") is None
