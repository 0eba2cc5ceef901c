"""Printed fields: date formats, label/value pairing, content fallbacks, MRZ agreement."""

from __future__ import annotations

from datetime import date

import numpy as np
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
    ("23 NOV/Nov “96", "birth", "1996-11-23"),  # a speck read as a quote
    ("(08'DEC 2026", "expiry", "2026-12-08"),
    ("16.12:1941", "birth", "1941-12-16"),  # a dot read as a colon
    ("1)5029581", "birth", None),  # a document number, not 15.02.9581
    ("SURNAME", "birth", None),
])
def test_dates(text, kind, iso):
    assert normalise_date(text, kind=kind, today=TODAY) == iso


def _p(text, x, y, h):
    return Phrase(text, x, y, x + 12 * len(text), y + h, 90.0)


def _read(phrases, shape):
    """The fields of a page of ``shape`` with these phrases: by their labels, then by their content."""
    fields = fields_from_phrases(phrases, today=TODAY)
    fill_from_content(fields, phrases, shape, today=TODAY)
    return fields


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


def test_each_half_of_a_bilingual_label_read_apart_names_its_field():
    # 'Apellidos / Surname' read as two phrases, the first misread: 'Surname' starts too far right of the value to
    # take it, and 'ApelLiid)' was taken for the surname itself by the content fallback.
    phrases = [
        _p("ApelLiid)", 345, 126, 15), _p("Surname", 472, 127, 11), _p("IONESCU", 346, 148, 18),
        _p("Noml", 345, 177, 11), _p("Given: names", 440, 179, 11), _p("PRIYA", 345, 199, 18),
        _p("05/10/2001", 345, 299, 18),
    ]
    fields = _read(phrases, (640, 1000))
    assert (fields["surname"], fields["given_names"]) == ("IONESCU", "PRIYA")


def test_a_value_lines_up_with_the_first_half_of_a_label_read_apart_at_its_slash():
    # 'Naam / Surname' read as 'Na.' + '/ Surname' (a generated Dutch card): the value starts under 'Na.', 43 px
    # left of '/ Surname', too far for that half alone; the given names' label was read as '76' and 'name', and
    # the content fallback took PIERRE (SAAR's box is a little lower than the dates' print).
    at = lambda text, x0, y0, x1, y1: Phrase(text, x0, y0, x1, y1, 90.0)  # noqa: E731
    phrases = [at("Na.", 321, 119, 337, 129), at("/ Surname", 364, 119, 440, 132), at("SAAR", 321, 138, 390, 160),
               at("76", 407, 174, 432, 186), at("name", 476, 178, 510, 188), at("PIERRE", 321, 192, 426, 215),
               at("14.06.1946", 321, 301, 498, 328), at("31.07.2033", 321, 354, 499, 383)]
    fields = _read(phrases, (836, 1100))
    assert (fields["surname"], fields["given_names"]) == ("SAAR", "PIERRE")


def test_icao_names_for_the_name_fields_are_labels():
    # ICAO's TD2 specimen labels its names "Primary identifier / Identifiant primaire" and "Secondary identifier /
    # Identifiant secondaire" (English over French); without them the French label was taken for the surname.
    at = lambda text, x0, y0, x1, y1: Phrase(text, x0, y0, x1, y1, 90.0)  # noqa: E731
    phrases = [at("Secondary identifier", 493, 64, 731, 90), at("Primary identifier!", 238, 67, 442, 93),
               at("Identifiant secondaire", 486, 94, 736, 115), at("Identifiant primaire", 238, 98, 454, 123),
               at("ANNA MARIA", 503, 129, 688, 152), at("ERIKSSON", 252, 131, 404, 155),
               at("12AUG/AOUT 74", 514, 240, 749, 264)]
    fields = _read(phrases, (500, 1000))
    assert (fields["surname"], fields["given_names"]) == ("ERIKSSON", "ANNA MARIA")


def test_a_hair_line_beside_a_word_is_left_out_of_its_box():
    import cv2

    from docauth.ocr.viz import text_boxes

    page = np.full((630, 1000), 235, np.uint8)
    cv2.putText(page, "KOWALSKI", (60, 160), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 20, 2, cv2.LINE_AA)
    cv2.line(page, (42, 182), (54, 138), 60, 1, cv2.LINE_AA)  # guilloche, close enough to be joined to the K
    (box,) = [b for b in text_boxes(page) if b[1] < 200]
    assert box[0] >= 58 and box[3] - box[1] <= 24, box  # the word's own glyphs, not a box half a line taller


