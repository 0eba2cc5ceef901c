"""The reader's postprocess: which of the zone and the print stands for each field, and when they disagree."""

from __future__ import annotations

def _printed(**reads):
    """A printed read of the given fields: name -> (value, how, sure[, glyph confidence])."""
    from docauth.ocr.printed import FieldRead, PrintedRead

    fields = {}
    for name, (value, how, sure, *glyph) in reads.items():
        p = glyph[0] if glyph else 0.99
        fields[name] = FieldRead(value, value, p, how, sure, glyphs=tuple((c, p) for c in value))
    return PrintedRead(fields, [])


def test_a_printed_value_disagrees_with_the_mrz_only_when_read_surely():
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.reader import DocumentReader, DocumentView

    mrz = parse_mrz(["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                     "L898902C36UTO7408122F1204159ZE184226B<<<<<10"])
    assert mrz.valid
    view = DocumentView(corners=[[0, 0], [1, 0], [1, 1], [0, 1]], rotation=0, found=True, rectified=None)
    printed = _printed(surname=("ERIKSSON", "mrz", True), expiry_date=("2012-04-15", "mrz", True),
                       date_of_birth=("1974-08-21", "label", True),  # read surely under its caption: differs
                       document_number=("L898902G3", "label", True, 0.8),  # one glyph read unsurely
                       given_names=("ANNA MARLA", "label", False))  # an unsure caption or value
    result = DocumentReader(None).postprocess(view, mrz, printed, {})
    assert result.consistency["expiry_date"] == {"viz": "2012-04-15", "mrz": "2012-04-15", "agree": True,
                                                 "found_in_print": True}
    assert result.consistency["date_of_birth"]["agree"] is False
    assert result.consistency["document_number"]["agree"] is None
    assert result.consistency["given_names"] == {"viz": "ANNA MARLA", "mrz": "ANNA MARIA", "agree": None,
                                                 "unsure": True}
    assert result.export()["printed"]["date_of_birth"]["how"] == "label"


def test_a_field_read_well_stands_on_its_own_when_the_mrz_is_not_valid():
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.reader import DocumentReader, DocumentView

    lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<19"]
    alternatives = [[[(c, 1.0)] for c in line] for line in lines]
    mrz = parse_mrz(lines, alternatives=alternatives)  # the composite check digit is wrong: not valid
    assert not mrz.valid and mrz.checks["date_of_birth"]["ok"]
    view = DocumentView(corners=[[0, 0], [1, 0], [1, 1], [0, 1]], rotation=0, found=True, rectified=None)
    printed = _printed(surname=("ERIKSSDN", "label", False), date_of_birth=("1974-08-21", "label", True),
                       expiry_date=("2012-04-15", "label", True))
    result = DocumentReader(None).postprocess(view, mrz, printed, {})
    # The printed name and birth date were misread; the MRZ read them well and the date passes its own check.
    assert result.fields["surname"] == "ERIKSSON" and result.fields["date_of_birth"] == "1974-08-12"
    assert result.sources["surname"] == result.sources["date_of_birth"] == "mrz_unchecked"  # not verified
    assert result.fields["expiry_date"] == "2012-04-15" and result.sources["expiry_date"] == "viz"  # they agree
    # A name has no check digit in any MRZ: read by the MRZ recogniser it is preferred to the printed read
    # even with an uncertain letter (not verified all the same).
    alternatives[0][7] = [("I", 0.6), ("L", 0.4)]
    unsure = parse_mrz(lines, alternatives=alternatives)
    result = DocumentReader(None).postprocess(view, unsure, printed, {})
    assert result.fields["surname"] == "ERIKSSON" and result.sources["surname"] == "mrz_unchecked"
    # An MRZ read without its structure (a date that is not digits) is no witness: the printed read stands,
    # and as it was not read surely, the text check may not accuse the document by it.
    garbled = [lines[0], lines[1][:13] + "74O8XZ2" + lines[1][20:]]
    broken = parse_mrz(garbled, alternatives=[[[(c, 1.0)] for c in line] for line in garbled])
    assert broken.type == "TD3" and not broken.structure_ok
    result = DocumentReader(None).postprocess(view, broken, printed, {})
    assert result.fields["surname"] == "ERIKSSDN" and "surname" in result.unsure


def test_a_value_placed_by_layout_alone_never_outranks_the_zones():
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.reader import DocumentReader, DocumentView

    # A zone without its structure (a date that is no calendar date): its fields are unchecked.
    lines = ["I<UTOD231458907<<<<<<<<<<<<<<<", "0000000F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
    zone = parse_mrz(lines, alternatives=[[[(c, 1.0)] for c in line] for line in lines])
    assert not zone.structure_ok and zone.fields["document_number"] == "D23145890"
    view = DocumentView(corners=[[0, 0], [1, 0], [1, 1], [0, 1]], rotation=0, found=True, rectified=None)
    guessed = _printed(document_number=("1234567890", "layout", False))
    result = DocumentReader(None).postprocess(view, zone, guessed, {})
    assert result.fields["document_number"] == "D23145890" and result.sources["document_number"] == "mrz_unchecked"
    # Under its caption the printed number is a read of that field, and stands against an unchecked zone.
    captioned = _printed(document_number=("D23145891", "label", True))
    assert DocumentReader(None).postprocess(view, zone, captioned, {}).sources["document_number"] == "viz"


def test_a_date_placed_by_layout_that_the_zones_check_digit_contradicts_is_no_printed_read():
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.reader import DocumentReader, DocumentView

    zone = parse_mrz(["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
                      "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
    assert zone.valid and zone.fields["date_of_birth"] == "1974-08-12"
    view = DocumentView(corners=[[0, 0], [1, 0], [1, 1], [0, 1]], rotation=0, found=True, rectified=None)
    issued = _printed(date_of_birth=("2015-07-14", "layout", False))  # the earliest date printed: the issue date
    result = DocumentReader(None).postprocess(view, zone, issued, {})
    assert "date_of_birth" not in result.viz and result.consistency["date_of_birth"]["agree"] is None
    assert "unsure" not in result.consistency["date_of_birth"] and result.fields["date_of_birth"] == "1974-08-12"
    # The guess that names the zone's day stands, and one under its caption is a read of the field either way.
    same = _printed(date_of_birth=("1974-08-12", "layout", False))
    assert DocumentReader(None).postprocess(view, zone, same, {}).viz["date_of_birth"] == "1974-08-12"
    captioned = _printed(date_of_birth=("2015-07-14", "label", False))
    assert DocumentReader(None).postprocess(view, zone, captioned, {}).viz["date_of_birth"] == "2015-07-14"


def test_given_names_the_zone_cut_short_agree_with_the_print_however_short_the_cut():
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.reader import DocumentReader, DocumentView

    view = DocumentView(corners=[[0, 0], [1, 0], [1, 1], [0, 1]], rotation=0, found=True, rectified=None)
    printed = _printed(given_names=("JEAN EINAR", "label", True))
    full = parse_mrz(["I<MEXJT52026128<<<<<<<<<<<<<<<", "4203315M1711028MEX<<<<<<<<<<<0",
                      "ABERCROMBIE<FITZGERALD<<JEAN<E"])  # the name field full: EINAR cut to E
    result = DocumentReader(None).postprocess(view, full, printed, {})
    assert result.consistency["given_names"]["agree"] is True
    assert result.fields["given_names"] == "JEAN EINAR"
    # The same short name with room left in the field is no cut: the print names someone else.
    room = parse_mrz(["I<MEXJT52026128<<<<<<<<<<<<<<<", "4203315M1711028MEX<<<<<<<<<<<0",
                      "ABERCROMBIE<<JEAN<E<<<<<<<<<<<"])
    result = DocumentReader(None).postprocess(view, room, printed, {})
    assert result.consistency["given_names"]["agree"] is False
