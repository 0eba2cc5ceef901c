"""The printed-field reader (docauth.ocr.printed): captions, dates, assignment, the MRZ's values in print, and
the whole reader on generated pages and on real specimens (those skip without ../shared)."""

from __future__ import annotations

import csv
from datetime import date

import numpy as np
import pytest

from docauth.ocr.printed.assign import (FieldRead, PrintedLine, assign_by_captions, find_in_print, surely_differs,
                                        with_labels)
from docauth.ocr.printed.dates import parse_date
from docauth.ocr.printed.labels import label_field
from docauth.ocr.printed.recognition import TextRecognizer, allowed

TODAY = date(2026, 11, 26)


def _line(text, x0, y0, x1, y1, confidence=0.98):
    return PrintedLine(text, x0, y0, x1, y1, confidence, tuple([confidence] * len(text)))


@pytest.mark.parametrize("text,field", [
    ("Nom / Surname", "surname"), ("4. Apellidos/Surname", "surname"), ("Priimek/Surname", "surname"),
    ("Prénoms / Given names", "given_names"), ("2. Vornamen/Given names", "given_names"),
    ("Ime/Givennamels)", "given_names"), ("Date de naissance / Date of birth", "date_of_birth"),
    ("Datum rojstva/Date ot bith", "date_of_birth"), ("Geldig tot / Date of expiry", "expiry_date"),
    ("Passport No. / No. du passeport", "document_number"), ("Número/Number", "document_number"),
    ("Lieu de naissance / Place of birth", None), ("Date of issue", None), ("Nationality", None),
])
def test_captions_name_their_field_in_many_languages_and_misreads(text, field):
    match = label_field(text)
    assert match is not None and match.field == field, match


@pytest.mark.parametrize("text", ["SPECIMEN", "MARIA", "ROSSI", "31.12.2000", "AP7305918", "BUENOS AIRES", "PASSPORT"])
def test_values_are_not_captions(text):
    match = label_field(text)
    assert match is None or match.field is None, match


@pytest.mark.parametrize("text,iso", [
    ("12 DEC/DÉC 82", "1982-12-12"), ("12 JAN 1982", "1982-01-12"), ("12.12.1982", "1982-12-12"),
    ("19 BEA/MAY 1993", "1993-05-19"), ("17 MAA/MAR 1972", "1972-03-17"), ("15 FEB/FEB 81", "1981-02-15"),
    ("7ENE/JAN 74", "1974-01-07"), ("19 ABR/APR 2034", "2034-04-19"), ("16.APR/APR 59", "1959-04-16"),
    ("19.07 1987", "1987-07-19"), ("19 07.1987", "1987-07-19"), ("1709-2023", "2023-09-17"),
    ("26MAR/AR91", "1991-03-26"), ("07,02.2022", "2022-02-07"), ("260CT2026", "2026-10-26"),
    ("05 0KT/OCT 1990", "1990-10-05"), ("20JAN1990", "1990-01-20"), ("12 AUGUST/AG0 74", "1974-08-12"),
    ("01JAN7JAN 85", "1985-01-01"), ("14 JAN JAN 13", "2013-01-14"),
    ("12-DEC-1982", "1982-12-12"), ("05-MAR-87", "1987-03-05"), ("12 ΔΕΚ/DEC 82", "1982-12-12"),
    ("10 СІЧ/JAN 1986", "1986-01-10"), ("12 LIS/OCT 1982", "1982-10-12"), ("12 LIS/NOV 1982", "1982-11-12"),
])
def test_printed_dates_in_many_formats(text, iso):
    assert parse_date(text, kind="birth", today=TODAY) == iso or parse_date(text, kind="expiry", today=TODAY) == iso


def test_a_value_is_found_below_or_beside_its_caption():
    lines = with_labels([
        _line("1. Name/Surname", 100, 100, 260, 114), _line("SPECIMEN", 100, 118, 230, 140),
        _line("2. Vorname/Given name", 100, 160, 300, 174), _line("MARIA", 100, 178, 170, 200),
        _line("Date of birth 17.04.1986", 400, 100, 640, 114),
        _line("Document number", 400, 160, 560, 174), _line("AK4071359", 580, 158, 700, 176),
    ])
    fields = assign_by_captions(lines, TODAY)
    assert {name: f.value for name, f in fields.items()} == {
        "surname": "SPECIMEN", "given_names": "MARIA", "date_of_birth": "1986-04-17", "document_number": "AK4071359"}
    assert all(f.sure and f.how == "label" for f in fields.values())


