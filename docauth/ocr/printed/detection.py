"""Where the printed lines are: a DB text detector (PP-OCRv4) on the upright document.

    detector = TextDetector(load_model("text_detector"))
    boxes = detector(upright_rgb)          # list[TextBox], page pixels, top to bottom

The model gives each pixel the probability that it lies on text; a line is a connected region above
``PIXEL_THRESHOLD``, kept when its mean probability reaches ``BOX_THRESHOLD`` and grown back by the margin the
detector was trained to shrink text by (``UNCLIP``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from docauth.imageio import bounded_resize
from docauth.ocr.printed.model_input import to_model_input

DETECTOR_MODEL = "text_detector"
# The page is detected at this many pixels on its long side: the smallest printed labels of a card are then
# about 6 px tall, still above what the detector separates line from line at.
DETECT_SIDE = 640
SIDE_MULTIPLE = 32  # the network downsamples by 32
PIXEL_THRESHOLD = 0.3
BOX_THRESHOLD = 0.5
UNCLIP = 1.5  # the detector's training shrinks each line by area * (1 - 0.4^2) / perimeter
MIN_BOX_HEIGHT = 4  # pixels at the detection size: below it nothing legible
TALL_REGION = 2.5  # a region this many median line heights tall holds several lines
SPLIT_THRESHOLDS = (0.6, 0.75, 0.9)


@dataclass(frozen=True)
class TextBox:
    """An axis-aligned line of text on the page, in page pixels."""

    x0: float
    y0: float
    x1: float
    y1: float
    score: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


class TextDetector:
    """preprocess -> model -> postprocess, as one call."""

    def __init__(self, model, *, side: int = DETECT_SIDE):
        self.model = model
        self.side = side

    def preprocess(self, rgb: np.ndarray) -> tuple[np.ndarray, float, float]:
        """(NCHW batch of one, x scale, y scale from the detection size back to the page)."""
        h, w = rgb.shape[:2]
        scale = self.side / max(h, w)
        nh = max(SIDE_MULTIPLE, int(round(h * scale / SIDE_MULTIPLE)) * SIDE_MULTIPLE)
        nw = max(SIDE_MULTIPLE, int(round(w * scale / SIDE_MULTIPLE)) * SIDE_MULTIPLE)
        small = bounded_resize(rgb, (nw, nh))
        return to_model_input(small)[None], w / nw, h / nh

    def __call__(self, rgb: np.ndarray) -> list[TextBox]:
        batch, sx, sy = self.preprocess(rgb)
        probability = self.model.predict(batch)[0, 0]
        return self.postprocess(probability, sx, sy)

    @staticmethod
    def postprocess(probability: np.ndarray, sx: float, sy: float) -> list[TextBox]:
        regions = _regions(probability, PIXEL_THRESHOLD)
        if len(regions) >= 3:
            # Lines joined through a textured background (a ghost portrait, a stamp, guilloche) make a region
            # several lines tall: such a region is cut again at higher thresholds, where the lines part.
            line_height = float(np.median([r[3] for r in regions]))
            regions = [part for region in regions for part in _split(probability, region, line_height, 0)]
        boxes = []
        for x, y, w, h, area, score, _ in regions:
            if score < BOX_THRESHOLD:
                continue
            # Grow the shrunk line back: offset = area * ratio / perimeter, the detector's training rule.
            grow = area * UNCLIP / (2.0 * (w + h))
            x0, y0, x1, y1 = x - grow, y - grow, x + w + grow, y + h + grow
            if y1 - y0 < MIN_BOX_HEIGHT:
                continue
            boxes.append(TextBox(max(0.0, x0 * sx), max(0.0, y0 * sy), min(probability.shape[1], x1) * sx,
                                 min(probability.shape[0], y1) * sy, score))
        boxes.sort(key=lambda b: (b.y0, b.x0))
        return boxes


def _split(probability: np.ndarray, region: tuple, line_height: float, level: int) -> list[tuple]:
    x, y, w, h = region[:4]
    if h <= TALL_REGION * line_height or level >= len(SPLIT_THRESHOLDS):
        return [region]
    # Only the region's own pixels are cut again: its bounding box also holds parts of its neighbours, which
    # are lines of their own already.
    window = np.where(region[6], probability[y:y + h, x:x + w], 0.0)
    parts = _regions(window, SPLIT_THRESHOLDS[level])
    if not parts:
        return [region]
    moved = [(px + x, py + y, *rest) for px, py, *rest in parts]
    return [piece for part in moved for piece in _split(probability, part, line_height, level + 1)]


def _regions(probability: np.ndarray, threshold: float) -> list[tuple]:
    """(x, y, width, height, area, mean probability, own pixels in the box) of each connected region above
    ``threshold``."""
    mask = (probability > threshold).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i])
        if h < MIN_BOX_HEIGHT / 2 or area < 6:
            continue
        own = labels[y:y + h, x:x + w] == i
        out.append((x, y, w, h, area, float(probability[y:y + h, x:x + w][own].mean()), own))
    return out
