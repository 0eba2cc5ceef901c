"""The views of an image the side model looks at: the whole image, and its content on a plain surface.

A card on a flatbed page or a booklet photographed from afar fills a small part of the frame: squashed to
128 x 128 the document is 30-40 px wide, too small for its layout to tell a card front from a passport page.
When the image's border is one plain surface (a scanner lid, a desk, a sheet of paper), the document is what
differs from it: :func:`content_box` finds that region, and the side model answers for the image averaged
with that crop (measured in docs/training.md). On a cluttered background there is no crop: the border is not
plain, and the whole image is the only view.

>>> import numpy as np
>>> page = np.full((600, 800, 3), 235, np.uint8)          # a plain scanner page...
>>> page[200:320, 300:490] = (40, 90, 160)                # ...with a small card on it
>>> content_box(page)
(285, 188, 501, 330)
>>> content_view(page).shape
(142, 216, 3)
>>> content_box(np.random.default_rng(0).integers(0, 255, (600, 800, 3), dtype=np.uint8)) is None
True
"""

from __future__ import annotations

import cv2
import numpy as np

# The image is analysed at this many pixels on its longer side (the crop is cut from the original).
ANALYSIS_SIDE = 256
# How far from the surface's colour a border may stray and still be one plain surface (median CIELAB
# distance of the outer 3-pixel frame from its median colour): paper, a desk, a scanner lid under a
# lighting gradient stay within it; a keyboard, grass or a patterned cloth do not.
PLAIN_BORDER_SPREAD = 8.0
# A pixel belongs to the content when it is this far (CIELAB) from the surface's colour, or when the grey
# level changes this steeply there (Sobel magnitude): print on a white card or a white MRZ band differs from
# white paper by its edges, not its mean colour.
CONTENT_DISTANCE = 18.0
CONTENT_GRADIENT = 60.0
# Marked regions smaller than this (pixels at the analysis size, after joining neighbours) are specks of
# dust or JPEG noise on the surface.
MIN_CONTENT_BLOB = 8
# Content already filling most of the frame needs no crop: the whole image is that view.
MAX_CONTENT_SHARE = 0.6
# Kept around the content so the crop shows the document's outline, as in training captures.
MARGIN = 0.04


def content_box(rgb: np.ndarray) -> tuple[int, int, int, int] | None:
    """``(x0, y0, x1, y1)`` of what differs from a plain border, with a margin; None when there is no such crop."""
    h, w = rgb.shape[:2]
    if min(h, w) < 16:
        return None
    f = ANALYSIS_SIDE / max(h, w)
    small = cv2.resize(rgb, (max(8, round(w * f)), max(8, round(h * f))), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_RGB2LAB).astype(np.float32)
    border = np.concatenate([lab[:3].reshape(-1, 3), lab[-3:].reshape(-1, 3),
                             lab[:, :3].reshape(-1, 3), lab[:, -3:].reshape(-1, 3)])
    surface = np.median(border, axis=0)
    if np.median(np.linalg.norm(border - surface, axis=1)) > PLAIN_BORDER_SPREAD:
        return None
    grey = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32)
    gradient = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    content = (np.linalg.norm(lab - surface, axis=2) > CONTENT_DISTANCE) | (gradient > CONTENT_GRADIENT)
    # Join the strokes of a text line into one region, then drop the specks.
    content = cv2.dilate(content.astype(np.uint8), np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(content, connectivity=8)
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= MIN_CONTENT_BLOB
    ys, xs = np.nonzero(keep[labels])
    if len(xs) < 50:
        return None
    # Percentiles, not extremes: a stray mark far out on the surface must not stretch the box.
    x0, x1 = np.percentile(xs, [0.5, 99.5]) / f
    y0, y1 = np.percentile(ys, [0.5, 99.5]) / f
    if (x1 - x0) * (y1 - y0) > MAX_CONTENT_SHARE * w * h:
        return None
    mx, my = MARGIN * (x1 - x0), MARGIN * (y1 - y0)
    return (int(max(0, x0 - mx)), int(max(0, y0 - my)), int(min(w, x1 + mx)), int(min(h, y1 + my)))


def content_view(rgb: np.ndarray) -> np.ndarray:
    """The content crop of ``rgb`` (:func:`content_box`), or ``rgb`` itself when there is none."""
    box = content_box(rgb)
    if box is None:
        return rgb
    x0, y0, x1, y1 = box
    return rgb[y0:y1, x0:x1]