def test_a_number_printed_without_a_caption_is_found_by_its_shape_and_never_sure():
    from docauth.ocr.printed.assign import assign_number_by_shape

    lines = with_labels([
        _line("IDENTITY CARD", 100, 40, 300, 60), _line("K01V00R53", 580, 38, 700, 60),
        _line("1. Name/Surname", 100, 100, 260, 114), _line("SPECIMEN", 100, 118, 230, 140),
        _line("Date of birth", 400, 100, 560, 114), _line("17041986", 400, 118, 500, 140),
        _line("05 05 1971", 400, 160, 520, 180), _line("938568", 600, 300, 680, 320),
        _line("2309984505137", 400, 200, 580, 220),
    ])
    fields = assign_by_captions(lines, TODAY)
    assign_number_by_shape(lines, fields, TODAY)
    number = fields["document_number"]
    assert (number.value, number.how, number.sure) == ("K01V00R53", "layout", False)
    # dates, a card access number (6 digits), a personal number (13) and words are no document number
    rest = [line for line in lines if line.text != "K01V00R53"]
    fields = assign_by_captions(rest, TODAY)
    assign_number_by_shape(rest, fields, TODAY)
    assert "document_number" not in fields
    # a number under its caption is the caption's, whatever else is printed
    captioned = with_labels([*lines, _line("Document number", 100, 200, 260, 214), _line("AK4071359", 100, 218, 230, 240)])
    fields = assign_by_captions(captioned, TODAY)
    assign_number_by_shape(captioned, fields, TODAY)
    assert fields["document_number"].value == "AK4071359" and fields["document_number"].how == "label"


def test_a_value_read_unsurely_is_not_sure():
    lines = with_labels([_line("Surname", 100, 100, 200, 114), _line("SPEC1MEN", 100, 118, 230, 140, 0.6)])
    assert assign_by_captions(lines, TODAY)["surname"].sure is False


def test_the_mrz_values_are_found_in_print_whatever_their_captions():
    lines = [_line("Familyoam:/Non", 10, 10, 90, 20), _line("PEMBERTON", 10, 22, 90, 40),
             _line("17MAY1993", 10, 50, 90, 66), _line("RK 4702918", 200, 10, 300, 30),
             _line("ØVERLIDEN", 10, 80, 120, 100)]
    assert find_in_print("surname", "PEMBERTON", lines).value == "PEMBERTON"
    assert find_in_print("date_of_birth", "1993-05-17", lines).text == "17MAY1993"
    assert find_in_print("document_number", "RK4702918", lines).value == "RK4702918"
    assert find_in_print("surname", "OVERLIDEN", lines).value == "ØVERLIDEN"  # either transliteration
    assert find_in_print("surname", "OEVERLIDEN", lines).value == "ØVERLIDEN"
    assert find_in_print("surname", "JONES", lines) is None
    assert find_in_print("date_of_birth", "1993-05-18", lines) is None


def test_a_name_one_letter_from_the_zone_is_not_the_zones_by_its_text_and_a_bare_ddmmyy_confirms_its_day():
    lines = [_line("MELDA", 10, 10, 90, 30), _line("OVREBAKKEN", 10, 40, 120, 60), _line("071183", 10, 70, 90, 90),
             _line("0711831294", 200, 70, 300, 90), _line("JFATIMA", 10, 100, 120, 120), _line("NOLVÁK", 10, 130, 90, 150)]
    # A letter lost, added or changed: the recogniser's slip or the print altered, which the text cannot tell
    # (the recogniser's probabilities can: tests/test_ocr_printed_known.py).
    assert find_in_print("surname", "MELDRA", lines) is None
    assert find_in_print("surname", "FATIMA", lines) is None  # one letter more is no other word glued to it
    assert find_in_print("surname", "NOVAK", lines) is None  # nor with diacritics
    assert find_in_print("surname", "OEVREBAKKEN", lines).value == "OEVREBAKKEN"  # no glyph for Ø
    assert find_in_print("surname", "HONDURAS", lines) is None
    found = find_in_print("date_of_birth", "1983-11-07", lines)
    assert (found.value, found.text, found.how) == ("1983-11-07", "071183", "mrz")
    assert find_in_print("date_of_birth", "1983-07-11", lines) is None  # MMDDYY is not how a date is printed
    assert find_in_print("date_of_birth", "2011-08-07", lines) is None  # digits of another number


