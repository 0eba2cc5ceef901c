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
from docauth.ocr.printed.reader import MIN_LINE_ASPECT

# A place beside a card's back that holds this many lines of text or more is its front (a card prints about ten
# lines on its front; a desk or a hand beside a back, few). A line is as wide as the printed reader's narrowest:
# single glyphs (a keyboard's keys, a stamp's letters) are no card's lines.
OTHER_SIDE_MIN_LINES = 6
OTHER_SIDE_INSIDE = 0.8  # of the place beside the back that must lie in the photo to be looked at
OTHER_SIDE_SLACK = 0.15  # of the back's size, around the place beside it
OTHER_SIDE_READS = 2  # places read at most, those holding the most lines first
# A place's lines are counted with the card in it flattened to this many pixels on its long side, whatever the
# photo's size: a front's values are then about 8 px tall, which the detector still finds when a small photo's
# text comes to it blurred by upsampling, and a back beside clutter pays little for the look.
OTHER_SIDE_GLANCE_SIDE = 320
# A place where the glance finds some line but fewer than a front's is looked at again with its card this large: a
# faint or blurred front (pastel print, a phone's soft focus) shows the detector a few of its lines at the glance
# and most of them at twice its size, while the place beside a lone back seldom shows any line at the glance.
OTHER_SIDE_CLOSER_SIDE = 640
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


def no_zone_value(printed: PrintedRead | None) -> bool:
    """Was nothing the zone encodes found in print (or the page not read)? A card's back read as a lone back finds
    none and is not looked at closer.

    >>> from docauth.ocr.printed.assign import FieldRead
    >>> by_layout = FieldRead("2031-01-01", "01.01.2031", 1.0, "layout", True)
    >>> no_zone_value(None), no_zone_value(PrintedRead({"expiry_date": by_layout}, []))
    (True, True)
    >>> no_zone_value(PrintedRead({"surname": FieldRead("ERIKSSON", "ERIKSSON", 1.0, "mrz", True)}, []))
    False
    """
    return printed is None or not any(read.how == "mrz" for read in printed.fields.values())


def places_beside(corners: np.ndarray, shape) -> list[tuple[np.ndarray, tuple[int, int]]]:
    """Where the other side may lie: the located card's rectangle moved by its own width or height (left, right,
    above, below, as the card is upright), on the sheet's plane, grown by the slack on each side; each as the
    homography from the photo to that place measured in card widths and heights (the place spans
    [-slack, 1 + slack] on both axes) and where the back lies from it (in card sizes), for places mostly in the
    photo, those most inside first.

    >>> back = np.float32([[400, 0], [740, 0], [740, 220], [400, 220]])   # upright TL, TR, BR, BL
    >>> [((np.round(cv2.perspectiveTransform(np.float32([[[60, 110]]]), m)[0, 0], 2) + 0.0).tolist(), back_at)
    ...  for m, back_at in places_beside(back, (220, 744, 3))]
    [([0.0, 0.5], (1, 0))]
    >>> cut = np.float32([[336, -18], [721, -16], [720, 227], [334, 225]])   # a back cut by the frame
    >>> [back_at for _, back_at in places_beside(cut, (220, 702, 3))]
    [(1, 0)]
    """
    height, width = shape[:2]
    to_card = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]))
    frame = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    # An outline may run past the photo's edge (a card cut by the frame): a place beside it is cut alike, and only
    # what it shows beyond that counts against it.
    back_shown = _shown(np.asarray(corners, np.float32), frame)
    places = []
    for dx, dy in ((0, -1), (0, 1), (-1, 0), (1, 0)):
        to_place = np.array([[1, 0, -dx], [0, 1, -dy], [0, 0, 1]], np.float64) @ to_card
        outline = cv2.perspectiveTransform(np.float32([[[0, 0], [1, 0], [1, 1], [0, 1]]]),
                                           np.linalg.inv(to_place))[0]
        if not cv2.isContourConvex(outline):
            continue  # the plane folds over beyond the horizon: no card lies there
        inside = min(1.0, _shown(outline, frame) / max(back_shown, 1e-6))
        if inside >= OTHER_SIDE_INSIDE:
            places.append((inside, to_place, (-dx, -dy)))
    return [(m, back_at) for _, m, back_at in sorted(places, key=lambda p: -p[0])]


