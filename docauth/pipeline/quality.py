"""Capture quality: is the photo good enough to judge, or should the customer take it again?

Five plain measurements of the located document (its corners in the photo and its rectified, upright
image, as the OCR stage made them), each a score and a threshold:

    q = measure(image, corners=view.corners, found=view.found, rectified=view.rectified, zone=mrz.zone)
    q.reasons      # e.g. ["capture_blurred"]: the ``retake`` reasons of a check
    q.export()     # {"scores": {...}, "cut_off": bool or None, "thresholds": {...}, "reasons": [...]}

The thresholds were fitted on generated captures only (:mod:`docauth.synth.defects`, ``bench/bench_retake.py``)
and checked on the real specimens in ``../shared/data``; docs/evaluation.md has the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

# The reason codes, in the order a customer is told them.
BLURRED, GLARE, CUT_OFF, TOO_SMALL, TOO_DARK = (
    "capture_blurred", "capture_glare", "capture_cut_off", "capture_too_small", "capture_too_dark")
QUALITY_REASONS = (BLURRED, GLARE, CUT_OFF, TOO_SMALL, TOO_DARK)

# The rectified document is measured at its size in the photo, at most this long: above it every capture
# is compared at the same scale, so the scores do not depend on the camera's resolution.
MEASURE_LONG_SIDE = 640

# Sharpness: the share of the document's fine detail that survives a further 9-pixel blur (Crete-Roffet et
# al., 2007; 0 already blurred, 1 sharp); below this small print is no longer legible, while the mild blur of
# ordinary captures, which the readers still read, stays above it.
MIN_SHARPNESS = 0.65
# Glare: the share of the document burnt out (every channel >= GLARE_LEVEL) in compact, round-edged blobs
# of at least GLARE_MIN_BLOB of it: a reflection burns out a solid patch (solidity >= GLARE_SOLIDITY) where
# white paper is burnt out around print, full of holes; and a lamp's reflection is rounded, where a white
# panel, page or screen is a rectangle (filling more than GLARE_MAX_RECTANGULARITY of its tightest rotated
# box; an ellipse fills pi/4 of it). Above MAX_GLARE a reflection hides part of the document.
GLARE_LEVEL = 250
GLARE_MIN_BLOB = 0.01
GLARE_SOLIDITY = 0.8
GLARE_MAX_RECTANGULARITY = 0.9
MAX_GLARE = 0.05
# Cut off: the located document reaches the photo's border (a corner within AT_BORDER of its long side, or
# beyond it) while another corner lies well inside (INSIDE): a photo with background around the document
# that still cuts it. A tight crop reaches the border all round and is no cut; nor is a scan of a sheet
# cropped to a card on three sides, with the card's other side (or another document) beyond the fourth.
AT_BORDER = 0.01
INSIDE = 0.08
# ... or the machine-readable zone runs into the border: a line's start or end reaches it (within
# ZONE_AT_BORDER of the zone's width, a pixel or two) or lies beyond it. A frame that cuts the lines leaves
# their visible ends at the border, where a whole document, even cropped tight, keeps a margin beyond them.
# This holds where the outline does not: the locator may close it on a line inside the cut document (a
# portrait's edge, a printed band) or find none.
ZONE_AT_BORDER = 0.005
# Too small: the document's long side in the photo, in pixels; below it the MRZ's glyphs are under 3 px wide.
MIN_LONG_SIDE_PX = 250
# An outline covering less of the photo than this is as likely a part of the document (its portrait, its
# zone) as a far-away document: the whole photo is then measured instead.
MIN_OUTLINE_SHARE = 0.1
# Too dark: the document's bright paper (its 95th percentile of luminance, 0-255) below this is an
# exposure too short for the print to stand out from the sensor noise.
MIN_BRIGHT_LUMINANCE = 110

THRESHOLDS = {"sharpness": MIN_SHARPNESS, "glare": MAX_GLARE, "long_side_px": MIN_LONG_SIDE_PX,
              "bright_luminance": MIN_BRIGHT_LUMINANCE}


@dataclass
class CaptureQuality:
    scores: dict = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    cut_off: bool | None = None  # None: neither a located outline nor a machine-readable zone to judge by

    def export(self) -> dict:
        return {"scores": {k: round(float(v), 4) for k, v in self.scores.items()}, "cut_off": self.cut_off,
                "thresholds": dict(THRESHOLDS), "reasons": list(self.reasons)}


def long_side(corners) -> float:
    """The document's long side in pixels (mean of opposite sides)."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    sides = np.linalg.norm(q - np.roll(q, -1, 0), axis=1)
    return float(max((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))


def area(corners) -> float:
    q = np.asarray(corners, np.float64).reshape(4, 2)
    return float(0.5 * abs(np.dot(q[:, 0], np.roll(q[:, 1], 1)) - np.dot(q[:, 1], np.roll(q[:, 0], 1))))


def corner_margins(corners, shape) -> np.ndarray:
    """Each corner's distance to the nearest border of the photo, as a share of the document's long side
    (negative: outside the photo)."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    return _to_border(q, shape) / max(long_side(q), 1.0)


def _to_border(points: np.ndarray, shape) -> np.ndarray:
    height, width = shape[:2]
    return np.minimum.reduce([points[:, 0], (width - 1) - points[:, 0], points[:, 1], (height - 1) - points[:, 1]])


def cut_off(corners, shape) -> bool:
    margins = corner_margins(corners, shape)
    return bool(margins.min() <= AT_BORDER and margins.max() >= INSIDE)


def zone_room(zone, shape) -> float:
    """The room the zone's lines have before the photo's border, ahead of their ends and behind their starts,
    as a share of the zone's width (negative: a corner outside the photo). ``zone``: its corners, the first
    line's start and end, then the last line's end and start. Above and below the zone do not count: its
    last line runs close to the document's edge."""
    z = np.asarray(zone, np.float64).reshape(4, 2)
    along = (z[1] - z[0]) + (z[2] - z[3])
    width = max(float(np.linalg.norm(along)) / 2, 1.0)
    if _to_border(z, shape).min() < 0:
        return float(_to_border(z, shape).min()) / width
    ahead = along / (2 * width)
    room = [_room_along(z[[1, 2]], ahead, shape), _room_along(z[[0, 3]], -ahead, shape)]
    return float(min(room)) / width


def _room_along(points: np.ndarray, direction: np.ndarray, shape) -> float:
    """How far the nearest of ``points`` (inside the photo) can go along ``direction`` before the border."""
    height, width = shape[:2]
    far = []
    for axis, size in ((0, width), (1, height)):
        step = direction[axis]
        if abs(step) > 1e-9:
            far.append((((size - 1) if step > 0 else 0) - points[:, axis]) / step)
    return float(np.min(far))


def at_measuring_size(rectified: np.ndarray, native_long_side: float) -> np.ndarray:
    """The rectified document at its size in the photo (at most MEASURE_LONG_SIDE): the rectifier upsamples
    small documents, which would make them look soft."""
    target = min(MEASURE_LONG_SIDE, native_long_side)
    scale = target / max(rectified.shape[:2])
    if scale < 1.0:
        size = (max(8, round(rectified.shape[1] * scale)), max(8, round(rectified.shape[0] * scale)))
        rectified = cv2.resize(rectified, size, interpolation=cv2.INTER_AREA)
    return rectified


def sharpness(grey: np.ndarray) -> float:
    """The share of detail that survives a 9-pixel blur, the worse of rows and columns (0 blurred, 1 sharp)."""
    g = grey.astype(np.float32)
    lost = []
    for axis, kernel in ((0, np.full((9, 1), 1 / 9, np.float32)), (1, np.full((1, 9), 1 / 9, np.float32))):
        blurred = cv2.filter2D(g, -1, kernel)
        detail = np.abs(np.diff(g, axis=axis))
        kept = np.abs(np.diff(blurred, axis=axis))
        total = float(detail.sum())
        if total <= 0:
            return 0.0  # a flat image: nothing to judge by
        lost.append(float(np.maximum(0.0, detail - kept).sum()) / total)
    return min(lost)


def glare_share(rgb: np.ndarray) -> float:
    """Share of the document burnt out in compact, round-edged blobs of at least GLARE_MIN_BLOB of it."""
    low = (GLARE_LEVEL,) * (3 if rgb.ndim == 3 else 1)
    burnt = cv2.inRange(rgb, low, (255,) * len(low)) // 255  # every channel at or above the level
    if cv2.countNonZero(burnt) < GLARE_MIN_BLOB * burnt.size:
        return 0.0  # not even one blob's worth burnt out
    count, labels, stats, _ = cv2.connectedComponentsWithStats(burnt, connectivity=8)
    glared = 0
    for k in range(1, count):
        blob_area = int(stats[k, cv2.CC_STAT_AREA])
        if blob_area < GLARE_MIN_BLOB * burnt.size:
            continue
        x, y, w, h = (int(v) for v in stats[k, :4])
        mask = (labels[y:y + h, x:x + w] == k).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        points = np.vstack(contours)
        hull = cv2.convexHull(points)
        (_, _), (box_w, box_h), _ = cv2.minAreaRect(points)
        solid = blob_area / max(cv2.contourArea(hull), 1.0) >= GLARE_SOLIDITY
        rectangular = blob_area / max(box_w * box_h, 1.0) > GLARE_MAX_RECTANGULARITY
        if solid and not rectangular:
            glared += blob_area
    return glared / burnt.size


def measure(image: np.ndarray, *, corners=None, found: bool = False, rectified: np.ndarray | None = None,
            zone=None) -> CaptureQuality:
    """Scores and reasons of one capture. ``corners``: the document's corners in ``image`` (TL, TR, BR, BL);
    ``found``: whether they are a located outline (else the whole photo stands in for the document, and its
    corners say nothing about a cut); ``rectified``: the upright document (else the photo); ``zone``: the
    machine-readable zone's corners in ``image`` when one was found (:func:`zone_room`)."""
    height, width = image.shape[:2]
    if corners is not None and found and area(corners) < MIN_OUTLINE_SHARE * height * width:
        corners = rectified = None  # too small a part of the photo to be taken for the whole document
    if corners is None:
        corners, found = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], False
    document = rectified if rectified is not None and rectified.size else image
    if document.ndim == 2:
        document = cv2.cvtColor(document, cv2.COLOR_GRAY2RGB)
    size = long_side(corners)
    small = at_measuring_size(document, size)
    grey = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    scores = {
        "sharpness": sharpness(grey),
        "glare": glare_share(small),
        "long_side_px": size,
        "bright_luminance": float(np.percentile(grey, 95)),
    }
    judged_cut = [cut_off(corners, image.shape)] if found else []
    if zone is not None:
        judged_cut.append(zone_room(zone, image.shape) <= ZONE_AT_BORDER)
    cut = any(judged_cut)
    reasons = []
    if scores["sharpness"] < MIN_SHARPNESS:
        reasons.append(BLURRED)
    if scores["glare"] > MAX_GLARE:
        reasons.append(GLARE)
    if cut:
        reasons.append(CUT_OFF)
    if size < MIN_LONG_SIDE_PX:
        reasons.append(TOO_SMALL)
    if scores["bright_luminance"] < MIN_BRIGHT_LUMINANCE:
        reasons.append(TOO_DARK)
    return CaptureQuality(scores, reasons, cut_off=cut if judged_cut else None)