def test_a_name_printed_in_cyrillic_and_read_as_latin_look_alikes_is_the_zones_transliteration():
    lines = [_line("TECT", 10, 10, 90, 30), _line("HOBAK", 10, 40, 120, 60)]  # ТЕСТ, НОВАК
    assert find_in_print("surname", "TEST", lines).value == "TEST"
    assert find_in_print("surname", "NOVAK", lines).value == "NOVAK"
    assert find_in_print("surname", "TEXT", lines) is None and find_in_print("surname", "HOBAK", lines).value == "HOBAK"
    assert find_in_print("surname", "NOSAL", lines) is None


def test_a_zone_date_printed_month_first_is_found_and_another_century_or_day_is_not():
    lines = [_line("Birthdate Category", 10, 10, 200, 25), _line("09/03/52", 10, 30, 90, 50),
             _line("CARD EXPIRES 12/02/1997", 10, 60, 200, 80), _line("01/01/2999", 10, 90, 90, 110)]
    assert find_in_print("date_of_birth", "1952-09-03", lines).value == "1952-09-03"
    assert find_in_print("expiry_date", "1997-12-02", lines).value == "1997-12-02"
    assert find_in_print("date_of_birth", "1999-01-01", lines) is None  # 2999 is no 1999
    assert find_in_print("date_of_birth", "1952-09-04", lines) is None
    # Spaces for the separators, or none read: the zone's day so written, never inside a longer run of digits.
    assert find_in_print("date_of_birth", "1985-07-23", [_line("07 23 85", 10, 10, 90, 30)]).value == "1985-07-23"
    assert find_in_print("date_of_birth", "1985-07-23", [_line("072385", 10, 10, 90, 30)]).value == "1985-07-23"
    for other in ("1 07 23 85", "07 23 85 12", "10723851", "07 23 86"):
        assert find_in_print("date_of_birth", "1985-07-23", [_line(other, 10, 10, 90, 30)]) is None, other
    # A day that could be a month: the digits read day first are another day.
    assert find_in_print("date_of_birth", "1985-07-10", [_line("07 10 85", 10, 10, 90, 30)]) is None


def test_a_name_of_two_words_printed_over_two_lines_is_found():
    lines = [_line("VALVERDE", 330, 161, 463, 188), _line("VALVERDE", 330, 184, 463, 210), _line("ROSARIO", 331, 226, 432, 252)]
    found = find_in_print("surname", "VALVERDE VALVERDE", lines)
    assert (found.value, found.box) == ("VALVERDE VALVERDE", (330, 161, 463, 210))
    assert find_in_print("surname", "VALVERDE ROSARIO", lines) is None  # a line and a half apart: two fields


def test_a_date_the_detector_cut_on_its_row_is_its_captions_value_in_its_parts_joined():
    lines = with_labels([_line("Date of birth", 330, 190, 520, 215), _line("23FEB", 330, 226, 458, 257),
                         _line("1983", 470, 225, 556, 254), _line("Date of expiry", 330, 300, 530, 325),
                         _line("23 MAR 2019", 330, 336, 560, 368)])
    fields = assign_by_captions(lines, TODAY)
    assert (fields["date_of_birth"].value, fields["date_of_birth"].text) == ("1983-02-23", "23FEB 1983")
    assert fields["expiry_date"].value == "2019-03-23"


