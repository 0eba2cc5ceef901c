"""Where a zone may lie on its document: ICAO 9303 prints it along the bottom edge, in its own reading direction."""

from types import SimpleNamespace

import numpy as np
import pytest

from docauth.ocr.zone_geometry import at_bottom_edge

CARD = np.float32([[0, 0], [860, 0], [860, 540], [0, 540]])  # image order TL, TR, BR, BL


def _read(box, rotation=0):
    x0, y0, x1, y1 = box
    corners = np.float64([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return SimpleNamespace(found=SimpleNamespace(corners_in_input=lambda: corners), rotation=rotation)


@pytest.mark.parametrize("box, rotation, expected", [
    ((30, 350, 830, 520), 0, True),     # a TD1 zone's three lines at the foot of the card
    ((30, 180, 830, 300), 0, False),    # print across the card's middle
    ((30, 20, 830, 190), 180, True),    # the card upside down: its foot is at the top of the photo
    ((30, 350, 830, 520), 180, False),  # ... and what lies at the bottom of the photo is its head
    ((700, 30, 840, 510), 90, True),    # turned a quarter (counter-clockwise): its foot on the right
    ((20, 30, 160, 510), 90, False),
])
def test_zone_must_reach_the_documents_foot(box, rotation, expected):
    assert at_bottom_edge(_read(box, rotation), CARD) is expected