def _shown(outline: np.ndarray, frame: np.ndarray) -> float:
    """The share of a convex outline's area that lies in the frame."""
    area = cv2.contourArea(outline)
    return cv2.intersectConvexConvex(outline, frame)[0] / area if area > 0 else 0.0


def flattened(rgb: np.ndarray, to_place: np.ndarray, card_size: tuple[float, float], back_at: tuple[int, int]
              ) -> np.ndarray:
    """The place (slack included) warped flat with the card in it ``card_size`` (width, height) pixels, the back's
    part of it (``back_at``: the back's offset in card sizes) blanked out: its zone prints the very values looked
    for, and is no print."""
    cw, ch = card_size
    span = 1 + 2 * OTHER_SIDE_SLACK
    out_w, out_h = max(1, int(round(cw * span))), max(1, int(round(ch * span)))
    to_pixels = np.array([[cw, 0, cw * OTHER_SIDE_SLACK], [0, ch, ch * OTHER_SIDE_SLACK], [0, 0, 1]], np.float64)
    shrinking = cw * ch < abs(cv2.contourArea(cv2.perspectiveTransform(
        np.float32([[[0, 0], [1, 0], [1, 1], [0, 1]]]), np.linalg.inv(to_place))[0]))
    place = cv2.warpPerspective(rgb, to_pixels @ to_place, (out_w, out_h),
                                flags=cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(255, 255, 255))
    bx, by = back_at
    x0, y0 = int(round(cw * (OTHER_SIDE_SLACK + bx))), int(round(ch * (OTHER_SIDE_SLACK + by)))
    cv2.rectangle(place, (x0, y0), (x0 + int(round(cw)), y0 + int(round(ch))), (255, 255, 255), thickness=-1)
    return place


def read_other_side(reader: PrintedReader, rgb: np.ndarray, corners, card_size: tuple[int, int], zone_fields: dict
                    ) -> PrintedRead | None:
    """The zone's values read beside the back (``corners``: its upright TL, TR, BR, BL in the photo), on the
    places that hold a card's lines, most lines first, until one finds a value; None when none holds enough (a
    back alone). A place that shows some lines at the glance but fewer than a front's is counted again closer
    (:data:`OTHER_SIDE_CLOSER_SIDE`). Each place is flattened as the back was, its card as large as the back was
    read (``card_size``), and detected at the size a located page is: small print comes to the detector and the
    recogniser as large as on a card photographed alone, and a sheet whose sides are not in line with the photo
    is still read along its card."""
    corners = np.asarray(corners, dtype=np.float32)
    cw, ch = card_size
    counted = []
    for to_place, back_at in places_beside(corners, rgb.shape):
        lines = lines_seen(reader, rgb, to_place, card_size, back_at, OTHER_SIDE_GLANCE_SIDE)
        if 0 < lines < OTHER_SIDE_MIN_LINES:
            lines = lines_seen(reader, rgb, to_place, card_size, back_at, OTHER_SIDE_CLOSER_SIDE)
        if lines >= OTHER_SIDE_MIN_LINES:
            counted.append((lines, to_place, back_at))
    full = PrintedReader(TextDetector(reader.detector.model,
                                      side=int(round(reader.detector.side * (1 + 2 * OTHER_SIDE_SLACK)))),
                         reader.recognizer)
    best = None
    for _, to_place, back_at in sorted(counted, key=lambda c: -c[0])[:OTHER_SIDE_READS]:
        read = full(flattened(rgb, to_place, (cw, ch), back_at), mrz_fields=zone_fields, zone_values_only=True)
        if best is None or len(read.fields) > len(best.fields):
            best = read
        if read.fields:
            break
    return best


def lines_seen(reader: PrintedReader, rgb: np.ndarray, to_place: np.ndarray, card_size: tuple[int, int],
               back_at: tuple[int, int], long_side: int) -> int:
    """How many lines of a card's (as wide as the printed reader's narrowest) the detector finds in a place, its
    card flattened to ``long_side`` pixels."""
    cw, ch = card_size
    scale = long_side / max(cw, ch)
    detector = TextDetector(reader.detector.model, side=int(round(long_side * (1 + 2 * OTHER_SIDE_SLACK))))
    boxes = detector(flattened(rgb, to_place, (cw * scale, ch * scale), back_at))
    return sum(1 for b in boxes if b.width >= MIN_LINE_ASPECT * b.height)


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