def test_names_the_recogniser_glued_on_one_line_are_found_at_its_start_or_end():
    lines = [_line("ERIKSSONANNAMARIA", 394, 305, 691, 329), _line("NURSAEEDKHALIFAHALMARRI", 338, 237, 785, 265)]
    assert find_in_print("surname", "ERIKSSON", lines).value == "ERIKSSON"
    assert find_in_print("given_names", "ANNA MARIA", lines).value == "ANNA MARIA"
    assert find_in_print("surname", "AL MARRI", lines).value == "AL MARRI"
    assert find_in_print("surname", "SAEED", lines) is None  # inside the word: any letters may spell it
    assert find_in_print("surname", "KHALIFAH", lines) is None  # long enough, yet inside the word, not at an end
    assert find_in_print("surname", "NUR", lines) is None  # too short to be told from chance


def test_a_value_the_detector_cut_on_its_row_is_found_in_its_parts_joined():
    lines = [_line("JAPAN", 330, 225, 436, 256), _line("1983", 637, 225, 723, 254), _line("23FEB", 497, 226, 625, 257),
             _line("AB12", 330, 300, 400, 330), _line("34567", 410, 300, 500, 330), _line("2006", 900, 226, 990, 256)]
    found = find_in_print("date_of_birth", "1983-02-23", lines)
    assert (found.value, found.text, found.box) == ("1983-02-23", "23FEB 1983", (497, 225, 723, 257))
    assert find_in_print("document_number", "AB1234567", lines).text == "AB12 34567"
    assert find_in_print("date_of_birth", "2006-02-23", lines) is None  # a column further off is another field


def test_a_difference_accuses_only_in_glyphs_read_surely():
    def read(text, glyphs):
        return FieldRead(text, text, float(np.mean(glyphs)), "label", True, glyphs=tuple(zip(text, glyphs)))

    sure = [0.99] * 9
    assert surely_differs("document_number", read("AR7305918", sure), "AP7305918")
    assert not surely_differs("document_number", read("AR7305918", [0.99, 0.79] + sure[2:]), "AP7305918")
    assert not surely_differs("surname", read("MULLER", [0.99] * 6), "MULLER")
    assert surely_differs("date_of_birth", read("12.01.1990", [0.99] * 10), "1990-01-13")
    assert not surely_differs("date_of_birth", read("12.01.1990", [0.99] * 9 + [0.5]), "1990-01-13")


def test_decoding_keeps_latin_script_only():
    labels = ["(blank)", "中", "A", "É", "1", " "]
    keep = allowed(labels)
    assert keep.tolist() == [True, False, True, True, True, True]

    class Model:
        labels = ["(blank)", "中", "A", "É", "1", " "]

    recognizer = TextRecognizer(Model())
    frames = np.zeros((5, 6), np.float32)
    frames[0, 1], frames[0, 2] = 0.7, 0.3  # an ideogram is likelier, but a Latin letter is what is printed
    frames[1, 0] = 1.0
    frames[2, 3] = 0.9
    frames[3, 3] = 0.9  # a repeat: one glyph
    frames[4, 5] = 1.0  # a trailing space is dropped with its confidence
    read = recognizer.postprocess(frames)
    assert read.text == "AÉ" and len(read.glyph_confidences) == 2


@pytest.fixture(scope="module")
def printed_reader():
    from docauth.ocr.printed import PrintedReader

    return PrintedReader.load(backend="onnxruntime")


def _passport_page_and_zone():
    """A generated passport page and its zone, which passes its check digits."""
    from docauth.ocr.mrz import parse_mrz
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td3_open", TESTS.nth(71))
    zone = parse_mrz(doc.mrz)
    assert zone.valid
    return doc, zone


def test_a_zones_own_lines_are_never_taken_for_its_values_print(printed_reader):
    from docauth.ocr.mrz import parse_mrz
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    back = render_document("td1_back", TESTS.nth(5))
    zone = parse_mrz(back.mrz)
    # Where the zone is on the page is not told (a sheet taken whole): its lines are read with the rest.
    read = printed_reader(back.image, mrz_fields=zone.fields)
    assert any("<<" in line.text for line in read.lines)
    zone_rows = back.image.shape[0] * 0.6
    assert all(field.box[1] < zone_rows for field in read.fields.values()), read.export()


