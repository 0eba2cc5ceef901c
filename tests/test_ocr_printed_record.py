"""A 1:1 check's record looked for in print (docauth.ocr.printed.record): a genuine card front confirms its
record with fewer lines read, another person's card reads as if no record were given (and text matching still
catches it), a card not confirmed whole still reports the record's values it prints, the zone's values come
before the record's, and a value is found only as the record has it."""

from __future__ import annotations

import pytest

from docauth.ocr.printed.assign import FieldRead
from docauth.ocr.printed.record import as_printed, captions_of, record_values
from docauth.ocr.printed.detection import TextBox

RECORD_FIELDS = ("surname", "given_names", "date_of_birth", "document_number")


@pytest.fixture(scope="module")
def printed_reader():
    from docauth.ocr.printed import PrintedReader

    return PrintedReader.load(backend="onnxruntime")


def _front(k: int):
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td1_front", TESTS.nth(k))
    assert not doc.mrz  # a front that prints no zone: nothing else says what to look for
    return doc


def _record(doc) -> dict:
    return {name: doc.fields[name] for name in RECORD_FIELDS}


def test_a_card_front_confirms_its_own_record_with_fewer_lines_read(printed_reader):
    from docauth.training.ocr_eval import field_equal

    doc = _front(62)
    alone = printed_reader(doc.image)
    own = printed_reader(doc.image, record=_record(doc))
    for name in RECORD_FIELDS:
        assert own.fields[name].how == "record" and own.fields[name].sure, own.export()
        assert field_equal(name, own.fields[name].value, doc.fields[name]), own.values
    # The expiry, which no record gives, is read under its own caption, as the whole read has it.
    assert own.fields["expiry_date"].how == "label"
    assert own.fields["expiry_date"].value == alone.fields["expiry_date"].value == doc.fields["expiry"]
    assert own.timings_ms["lines"] < alone.timings_ms["lines"]


def test_another_persons_record_reads_the_card_whole_and_text_matching_catches_it(printed_reader):
    from docauth.matching.text import match_person

    doc, other = _front(62), _record(_front(66))
    alone = printed_reader(doc.image)
    read = printed_reader(doc.image, record=other)
    assert not any(f.how == "record" for f in read.fields.values())
    assert read.export() == alone.export()  # exactly the read without a record
    match = match_person(read.values, other)
    assert not match.fields["surname"].match and not match.fields["document_number"].match


def test_a_card_front_captured_small_reports_each_record_value_it_prints_though_one_is_not_found(printed_reader):
    """The record is not confirmed whole on a small capture (a value or the expiry not found): the values the
    kept read prints are still the record's (``PrintedReader.with_record``), where the layout alone misreads them
    (the surname read DONFSEX); another person's values never are."""
    import cv2

    doc = _front(335)
    h, w = doc.image.shape[:2]
    scale = 300 / max(h, w)  # the card 300 px long in the photo, brought back to its size
    small = cv2.resize(doc.image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    page = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    record = _record(doc)
    first = printed_reader(page, record=record)
    assert first.fields["surname"].how != "record"  # the record is not confirmed whole
    read = printed_reader.with_record(first, record)
    assert read.fields["surname"].how == "record" and read.fields["surname"].value == record["surname"]
    assert {name for name, f in read.fields.items() if f.how == "record"} >= {"surname", "date_of_birth"}
    assert record["document_number"][-1] != "7"
    other = dict(record, surname="HALVORSEN", document_number=record["document_number"][:-1] + "7")
    read = printed_reader.with_record(printed_reader(page, record=other), other)
    assert all(read.fields[name].how != "record" for name in ("surname", "document_number") if name in read.fields)


def test_the_zones_values_come_before_the_records(printed_reader):
    from docauth.ocr.mrz import parse_mrz
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td3_open", TESTS.nth(71))
    zone = parse_mrz(doc.mrz)
    read = printed_reader(doc.image, mrz_fields=zone.fields, record=_record(_front(66)))
    assert {read.fields[name].how for name in ("surname", "date_of_birth", "document_number")} == {"mrz"}


def test_a_value_is_found_only_as_the_record_has_it():
    line = FieldRead("MUELLER", "MULLER", 0.97, "mrz", True)
    assert as_printed("surname", "Müller", line) is None  # a letter short: the finder's slip is no confirmation
    assert as_printed("surname", "Müller", FieldRead("MÜLLER", "MÜLLER", 0.97, "mrz", True)) is not None
    assert as_printed("surname", "Müller", FieldRead("MUELLER", "Name MUELLER", 0.97, "mrz", True)) is not None
    assert as_printed("document_number", "AB123456", FieldRead("AB123456", "AB123465", 0.97, "mrz", True)) is None
    assert as_printed("document_number", "X0AB1234", FieldRead("X0AB1234", "XOAB1234", 0.97, "mrz", True)).value \
        == "XOAB1234"  # reported as printed


def _number_line(first: dict[str, float]):
    """A line read "1X4729305", its first glyph's frame given ``first`` (the rest printed clearly)."""
    from docauth.ocr.printed.assign import PrintedLine
    from printed_support import frames_of

    glyphs = [first] + [{c: 0.98} for c in "X4729305"]
    return PrintedLine("1X4729305", 10, 10, 200, 30, 0.95, frames=frames_of(glyphs))


def test_a_number_read_with_a_look_alike_is_spelled_as_the_record_where_the_recogniser_holds_its_glyph():
    from docauth.ocr.printed.record import record_value_in

    record = {"document_number": "IX4729305"}
    ambiguous = _number_line({"1": 0.6, "I": 0.35})  # one stroke: the recogniser half sees the letter
    assert record_value_in("document_number", [ambiguous], record, None).value == "IX4729305"
    clear = _number_line({"1": 0.98, "I": 0.001})  # a digit drawn as a digit: the print says otherwise
    assert record_value_in("document_number", [clear], record, None).value == "1X4729305"
    assert record_value_in("document_number", [clear], {"document_number": "1X4729305"}, None).value == "1X4729305"


def test_the_records_values_and_a_dates_captions():
    assert record_values({"surname": "Rossi", "date_of_birth": "not a date", "expiry_date": "20310312",
                          "nationality": "ITA"}) == {"surname": "Rossi", "expiry_date": "2031-03-12"}
    value = TextBox(200, 120, 320, 140, 1)
    over, beside, far = TextBox(190, 100, 300, 112, 1), TextBox(120, 122, 190, 138, 1), TextBox(600, 100, 700, 112, 1)
    assert captions_of(value, [over, beside, far, value]) == [over, beside]


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    from docauth.config import Settings
    from docauth.pipeline import Pipeline

    return Pipeline.load(Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("data"), face_process=False))


def test_the_check_confirms_its_person_and_catches_another_persons_card(pipeline):
    from pipeline_support import ASTRONAUT_PERSON, OTHER_PERSON, document_of

    card = document_of(ASTRONAUT_PERSON, None, seed=62, kind="td1_front", captured=False)
    own = pipeline.check(card, claimed=dict(ASTRONAUT_PERSON))
    printed = own.stages["ocr"].output["printed"]
    assert {printed[name]["how"] for name in RECORD_FIELDS} == {"record"}, printed
    mismatches = {"printed_name_mismatch", "printed_dob_mismatch", "printed_document_number_mismatch"}
    assert not mismatches & set(own.reason_codes), own.reason_codes
    other = pipeline.check(card, claimed=dict(OTHER_PERSON))
    assert not any(read["how"] == "record" for read in other.stages["ocr"].output["printed"].values())
    assert mismatches <= set(other.reason_codes), other.reason_codes  # judged on what the card says