def test_content_fallback_when_labels_are_illegible():
    phrases = [
        _p("REPUBLIC OF SPAIN", 40, 10, 30),
        _p("Nbm/ Srnme", 300, 100, 10), _p("GARCIA", 300, 114, 20),
        _p("Gv nms", 300, 150, 10), _p("ANA", 300, 164, 20),
        _p("01 03 1980", 300, 264, 20), _p("AB123456", 500, 264, 20), _p("02.04.2031", 300, 314, 20),
        _p("M", 300, 214, 20),
    ]
    fields = _read(phrases, (400, 1000))
    assert fields["date_of_birth"] == "1980-03-01"
    assert fields["expiry_date"] == "2031-04-02"
    assert fields["document_number"] == "AB123456"
    assert fields["sex"] == "M"
    assert (fields["surname"], fields["given_names"]) == ("GARCIA", "ANA")


def test_a_misread_title_is_no_name():
    # Whole-photo read of a generated front (dev seed 462,000): "CARTE D'IDENTITE" read as 'ADENTITE' at the
    # values' size, above the names, in their column, with no label read.
    phrases = [
        _p("ADENTITE", 300, 60, 20), _p("TAYLOR", 300, 114, 20), _p("KENJI", 300, 164, 20),
        _p("1995-10-17", 300, 214, 20),
    ]
    fields = _read(phrases, (400, 1000))
    assert (fields["surname"], fields["given_names"]) == ("TAYLOR", "KENJI")


def test_the_labelled_expiry_is_not_also_the_birth_date():
    # Generated front (dev seed): the birth date under a watermark was illegible; the expiry "14 APR/AVR 33"
    # also reads as a birth in 1933 and was taken for one.
    phrases = [
        _p("Naam / Surname", 300, 100, 10), _p("AHMED", 300, 114, 20),
        _p("Geldig tot / Date of expiry", 300, 200, 10), _p("14 APR/AVR 33", 300, 214, 20),
        _p("4C5S806E", 500, 164, 20),
    ]
    fields = _read(phrases, (400, 1000))
    assert fields["expiry_date"] == "2033-04-14"
    assert "date_of_birth" not in fields


def test_a_labelled_date_cut_in_two_boxes_is_read_whole():
    # Generated front (dev seed): the day stood apart from a bilingual month, two text boxes on one line.
    phrases = [
        _p("Date of birth", 300, 250, 10), _p("07", 300, 264, 20), _p("JAN/JAN 71", 345, 264, 20),
        _p("Document no.", 500, 250, 10), _p("12WHGF2K", 520, 264, 20),
    ]
    fields = fields_from_phrases(phrases, today=TODAY)
    assert fields["date_of_birth"] == "1971-01-07"
    assert fields["document_number"] == "12WHGF2K"
    # a box further along the line, past a column's gap, is another field's value
    far = [_p("Date of birth", 300, 250, 10), _p("07", 300, 264, 20), _p("JAN 71", 600, 264, 20)]
    assert "date_of_birth" not in fields_from_phrases(far, today=TODAY)


def test_specks_read_as_two_small_letters_are_no_name():
    # Generated front (dev seed): the surname label was illegible and the portrait's edge read "ee".
    phrases = [_p("RZECZPOSPOLITA POLSKA", 40, 29, 27), _p("Nofnd:Suinanie", 347, 125, 13),
               _p("ee", 142, 141, 22), _p("KIM", 349, 149, 22), _p("OMAR", 348, 207, 22)]
    fields = _read(phrases, (631, 1000))
    assert (fields["surname"], fields["given_names"]) == ("KIM", "OMAR")


def test_a_date_still_to_come_is_the_expiry_even_alone():
    phrases = [_p("ANDERSSON", 300, 114, 20), _p("(08'DEC 2031", 300, 314, 20)]
    fields = _read(phrases, (400, 1000))
    assert fields["expiry_date"] == "2031-12-08"
    assert "date_of_birth" not in fields
    # a date alone that may be a birth date stays unassigned either way
    phrases = [_p("ANDERSSON", 300, 114, 20), _p("08 DEC 2011", 300, 314, 20)]
    fields = _read(phrases, (400, 1000))
    assert fields.get("date_of_birth") == "2011-12-08" and "expiry_date" not in fields