def test_reads_the_printed_fields_of_a_generated_passport_page(printed_reader):
    from docauth.training.ocr_eval import field_equal

    doc, zone = _passport_page_and_zone()
    read = printed_reader(doc.image, mrz_fields=zone.fields)
    for name in ("surname", "date_of_birth", "document_number"):
        assert name in read.fields and field_equal(name, read.fields[name].value, doc.fields[name]), read.values
        assert read.fields[name].how == "mrz"  # the page prints what its zone says
    # Without the zone, the captions alone still find the birth date and the number.
    alone = printed_reader(doc.image)
    for name in ("date_of_birth", "document_number"):
        assert field_equal(name, alone.fields[name].value, doc.fields[name]), alone.values


def test_a_zone_name_whose_middle_the_detector_lost_is_read_across_the_gap(printed_reader, monkeypatch):
    import re

    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.printed.detection import TextBox
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    def letters(text: str) -> str:
        return re.sub(r"[^A-Z]", "", text.upper())

    pages = (render_document("td3_open", TESTS.nth(80 + i)) for i in range(200))
    doc = next(page for page in pages if len(letters(page.fields["surname"])) >= 12)
    zone = parse_mrz(doc.mrz)
    mrz_top = doc.mrz_box[1] / doc.image.shape[0]  # the zone's own lines are no print
    assert zone.valid
    assert printed_reader(doc.image, mrz_top=mrz_top, mrz_fields=zone.fields).fields["surname"].how == "mrz"
    surname = letters(zone.fields["surname"])
    detect = type(printed_reader.detector).__call__

    def stamped(self, rgb):
        """Fault injected: a stamp over the surname's middle, where the detector cuts the line (1.6 heights)."""
        out = []
        for b in detect(self, rgb):
            if surname in letters(printed_reader.recognizer([rgb[int(b.y0):int(b.y1), int(b.x0):int(b.x1)]])[0].text):
                gap, middle = 1.6 * b.height, (b.x0 + b.x1) / 2
                out += [TextBox(b.x0, b.y0, middle - gap / 2, b.y1, b.score),
                        TextBox(middle + gap / 2, b.y0, b.x1, b.y1, b.score)]
            else:
                out.append(b)
        return out

    monkeypatch.setattr(type(printed_reader.detector), "__call__", stamped)
    read = printed_reader(doc.image, mrz_top=mrz_top, mrz_fields=zone.fields)
    assert read.fields["surname"].how == "mrz" and letters(read.fields["surname"].value) == surname
    assert not any(surname in letters(line.text) for line in read.lines)  # in no line as cut


def _printed_line(text: str, scale: float) -> np.ndarray:
    import cv2

    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    crop = np.full((h + 16, w + 16, 3), 255, np.uint8)
    cv2.putText(crop, text, (8, h + 6), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), 2, cv2.LINE_AA)
    return crop


def test_a_line_reads_the_same_whatever_else_is_in_its_batch(printed_reader):
    from docauth.ocr.printed.recognition import BATCH_WIDTH

    recognizer = printed_reader.recognizer
    short, long = _printed_line("ROSSI", 1.0), _printed_line("DATE OF EXPIRY 12.03.2031 MARIA", 1.0)
    alone = recognizer([short])[0]
    together = recognizer([long, short, long])[1]
    assert alone.text == together.text == "ROSSI" and alone.glyph_confidences == together.glyph_confidences
    crops = [long, short, _printed_line("MARIA", 1.0)]
    for idx, batch in recognizer.preprocess(crops):
        # one padded width per batch, each member's own; a batch within the width budget
        assert {recognizer.padded_width(recognizer.line_width(crops[i])) for i in idx} == {batch.shape[3]}
        assert len(idx) == 1 or batch.shape[0] * batch.shape[3] <= BATCH_WIDTH


@pytest.mark.shared_data
def test_real_card_fronts_without_an_mrz_are_read_by_their_captions(printed_reader, shared_data):
    """Real layouts the reader was not built on: of the specimen card fronts with the three fields labelled,
    most fields are read exactly from print alone."""
    from docauth.imageio import load_image
    from docauth.training.ocr_eval import field_equal

    root = shared_data / "real-docs"
    rows = [r for r in csv.DictReader(open(root / "labels.csv", newline="")) if r["side"] == "front"]
    right = total = 0
    for row in rows:
        read = printed_reader(load_image(root / row["file"]))
        for name in ("surname", "date_of_birth", "document_number"):
            if row[name]:
                total += 1
                right += name in read.fields and field_equal(name, read.fields[name].value, row[name])
    assert total >= 30 and right / total >= 0.6, (right, total)


