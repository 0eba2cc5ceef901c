"""The card's other side on the same sheet: both sides scanned or photographed together, the back located.

A card's back (its TD1 zone) prints little of what its zone encodes; its front, beside it on the sheet, prints
the holder's names, birth date and number. The front lies a card's size away from the back, above, below, left
or right, not quite in line; each such place inside the photo that holds a card's lines of text is read for the
zone's values.

    rest = read_other_side(printed_reader, rgb, corners, rotation, zone_fields)
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.ocr import locate
from docauth.ocr.printed import PrintedRead, PrintedReader
from docauth.ocr.printed.detection import TextDetector

# A place beside a card's back that holds this many lines of text or more is its front (a card prints about ten
# lines on its front; a desk or a hand beside a back, few).
OTHER_SIDE_MIN_LINES = 6
OTHER_SIDE_INSIDE = 0.8  # of the place beside the back that must lie in the photo to be looked at
OTHER_SIDE_SLACK = 0.15  # of the back's size, around the place beside it
OTHER_SIDE_PLACES = 2  # places looked at, those most inside the photo first
# A place's lines are counted at this size (a quarter of a page's detection): a front's values are still
# lines there, and a back beside clutter pays little for the look.
OTHER_SIDE_DETECT_SIDE = 320
# The zone's values a card's front prints: while one is not found in print, the other side is looked at.
FRONT_VALUES = ("surname", "date_of_birth", "document_number")


def missing_zone_values(printed: PrintedRead | None, zone_fields: dict) -> bool:
    """Does the zone name a value the front prints that was not found in print?

    >>> from docauth.ocr.printed.assign import FieldRead
    >>> zone = {"surname": "ERIKSSON", "date_of_birth": "1974-08-12", "document_number": "D23145890"}
    >>> found = {name: FieldRead(value, value, 1.0, "mrz", True) for name, value in zone.items()}
    >>> missing_zone_values(None, zone), missing_zone_values(PrintedRead(found, []), zone)
    (True, False)
    >>> del found["surname"]; missing_zone_values(PrintedRead(found, []), zone)
    True
    """
    wanted = [name for name in FRONT_VALUES if zone_fields.get(name)]
    if printed is None:
        return bool(wanted)
    return any(name not in printed.fields or printed.fields[name].how != "mrz" for name in wanted)


def places_beside(corners: np.ndarray, shape) -> list[tuple[int, int, int, int]]:
    """The boxes (x0, y0, x1, y1) a card's size away from the located one, grown by the slack, that lie mostly
    in the photo; those most inside first.

    >>> places_beside(np.float32([[400, 0], [740, 0], [740, 220], [400, 220]]), (220, 744, 3))
    [(9, 0, 451, 220)]
    >>> places_beside(np.float32([[336, -18], [721, -16], [720, 227], [334, 225]]), (220, 702, 3))
    [(0, 0, 389, 220)]
    """
    height, width = shape[:2]
    # An outline may run past the photo's edge (a card cut by the frame): only what the photo shows of it counts.
    (x0, y0), (x1, y1) = np.maximum(corners.min(axis=0), 0), np.minimum(corners.max(axis=0), [width, height])
    w, h = x1 - x0, y1 - y0
    places = []
    for dx, dy in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        px0, py0 = x0 + dx * w, y0 + dy * h
        inside = (max(0.0, min(px0 + w, width) - max(px0, 0)) * max(0.0, min(py0 + h, height) - max(py0, 0))
                  / (w * h))
        if inside >= OTHER_SIDE_INSIDE:
            # read a little larger than the back: the two sides lie apart by a gap, and not quite in line
            sx, sy = OTHER_SIDE_SLACK * w, OTHER_SIDE_SLACK * h
            places.append((inside, (int(max(px0 - sx, 0)), int(max(py0 - sy, 0)), int(min(px0 + w + sx, width)),
                                    int(min(py0 + h + sy, height)))))
    return [box for _, box in sorted(places, key=lambda p: -p[0])][:OTHER_SIDE_PLACES]


def read_other_side(reader: PrintedReader, rgb: np.ndarray, corners, rotation: int, zone_fields: dict
                    ) -> PrintedRead | None:
    """The zone's values read on the first place beside the back that holds a card's lines, turned as the back
    is; None when there is none (a back alone). The place is read as photographed: the detector and the
    recogniser scale it themselves, and a small photo upsampled first reads no better."""
    corners = np.asarray(corners, dtype=np.float32)
    glance = TextDetector(reader.detector.model, side=OTHER_SIDE_DETECT_SIDE)
    for cx0, cy0, cx1, cy1 in places_beside(corners, rgb.shape):
        place = rgb[cy0:cy1, cx0:cx1].copy()
        # The back itself is blanked out: its zone prints the very values looked for, and is no print.
        cv2.fillConvexPoly(place, np.round(corners - [cx0, cy0]).astype(np.int32), (255, 255, 255))
        if len(glance(place)) < OTHER_SIDE_MIN_LINES:
            continue
        return reader(locate.rotate_quarter(place, rotation), mrz_fields=zone_fields, zone_values_only=True)
    return None


def merged(back: PrintedRead | None, front: PrintedRead) -> PrintedRead:
    """The back's reads with the front's: a value found where the zone says it is printed wins over one placed by
    layout or caption alone; otherwise the back's own reads (its number, its expiry) stand."""
    if back is None:
        return front
    fields = dict(front.fields)
    for name, read in back.fields.items():
        if read.how == "mrz" or name not in fields:
            fields[name] = read
    return PrintedRead(fields, back.lines + front.lines, back.timings_ms)