def test_document_number_read_with_a_gap_or_a_symbol():
    phrases = [_p("Document no.", 300, 100, 10), _p("12WHGF 2K", 300, 114, 20),
               _p("Date of birth", 300, 150, 10), _p("1 JAN 1971", 300, 164, 20)]
    assert fields_from_phrases(phrases, today=TODAY)["document_number"] == "12WHGF2K"
    phrases[1] = _p("$Z2954432", 300, 114, 20)
    assert fields_from_phrases(phrases, today=TODAY)["document_number"] == "SZ2954432"
    phrases[1] = _p("AG9JUL 1983", 300, 114, 20)  # a date beside it is not part of the number
    assert fields_from_phrases(phrases, today=TODAY)["document_number"] == "AG9JUL"


def test_a_label_read_as_small_letters_is_not_a_name():
    # "Given names" read as "tong agen" sits where a value would; the value is in capitals.
    phrases = [
        _p("Surname", 300, 100, 10), _p("SANTOS", 300, 114, 20),
        _p("bivennames", 300, 150, 10), _p("tong agen", 300, 162, 22), _p("PETER", 310, 172, 20),
    ]
    fields = fields_from_phrases(phrases, today=TODAY)
    assert fields["given_names"] == "PETER"


def test_a_name_at_the_top_of_a_closely_cropped_card_is_still_a_name():
    # The card cropped close to its header: the surname sits in the top band, under its (illegible) label;
    # the header line has no label above it.
    phrases = [
        _p("SVERIGE KORT", 300, 5, 30),
        _p("Apetidos | Suinamne:", 300, 30, 10), _p("SCHMIDT", 300, 44, 20),
        _p("Nombr nares", 300, 80, 10), _p("GIULIA MARIANA", 300, 94, 20),
        _p("19 07 1993", 300, 164, 20),
    ]
    fields = _read(phrases, (400, 1000))
    assert (fields["surname"], fields["given_names"]) == ("SCHMIDT", "GIULIA MARIANA")


def test_agreement_with_the_mrz():
    assert compare_field("surname", "MÜLLER", "MUELLER") is True
    assert compare_field("surname", "Garcia Lopez", "GARCIA LOPEZ") is True
    # the MRZ truncates long names: a printed name that starts with it agrees
    assert compare_field("given_names", "MARIE CHRISTINE ANTOINETTE", "MARIE CHRISTINE AN") is True
    assert compare_field("document_number", "AB 123456", "AB123456") is True
    assert compare_field("date_of_birth", "1980-03-01", "1980-03-02") is False
    assert compare_field("sex", None, "F") is None


def test_two_labels_read_as_one_phrase_give_each_field_the_value_under_its_own_label():
    from docauth.ocr.viz import Phrase, fields_from_phrases

    phrases = [
        Phrase("DATE DE NAISSANCE / DATE OF BIRTH   N DU DOCUMENT / DOCUMENT NO", 356, 274, 938, 289, 90.0),
        Phrase("T22000129", 670, 296, 825, 317, 90.0),
        Phrase("23 JAN 2008", 357, 299, 547, 319, 90.0),
    ]
    fields = fields_from_phrases(phrases)
    assert fields["date_of_birth"] == "2008-01-23"
    assert fields["document_number"] == "T22000129"