def test_one_caption_for_surname_and_given_names_takes_the_two_lines_under_it_in_order():
    lines = with_labels([_line("Name, Vorname / Surname, Given names", 100, 100, 320, 114),
                         _line("BRANDSTETTER", 100, 118, 260, 140), _line("MARIA", 100, 144, 180, 166),
                         _line("Geburtsdatum / Date of birth", 100, 200, 300, 214), _line("21.09.1979", 100, 218, 220, 240)])
    fields = assign_by_captions(lines, TODAY)
    assert {name: f.value for name, f in fields.items()} == {
        "surname": "BRANDSTETTER", "given_names": "MARIA", "date_of_birth": "1979-09-21"}


def test_a_value_right_aligned_under_its_caption_is_its_value():
    lines = with_labels([_line("DATE OF BIRTH", 853, 233, 988, 257), _line("05 05 1971", 781, 258, 988, 290)])
    assert assign_by_captions(lines, TODAY)["date_of_birth"].value == "1971-05-05"


def test_a_field_marker_before_a_name_is_no_part_of_it():
    from docauth.ocr.printed.assign import clean_name

    assert [clean_name(t) for t in ("[a MUSTERMANN", "(a) MUSTERMANN", "1) SMITH", "O'NEIL", "A MUSTERMANN")] == [
        "MUSTERMANN", "MUSTERMANN", "SMITH", "O'NEIL", "A MUSTERMANN"]


def _front_without_zone(printed_reader, nth: int, places, settled, why: str):
    """The first generated card front without an MRZ (from test seed ``nth``) where ``places(boxes, image)``
    names some detected lines and ``settled(read)`` holds; with those places and the read."""
    from docauth.ocr.printed.reader import PrintedReader
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    for k in range(12):
        doc = render_document("td1_front", TESTS.nth(nth) + k)
        if doc.mrz is not None:
            continue
        boxes = PrintedReader.preprocess(printed_reader.detector(doc.image), doc.image.shape, None)
        chosen = {(round(b.x0), round(b.y0)) for b in places(boxes, doc.image)}
        read = printed_reader(doc.image)
        if chosen and settled(read):
            return doc, chosen, read
    pytest.fail(f"no generated front without an MRZ {why}")


def _read_places(read) -> set:
    return {(round(line.x0), round(line.y0)) for line in read.lines}


def test_a_pages_widest_lines_are_read_only_while_a_field_is_not_read_surely(printed_reader, monkeypatch):
    import docauth.ocr.printed.assign as assign
    from docauth.ocr.printed.assign import FIELDS
    from docauth.ocr.printed.reader import LONG_LINE_GLYPHS, glyphs_in, value_sized

    doc, wide, read = _front_without_zone(
        printed_reader, 72, lambda boxes, _: [b for b in value_sized(boxes)[0] if glyphs_in(b) > LONG_LINE_GLYPHS],
        lambda read: all(name in read.fields and read.fields[name].sure for name in FIELDS),
        "whose fields all read surely beside a wide heading")
    assert not wide & _read_places(read)  # the headings were not read
    # Fault injected: no value reads surely, so every line is read, and the fields stay what they were.
    monkeypatch.setattr(assign, "SURE_VALUE", 1.01)
    unsure = printed_reader(doc.image)
    assert wide <= _read_places(unsure)
    assert unsure.values == read.values


def test_the_backend_setting_reaches_a_reader_loaded_without_one(monkeypatch, tmp_path):
    from docauth.ocr.printed import PrintedReader

    monkeypatch.setenv("DOCAUTH_DATA_DIR", str(tmp_path))
    for backend in ("onnxruntime:threads=1", "openvino:threads=1"):
        monkeypatch.setenv("DOCAUTH_BACKEND", backend)
        reader = PrintedReader.load()
        assert reader.detector.model.spec == reader.recognizer.model.spec == backend


