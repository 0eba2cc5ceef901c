"""Which way up a page without an MRZ lies: its text lines levelled, the quarter-turn told by the lines and by
small captions above larger values, Tesseract's orientation detector breaking ties.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.ocr.locate import rotate_quarter
from docauth.ocr.mrz.direction import text_angle
from docauth.ocr.mrz.finder import find_text_lines
from docauth.ocr.tesseract import tesseract_engine
from docauth.ocr.textboxes import label_above, text_boxes


# Sides the classifier only gives cards (a passport data page is "open"), and the long-to-short ratio from
# which a rectified outline is taken to be a card's (TD1 1.59, TD2 1.42; a square-ish quad says nothing).
CARD_SIDES = frozenset({"front", "back"})
CARD_MIN_ASPECT = 1.3
# With the side not known, only an outline in a TD1 card's proportions says which way is long: a passport data
# page (1.42) is landscape upright but an open booklet's two pages together (1.41) are portrait.
TD1_ONLY_MIN_ASPECT = 1.5


def card_outline_landscape(shape, side: str | None) -> bool | None:
    """Is the rectified card's long side horizontal? None when the outline is too square to say (a TD1 card
    is 1.59:1; a wrong outline, or the whole photo, may be anything), or may be a booklet's two pages.

    Without the side (``docauth ocr`` on a photo), an outline in a card's shape is a card's: the text-line
    count alone turns some well-located cards a quarter.

    >>> card_outline_landscape((540, 856), "front"), card_outline_landscape((856, 540), None)
    (True, False)
    >>> card_outline_landscape((700, 1000), None), card_outline_landscape((540, 856), "open")  # page or spread
    (None, None)
    """
    if side is not None and side not in CARD_SIDES:
        return None
    height, width = shape[:2]
    ratio = max(height, width) / max(1, min(height, width))
    return None if ratio < (CARD_MIN_ASPECT if side in CARD_SIDES else TD1_ONLY_MIN_ASPECT) else width > height


def orient_by_text(gray: np.ndarray, engine=None, *, landscape: bool | None = None) -> int:
    """Quarter-turn of a document without an MRZ.

    Text lines run horizontally when upright (component chains decide 0/180 vs
    90/270). Printed fields put a small label *above* a larger value, left
    aligned: upside down the small text sits below and right-aligned. That vote
    decides upright from upside down; Tesseract's orientation detector breaks ties.
    """

    s = min(1.0, 800 / max(gray.shape))
    small = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else gray
    if landscape is None:
        chars = {r: sum(ln.count for ln in find_text_lines(rotate_quarter(small, r))) for r in (0, 90)}
        base = 0 if chars[0] >= chars[90] else 90
    else:
        base = 0 if landscape else 90
    g = rotate_quarter(small, base)
    up, down = _label_value_votes(text_boxes(g))
    if down >= up + 2:
        return (base + 180) % 360
    if up >= down + 1:
        return base

    osd = (engine or tesseract_engine()).orientation(g)
    if osd is not None and osd.rotate == 180 and osd.confidence > 1.0:
        return (base + 180) % 360
    return base  # too little text to decide: keep the horizontal reading


def _label_value_votes(boxes) -> tuple[int, int]:
    """(upright, upside-down) votes from small-label-over-large-value pairs."""
    if len(boxes) < 4:
        return 0, 0
    hs = np.array([b[3] - b[1] for b in boxes], float)
    ref = float(np.percentile(hs, 70))
    small = [b for b in boxes if b[3] - b[1] < 0.75 * ref]
    large = [b for b in boxes if b[3] - b[1] >= 0.85 * ref]
    up = down = 0
    for sx0, sy0, sx1, sy1 in small:
        sh = sy1 - sy0
        up += any(label_above((sx0, sy0, sx1, sy1), value) for value in large)
        for lx0, ly0, lx1, ly1 in large:
            if abs(lx1 - sx1) < 1.5 * sh and 0 <= sy0 - ly1 < 1.5 * sh:
                down += 1
                break
    return up, down


# A tilt under this many degrees is left as it is: the text boxes and Tesseract read so small a tilt alike.
MIN_TILT_DEGREES = 2.0


def levelled(rgb: np.ndarray) -> np.ndarray:
    """``rgb`` turned about its centre so that its text lines run horizontally or vertically (the quarter-turn
    is left to :func:`orient_by_text`), or as it is when it holds too little text to tell. The frame keeps its
    size (the photo's corners are cut): a frame grown to hold them would be read smaller."""

    angle = text_angle(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
    if angle is None:
        return rgb
    tilt = (angle + 45.0) % 90.0 - 45.0
    if abs(tilt) < MIN_TILT_DEGREES:
        return rgb
    height, width = rgb.shape[:2]
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), tilt, 1.0)
    return cv2.warpAffine(rgb, turn, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