def test_a_document_number_misread_in_the_mosaic_is_read_again_and_the_majority_kept():
    import numpy as np
    from PIL import Image, ImageDraw

    from docauth.ocr.viz import reread_document_numbers, text_boxes
    from docauth.synth import draw

    page = Image.new("L", (1000, 300), 255)
    pen = ImageDraw.Draw(page)
    pen.text((60, 60), "DOCUMENT NO", font=draw.font(draw.FONT_DIR_DEJAVU + "DejaVuSans.ttf", 18), fill=60)
    pen.text((60, 95), "SG5KDLUGE", font=draw.font(draw.FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf", 30), fill=20)
    pen.text((60, 180), "12 AUG 1974", font=draw.font(draw.FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf", 30), fill=20)
    gray = np.asarray(page)
    boxes = text_boxes(gray)
    number_box = next(b for b in boxes if b[1] <= 110 <= b[3])
    date_box = next(b for b in boxes if b[1] <= 195 <= b[3])
    # Fault injected: the mosaic read both the 5 and an S, as Tesseract does at times on random letters and digits.
    phrases = [Phrase("SGS5KDLUGE", *number_box, 90.0), Phrase("12 AUG 1974", *date_box, 90.0)]
    reread = reread_document_numbers(gray, phrases)
    assert reread[0].text == "SG5KDLUGE"
    assert reread[1] is phrases[1]  # a date is no document number: not read again


def test_an_unlabelled_two_digit_year_due_soon_is_the_expiry_not_a_birth_long_ago():
    fields: dict = {}
    fill_from_content(fields, [Phrase("12 FEB/FEV 33", 60, 300, 260, 320, 90.0)], (640, 1000),
                      today=date(2026, 11, 24))
    assert fields.get("date_of_birth") is None
    assert fields["expiry_date"] == "2033-02-12"
    fields = {}
    fill_from_content(fields, [Phrase("12 FEB 1933", 60, 300, 260, 320, 90.0)], (640, 1000),
                      today=date(2026, 11, 24))
    assert fields["date_of_birth"] == "1933-02-12"  # a four-digit year says which it is


def test_a_label_fragment_is_no_name_when_the_values_are_larger():
    """Labels unread, a page of small print beside the card: names are the phrases of the values' size."""
    small_print = [Phrase("lorem ipsum", 30, 10 + 17 * k, 200, 20 + 17 * k, 90.0) for k in range(12)]
    card = [
        Phrase("Si", 369, 189, 378, 200, 74.5),  # what is left of "Name / Surname"
        Phrase("FERREIRA", 322, 205, 417, 221, 96.1),
        Phrase("CARMEN SARA", 321, 243, 464, 259, 95.6),
        Phrase("16 01 1991", 322, 321, 430, 336, 89.8),
        Phrase("15 07 2029", 322, 359, 430, 375, 84.4),
    ]
    fields: dict = {}
    fill_from_content(fields, small_print + card, (1050, 1400), today=date(2026, 11, 24))
    assert fields["surname"] == "FERREIRA" and fields["given_names"] == "CARMEN SARA"
    assert fields["date_of_birth"] == "1991-01-16"


def test_a_bilingual_label_read_without_its_slash_is_still_a_label_not_a_name():
    phrases = [
        Phrase("NAAM SUMAME", 348, 118, 470, 138, 60.0),  # "Naam / Surname": slash lost, "rn" read as "m"
        Phrase("ROSSI", 348, 146, 440, 168, 92.0),
        Phrase("VOORNAMEN / GIVEN NAMES", 348, 175, 560, 188, 80.0),
        Phrase("LUCA", 348, 197, 420, 219, 93.0),
    ]
    fields = _read(phrases, (640, 1000))
    assert (fields["surname"], fields["given_names"]) == ("ROSSI", "LUCA")


def test_a_card_below_a_keyboard_keeps_its_text_boxes():
    """Clutter above the card (a keyboard's keys: a glyph each) must not use up the text-box budget."""
    import cv2
    import numpy as np

    from docauth.ocr.viz import MAX_TEXT_BOXES, read_printed, text_boxes
    from docauth.synth import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td1_front", TESTS.nth(31) + 100)
    height, width = doc.image.shape[:2]
    canvas = np.full((height + 420, width, 3), 150, np.uint8)
    canvas[420:] = doc.image
    for row in range(6):  # 6 rows of 14 keys, one letter each
        for col in range(14):
            x, y = 20 + col * (width - 40) // 14, 20 + row * 65
            cv2.rectangle(canvas, (x, y), (x + 50, y + 50), (215, 215, 215), -1)
            cv2.putText(canvas, "QWERTYUIOPASDFGHJKLZXCVBNM"[(row * 14 + col) % 26], (x + 14, y + 36),
                        cv2.FONT_HERSHEY_SIMPLEX, 1.0, (40, 40, 40), 2)
    gray = cv2.cvtColor(cv2.resize(canvas, (1000, round(canvas.shape[0] * 1000 / width))), cv2.COLOR_RGB2GRAY)
    keys = text_boxes(gray[: round(420 * 1000 / width)])
    assert len(keys) >= 60 and MAX_TEXT_BOXES <= 60  # the keys alone would fill the budget
    fields, _phrases = read_printed(canvas)
    assert fields.get("date_of_birth") == doc.fields["date_of_birth"], fields
    assert fields.get("document_number") == doc.fields["document_number"], fields


def test_a_card_in_a_photo_taken_upright_is_read():
    """A whole photo taken upright is portrait: text sizes are judged against its short side, not its height."""
    import numpy as np

    from docauth.ocr.viz import read_printed
    from docauth.synth import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td1_front", TESTS.nth(31) + 100)
    height, width = doc.image.shape[:2]
    canvas = np.full((3 * height + 200, width + 100, 3), 150, np.uint8)
    canvas[height: 2 * height, 50: 50 + width] = doc.image
    fields, _phrases = read_printed(canvas)
    assert fields.get("date_of_birth") == doc.fields["date_of_birth"], fields
    assert fields.get("document_number") == doc.fields["document_number"], fields
