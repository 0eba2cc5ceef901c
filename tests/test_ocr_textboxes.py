"""Morphological text boxes (which way up a page is) and the printed-versus-MRZ comparisons."""

from __future__ import annotations

import numpy as np

from docauth.ocr.printed.compare import compare_field
from docauth.ocr.textboxes import label_above, text_boxes


def test_a_hair_line_beside_a_word_is_left_out_of_its_box():
    import cv2

    page = np.full((630, 1000), 235, np.uint8)
    cv2.putText(page, "KOWALSKI", (60, 160), cv2.FONT_HERSHEY_SIMPLEX, 0.9, 20, 2, cv2.LINE_AA)
    cv2.line(page, (42, 182), (54, 138), 60, 1, cv2.LINE_AA)  # guilloche, close enough to be joined to the K
    (box,) = [b for b in text_boxes(page) if b[1] < 200]
    assert box[0] >= 58 and box[3] - box[1] <= 24, box  # the word's own glyphs, not a box half a line taller


def test_a_small_label_right_above_its_value_is_the_upright_layout():
    assert label_above((100, 100, 200, 112), (102, 116, 260, 140))
    assert not label_above((100, 100, 200, 112), (102, 90, 260, 98))  # above it: upside down


def test_agreement_with_the_mrz():
    assert compare_field("surname", "MÜLLER", "MUELLER") is True
    assert compare_field("surname", "Garcia Lopez", "GARCIA LOPEZ") is True
    # the MRZ truncates long names: a printed name that starts with it agrees
    assert compare_field("given_names", "MARIE CHRISTINE ANTOINETTE", "MARIE CHRISTINE AN") is True
    assert compare_field("document_number", "AB 123456", "AB123456") is True
    # a hyphen is a filler in the zone, or nothing: neither spelling is another name
    assert compare_field("surname", "BRUNHOLD-ESCH", "BRUNHOLDESCH") is True
    assert compare_field("surname", "BRUNHOLD-ESCH", "BRUNHOLD ESCH") is True
    assert compare_field("surname", "BRUNHOLD-ESCH", "BRUNHOLDASCH") is False
    assert compare_field("date_of_birth", "1980-03-01", "1980-03-02") is False
    assert compare_field("sex", None, "F") is None
