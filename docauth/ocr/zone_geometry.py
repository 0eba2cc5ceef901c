"""Where the document lies, from where its MRZ lies: ICAO 9303 fixes the zone's place on each format's page, so
a valid zone predicts the document's corners, checks the located outline, and finds the data page of an open
booklet.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.ocr.locate import TD3_ASPECT, Located
from docauth.ocr.mrz.reader import MRZRead
from docauth.ocr.quad import document_from_zone, page_with_zone


# Formats printed on a booklet's data page: the outline may take in the facing page too.
BOOKLET_TYPES = frozenset({"TD3", "MRVA"})


# How far (largest corner distance over the diagonal) an outline may lie from where the MRZ puts the
# document before the MRZ's prediction replaces it. The prediction's own corners scatter by ~2 % of the
# diagonal; an outline that agrees within 6 % is the sharper of the two (its edges are the real ones).
ZONE_AGREEMENT = 0.06


def checked_against_zone(located, read: MRZRead):
    """The outline when it agrees with the document the MRZ predicts (ICAO sizes around the zone), else the
    prediction, which is the surer of the two when they disagree."""
    predicted = document_from_zone(read.zone_in_reading_order(), read.result.type)
    if predicted is None or (located.found and _agrees(located.corners, predicted)):
        return located
    return Located(predicted, True, located.score, {"method": "mrz_geometry", "outline": located.info.get("method")})


def holds_zone(corners: np.ndarray, read: MRZRead) -> bool:
    """Does the outline (image order) hold the zone's centre? One that does not is some other shape (the
    portrait, a fingerprint), whatever the zone's check digits say: the zone is printed on its document.

    >>> from types import SimpleNamespace
    >>> read = SimpleNamespace(found=SimpleNamespace(centre_in_input=lambda: (300.0, 320.0)))
    >>> card = np.float32([[0, 0], [570, 0], [570, 350], [0, 350]])
    >>> holds_zone(card, read), holds_zone(card / 2, read)
    (True, False)
    """
    x, y = read.found.centre_in_input()
    return cv2.pointPolygonTest(np.asarray(corners, np.float32).reshape(-1, 1, 2), (float(x), float(y)), False) >= 0


def _agrees(corners: np.ndarray, predicted: np.ndarray) -> bool:
    """Whether located corners lie within ZONE_AGREEMENT of the diagonal of the predicted ones (image order)."""
    diagonal = float(np.linalg.norm(predicted[2] - predicted[0]))
    return float(np.linalg.norm(corners - predicted, axis=1).max()) <= ZONE_AGREEMENT * diagonal


def zone_agreement(read: MRZRead):
    """The locator's ``accept`` test for a read MRZ: corners (their data page, for a booklet) that agree with
    the document the zone predicts; None for a format without a prediction."""
    predicted = document_from_zone(read.zone_in_reading_order(), read.result.type)
    if predicted is None:
        return None
    if read.result.type in BOOKLET_TYPES:
        centre, direction = _zone_centre_and_direction(read)  # once: the test runs on every candidate quad
        return lambda corners: _agrees(page_with_zone(corners, centre, direction, TD3_ASPECT), predicted)
    return lambda corners: _agrees(corners, predicted)


def data_page(corners: np.ndarray, read: MRZRead) -> np.ndarray:
    """The data page alone when the outline found the whole open booklet (both pages)."""
    return page_with_zone(corners, *_zone_centre_and_direction(read), TD3_ASPECT)


def _zone_centre_and_direction(read: MRZRead) -> tuple[tuple[float, float], np.ndarray]:
    """The zone's centre and a vector along its lines, in input coordinates."""
    block = read.found.corners_in_input()
    return read.found.centre_in_input(), block[1] - block[0]


# ICAO 9303 prints the zone along the document's bottom edge (its last line within about a tenth of the
# height of it on every format): a block that ends higher up, in its own reading direction, is other print
# taken for a zone (microprint round a portrait, a block of a card front's fields).
ZONE_BOTTOM_EDGE = 0.75


def at_bottom_edge(read: MRZRead, corners: np.ndarray) -> bool:
    """Does the zone reach the lower quarter of the document whose outline (image order) is ``corners``,
    seen the way the zone reads?"""
    unit = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    to_unit = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), unit)
    pts = cv2.perspectiveTransform(read.found.corners_in_input().astype(np.float32)[None], to_unit)[0]
    for _ in range((read.rotation // 90) % 4):  # each clockwise quarter-turn: (x, y) -> (1 - y, x)
        pts = np.stack([1.0 - pts[:, 1], pts[:, 0]], 1)
    return float(pts[:, 1].max()) >= ZONE_BOTTOM_EDGE


def zone_top(read: MRZRead, homography: np.ndarray, rect_shape, rotation: int) -> float | None:
    """Fraction of the upright rectified document above the MRZ block."""
    pts = cv2.perspectiveTransform(read.found.corners_in_input()[None], homography)[0]
    height, width = rect_shape[:2]
    for _ in range((rotation // 90) % 4):  # each clockwise quarter-turn: (x, y) -> (H - 1 - y, x)
        pts = np.stack([height - 1 - pts[:, 1], pts[:, 0]], 1)
        height, width = width, height
    top = float(pts[:, 1].min()) / height
    return top if 0.0 < top < 1.0 else None