def test_a_card_whose_fields_all_read_surely_between_its_bands_leaves_the_bands_unread(printed_reader, monkeypatch):
    import docauth.ocr.printed.assign as assign
    from docauth.ocr.printed.reader import in_margin_band

    doc, bands, read = _front_without_zone(
        printed_reader, 73, lambda boxes, image: [b for b in boxes if in_margin_band(b, image.shape)],
        lambda read: len(read.fields) == 5 and all(f.sure and f.how == "label" for f in read.fields.values()),
        "whose five fields all read surely under their captions")
    assert not bands & _read_places(read)
    # Fault injected: no value reads surely, so the bands are read too, and the values stay what they were.
    monkeypatch.setattr(assign, "SURE_VALUE", 1.01)
    unsure = printed_reader(doc.image)
    assert bands & _read_places(unsure)
    assert unsure.values == read.values


def test_a_line_left_unread_where_a_value_could_stand_unsettles_the_read():
    from docauth.ocr.printed.detection import TextBox
    from docauth.ocr.printed.reader import settled

    lines = with_labels([
        _line("Surname", 100, 100, 200, 114), _line("SPECIMEN", 100, 118, 230, 140),
        _line("Given names", 100, 150, 220, 164), _line("MARIA", 100, 168, 170, 190),
        _line("Date of birth", 100, 200, 230, 214), _line("17.04.1986", 100, 218, 230, 240),
        _line("Document no.", 300, 200, 420, 214), _line("AK4071359", 300, 218, 420, 240),
        _line("Date of expiry", 100, 250, 240, 264), _line("17.04.2031", 100, 268, 230, 290),
    ])
    fields = assign_by_captions(lines, TODAY)
    assert len(fields) == 5 and all(f.sure for f in fields.values())
    header, under_expiry = TextBox(100, 20, 300, 45, 1.0), TextBox(100, 294, 230, 316, 1.0)
    beside_surname = TextBox(240, 118, 330, 140, 1.0)
    assert settled(fields, lines, [header])
    assert not settled(fields, lines, [under_expiry])
    assert not settled(fields, lines, [beside_surname])
    unsure = dict(fields, surname=FieldRead("SPECIMEN", "SPECIMEN", 0.5, "label", False))
    assert not settled(unsure, lines, [header])


def test_while_a_zone_value_is_missing_the_lines_fitting_it_are_read_first():
    from docauth.ocr.printed.detection import TextBox
    from docauth.ocr.printed.reader import fit, fit_first, under_caption

    zone = {"surname": "NAGY", "date_of_birth": "1993-12-17"}
    caption = TextBox(300, 80, 420, 92, 1.0)
    date_line = TextBox(300, 95, 300 + 13 * 0.55 * 20, 115, 1.0)  # "17 DEC 1993" and margins, under a caption
    name_line = TextBox(300, 200, 300 + 4 * 0.55 * 20, 220, 1.0)  # four glyphs, under none
    boxes = [caption, date_line, name_line]
    fits = {b: (not under_caption(b, boxes), fit(b, zone)) for b in (date_line, name_line)}
    assert fits[date_line] < fits[name_line]  # by every value's fit, the date's line comes first
    order = sorted(fits, key=lambda b: fit_first(b, {"surname": "NAGY"}, fits[b]))
    assert order == [name_line, date_line]  # the surname missing: its line first
    order = sorted(fits, key=lambda b: fit_first(b, {"date_of_birth": "1993-12-17"}, fits[b]))
    assert order == [date_line, name_line]


def test_a_valid_zones_values_are_found_in_the_finer_steps_and_a_contradicted_one_reads_the_page_as_before(
        printed_reader):
    from dataclasses import asdict

    doc, zone = _passport_page_and_zone()
    coarse = printed_reader(doc.image, mrz_fields=zone.fields)
    fine = printed_reader(doc.image, mrz_fields=zone.fields, zone_valid=True)
    assert {n: (r.value, r.how) for n, r in fine.fields.items()} == {n: (r.value, r.how)
                                                                    for n, r in coarse.fields.items()}
    # A zone value the page does not print: its lines are then read for captions and for how surely they say
    # something else, which the finer steps would change; the whole read is the coarser one's, line for line.
    contradicted = dict(zone.fields, date_of_birth="1901-02-03")

    def lines(read):
        return [(ln.text, ln.confidence, ln.glyph_confidences, ln.box) for ln in read.lines]

    coarse = printed_reader(doc.image, mrz_fields=contradicted)
    fine = printed_reader(doc.image, mrz_fields=contradicted, zone_valid=True)
    assert lines(fine) == lines(coarse)
    assert {n: asdict(r) for n, r in fine.fields.items()} == {n: asdict(r) for n, r in coarse.fields.items()}


