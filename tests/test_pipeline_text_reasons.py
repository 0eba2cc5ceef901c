"""Which text disagreements are reasons, which are notes, and when nothing ties a document to its person."""

from __future__ import annotations

import datetime as dt

from docauth.matching.text import match_person
from docauth.pipeline.text_reasons import text_summary

TODAY = dt.date(2026, 11, 27)
RECORD = {"surname": "TRAORE", "given_names": "GIULIA", "date_of_birth": "1961-06-02", "document_number": "M5T4UNKL"}
FRONT_READ = {"surname": "TRAORE", "given_names": "GIULTA", "date_of_birth": "1961-06-02", "document_number": "M5T4UNKL"}


def _summary(fields, record=RECORD, *, verified=frozenset(), unsure=frozenset()):
    return text_summary(match_person(fields, record, TODAY), set(verified), set(unsure))


def test_an_unsure_misread_name_is_a_note_and_the_names_that_agree_still_tie_the_document():
    out, codes = _summary(FRONT_READ, unsure={"given_names"})
    assert codes == [], out
    assert out["unconfirmed"] == [{"field": "given_names", "note": "printed_name_mismatch"}]
    assert set(out["agreed"]) == {"surname", "date_of_birth", "document_number"}
    assert out["not_compared"] == ["given_names"]


def test_the_same_misread_read_surely_is_a_reason():
    out, codes = _summary(FRONT_READ)
    assert codes == ["printed_name_mismatch"], out
    assert "unconfirmed" not in out


def test_a_document_tied_by_nothing_but_its_birth_date_is_not_checked():
    # Both names read unsurely and wrong, no number printed: the birth date alone ties no one.
    read = {"surname": "TRAORF", "given_names": "GIULTA", "date_of_birth": "1961-06-02"}
    out, codes = _summary(read, unsure={"surname", "given_names"})
    assert codes == ["text_not_checked"], out
    assert out["not_compared"] == ["surname", "given_names", "document_number"]
    assert out["agreed"] == ["date_of_birth"]


def test_a_number_that_agrees_ties_the_document_when_no_name_was_read():
    record = {"given_names": "KHALID SAEED HAMDAN", "document_number": "784-1986-5093214-2"}
    out, codes = _summary({"document_number": "784-1986-5093214-2"}, record)
    assert codes == [] and out["agreed"] == ["document_number"], out
    assert out["not_compared"] == ["surname", "given_names"]
    out, codes = _summary({"date_of_birth": "1986-01-01"}, record)
    assert codes == ["text_not_checked"], out


def test_a_sure_disagreement_is_never_hidden_by_what_agrees():
    read = dict(FRONT_READ, document_number="M5T4UNKX")
    out, codes = _summary(read, verified={"document_number"}, unsure={"given_names"})
    assert codes == ["document_number_mismatch"], out
