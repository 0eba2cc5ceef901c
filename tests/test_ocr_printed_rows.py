"""Lines the detector cut on their row (docauth.ocr.printed.rows): a value cut into two boxes that overlap is read
across as one line. Made-up boxes and generated pages only."""

from __future__ import annotations

import re
from types import SimpleNamespace as Line

import pytest

from docauth.ocr.printed.rows import bridges


@pytest.fixture(scope="module")
def printed_reader():
    from docauth.ocr.printed import PrintedReader

    return PrintedReader.load(backend="onnxruntime")


def test_two_boxes_overlapping_on_one_row_are_bridged_and_one_inside_another_is_not():
    left, right = Line(x0=500, y0=287, x1=650, y1=318), Line(x0=630, y0=286, x1=735, y1=317)
    assert bridges([right, left]) == [(500, 286, 735, 318)]
    inside = Line(x0=560, y0=288, x1=640, y1=317)
    assert bridges([left, inside]) == []
    # a word space apart, or overlapping as little as detector boxes do: already joined as read
    assert bridges([left, Line(x0=655, y0=287, x1=735, y1=318)]) == []
    assert bridges([left, Line(x0=645, y0=287, x1=735, y1=318)]) == []


def test_a_zone_date_the_detector_cut_into_overlapping_boxes_is_read_across(printed_reader, monkeypatch):
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.printed.detection import TextBox
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    def digits(text: str) -> str:
        return re.sub(r"[^0-9]", "", text)

    doc = render_document("td3_open", TESTS.nth(81))
    zone = parse_mrz(doc.mrz)
    mrz_top = doc.mrz_box[1] / doc.image.shape[0]  # the zone's own lines are no print
    assert zone.valid
    assert printed_reader(doc.image, mrz_top=mrz_top, mrz_fields=zone.fields).fields["date_of_birth"].how == "mrz"
    year = zone.fields["date_of_birth"][:4]
    detect = type(printed_reader.detector).__call__

    def cut(self, rgb):
        """Fault injected: the birth date's box cut in two that overlap by most of a line height, as the detector
        cuts a date over a busy background, so that neither part nor both joined read as the date."""
        out = []
        for b in detect(self, rgb):
            text = printed_reader.recognizer([rgb[int(b.y0):int(b.y1), int(b.x0):int(b.x1)]])[0].text
            if year in digits(text) and b.y0 < mrz_top * rgb.shape[0]:
                middle, overlap = (b.x0 + b.x1) / 2, 0.8 * b.height
                out += [TextBox(b.x0, b.y0, middle + overlap / 2, b.y1, b.score),
                        TextBox(middle - overlap / 2, b.y0, b.x1, b.y1, b.score)]
            else:
                out.append(b)
        return out

    monkeypatch.setattr(type(printed_reader.detector), "__call__", cut)
    read = printed_reader(doc.image, mrz_top=mrz_top, mrz_fields=zone.fields)
    assert read.fields["date_of_birth"].how == "mrz"
    assert read.fields["date_of_birth"].value == zone.fields["date_of_birth"]