def test_a_line_read_alone_in_the_finer_steps_is_not_read_again_where_both_steps_pad_it_alike(printed_reader,
                                                                                            monkeypatch):
    from docauth.ocr.printed.recognition import FINE_WIDTH_STEP, WIDTH_STEP

    doc, zone = _passport_page_and_zone()
    contradicted = dict(zone.fields, date_of_birth="1901-02-03")  # the page is then read whole at the coarser step
    steps: dict[bytes, list[int]] = {}
    alike: dict[bytes, bool] = {}
    call = type(printed_reader.recognizer).__call__

    def spy(self, crops, step=WIDTH_STEP):
        for crop in crops:
            key = crop.tobytes() + str(crop.shape).encode()
            steps.setdefault(key, []).append(step)
            alike[key] = TextRecognizer.pads_alike(crop, FINE_WIDTH_STEP, WIDTH_STEP)
        return call(self, crops, step)

    monkeypatch.setattr(type(printed_reader.recognizer), "__call__", spy)
    printed_reader(doc.image, mrz_fields=contradicted, zone_valid=True)
    fine = [key for key, read in steps.items() if FINE_WIDTH_STEP in read]
    assert any(alike[key] for key in fine) and any(not alike[key] for key in fine)
    for key in fine:  # a line padded alike is the same input at both steps: its finer read stands
        assert steps[key] == ([FINE_WIDTH_STEP] if alike[key] else [FINE_WIDTH_STEP, WIDTH_STEP]), steps[key]


def test_a_card_back_none_of_whose_lines_print_its_valid_zones_values_is_not_read_further(printed_reader,
                                                                                          monkeypatch):
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.printed.reader import PrintedReader
    from docauth.ocr.printed.recognition import FINE_WIDTH_STEP, WIDTH_STEP
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    back = render_document("td1_back", TESTS.nth(5))
    zone = parse_mrz(back.mrz)
    assert zone.valid
    top = 0.6  # the zone's rows are the MRZ reader's, not the printed reader's
    asked: list[tuple[int, int]] = []
    read_each = PrintedReader._read_each

    def spy(self, page, boxes, captions=(), step=WIDTH_STEP):
        asked.append((len(boxes), step))
        return read_each(self, page, boxes, captions, step)

    monkeypatch.setattr(PrintedReader, "_read_each", spy)
    as_back = printed_reader(back.image, mrz_top=top, mrz_fields=zone.fields, zone_valid=True, zone_side=True)
    assert not any(read.how == "mrz" for read in as_back.fields.values()), as_back.export()
    # The lines that could print a value, one at a time in the finer steps, and nothing after them.
    assert asked and set(asked) == {(1, FINE_WIDTH_STEP)}, asked
    read_as_back = len(asked)
    asked.clear()
    # Not known to be one card's page: its zone's values are then looked for on the rest of it.
    printed_reader(back.image, mrz_top=top, mrz_fields=zone.fields, zone_valid=True)
    assert len(asked) > read_as_back and any(step == WIDTH_STEP for _, step in asked), asked
    # One card's page printing some of its zone's values but not one of them: read whole for it, as any page.
    doc, zone = _passport_page_and_zone()
    contradicted = dict(zone.fields, date_of_birth="1901-02-03")
    side = printed_reader(doc.image, mrz_fields=contradicted, zone_valid=True, zone_side=True)
    page = printed_reader(doc.image, mrz_fields=contradicted, zone_valid=True)
    assert side.fields["surname"].how == "mrz"
    assert [(ln.text, ln.box) for ln in side.lines] == [(ln.text, ln.box) for ln in page.lines]
