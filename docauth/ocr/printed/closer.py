"""A closer look at a page for the zone's values its first read did not find, sized by the print as read.

Two ways a value printed on the page is lost to the first read, both measured on that read:

- print small at the detection size (a card that filled a small part of the photo): its lines are missed or
  run into their neighbours, so the page is detected again at the size that brings its median line to
  ``LINE_PX`` (:func:`closer_side`);
- glyphs packed at about two recogniser frames each: CTC spells a repeated glyph (2222) only with a blank frame
  between two of them, so a run loses a glyph where there is no room for one; such a line is read again
  widened to ``GLYPH_FRAMES`` frames a glyph (:func:`widening`).

Both cost a detection or a recognition batch, paid only on a page where a zone value is still unfound.

>>> frames = LineFrames.from_columns(np.eye(5)[[0, 1, 0, 2, 0, 2, 2, 0, 3, 0, 0]])  # -A-B-BB-C--: 2 frames a glyph
>>> glyph_pitch(frames), widening(frames)
(2.0, 1.5)
>>> widening(LineFrames.from_columns(np.eye(5)[[0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0]]))  # 3 frames a glyph
1.0
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

import cv2
import numpy as np

from docauth.ocr.printed.alignment import LineFrames
from docauth.ocr.printed.detection import SIDE_MULTIPLE, TextBox

# The median line's height (pixels at the detection size, margins the detector adds included) below which a page's
# print counts as small: its smaller lines (a date beside a place, a value under its caption) come near the
# few pixels at which the detector stops parting a line from its neighbours.
SMALL_LINE_PX = 14
LINE_PX = 20  # the median line's height a closer detection is sized for
MAX_ZOOM = 2.0  # a closer detection's side at most this many times the first's (its cost grows as the square)
# Frames a glyph is read at, at least, on a closer look: two leave a repeated glyph no blank frame to stand apart by.
GLYPH_FRAMES = 3.0
# The recogniser sees most print at about two frames a glyph, so nearly every line read closer is widened this much;
# more blurs small print past what it reads (measured on generated and specimen pages).
MAX_WIDENING = 1.5
MIN_PITCHES = 3  # glyph-to-glyph steps a line needs before its pitch says anything


def closer_side(heights: list[float], page_shape, side: int) -> int | None:
    """The detection side (long side, pixels) that brings a page's median line (``heights``, page pixels) to
    ``LINE_PX``; None where the first detection (``side``) saw its print large enough.

    >>> closer_side([19.0] * 5, (631, 1000), 640), closer_side([30.0] * 5, (631, 1000), 640)
    (1056, None)
    """
    if not heights:
        return None
    at_detection = float(np.median(heights)) * side / max(page_shape[:2])
    if at_detection >= SMALL_LINE_PX:
        return None
    zoom = min(MAX_ZOOM, LINE_PX / max(at_detection, 1.0))
    return int(round(side * zoom / SIDE_MULTIPLE)) * SIDE_MULTIPLE


def glyph_pitch(frames: LineFrames) -> float | None:
    """The number of frames from one glyph the greedy read emits to the next where glyphs stand closest (the lower
    quartile: a run whose repeats merged reads as one wide step, which a median would take for room); None for a
    line of too few glyphs."""
    greedy = frames.greedy
    starts = [t for t in range(len(greedy)) if greedy[t] != 0 and (t == 0 or greedy[t] != greedy[t - 1])]
    steps = np.diff(starts)
    if len(steps) < MIN_PITCHES:
        return None
    return float(np.percentile(steps, 25))


def widening(frames: LineFrames | None) -> float:
    """How much wider a line must be read for its glyphs to span ``GLYPH_FRAMES`` frames (1.0: wide enough)."""
    pitch = glyph_pitch(frames) if frames is not None else None
    if pitch is None or pitch >= GLYPH_FRAMES:
        return 1.0
    return min(MAX_WIDENING, GLYPH_FRAMES / pitch)


def widened(crop: np.ndarray, factor: float) -> np.ndarray:
    """The crop stretched ``factor`` times along the line (smoothly: cubic)."""
    h, w = crop.shape[:2]
    return cv2.resize(crop, (max(1, int(round(w * factor))), h), interpolation=cv2.INTER_CUBIC)


def nearness(text: str, name: str, value: str) -> float:
    """How near a line's read comes to spelling ``value`` (0 to 1): its letters and digits against the value's, a
    date's digits against the value's day, month and year in the orders a page prints them. The lines a closer
    look reads first: a glyph lost or misread leaves the rest of the value in place.

    >>> round(nearness("No. A222222", "document_number", "A2222222"), 2), nearness("24.11.1967", "date_of_birth",
    ...                                                                        "1967-11-24")
    (0.82, 1.0)
    """
    if name in ("date_of_birth", "expiry_date"):
        read = re.sub(r"[^0-9]", "", text)
        year, month, day = value.split("-")
        spellings = [day + month + year, day + month + year[2:], year + month + day]
    else:
        read = re.sub(r"[^A-Z0-9]", "", text.upper())
        spellings = [re.sub(r"[^A-Z0-9]", "", value.upper())]
    return max(SequenceMatcher(None, read, spelled).ratio() for spelled in spellings) if read else 0.0


def box_of(line) -> TextBox:
    """A read line's box, as the detector gives one (the crop it was read from)."""
    return TextBox(line.x0, line.y0, line.x1, line.y1, 1.0)
