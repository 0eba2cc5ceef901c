"""The direction of a page's text lines, whatever the rotation: from single glyphs' neighbours
(:func:`text_angle`) or from glyphs welded into runs by blur (:func:`welded_text_angle`)."""

from __future__ import annotations

import cv2
import numpy as np

from docauth.ocr.mrz.glyphs import binarise, glyph_boxes, label_components

GLYPH_MAP_SIDE = 1000  # long side the text direction is measured at


def glyph_map(gray: np.ndarray, max_side: int = GLYPH_MAP_SIDE) -> np.ndarray:
    """The image at most ``max_side`` on its long side, binarised: what :func:`text_angle` and
    :func:`welded_text_angle` measure the text direction on (made once when a search asks for both)."""
    h, w = gray.shape
    s = min(1.0, max_side / max(h, w))
    if s < 1:
        gray = cv2.resize(gray, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    return binarise(gray)


def text_angle(gray: np.ndarray, max_side: int = GLYPH_MAP_SIDE, *, glyphs: np.ndarray | None = None,
               components: tuple | None = None) -> float | None:
    """Direction of the text lines in degrees, in [-90, 90), or None when there is too little text.

    Each glyph's nearest glyph-sized neighbours lie along its line (the pitch is
    shorter than the line spacing, in an MRZ and in printed fields alike), so the
    histogram of neighbour directions peaks at the text direction, whatever the
    rotation. ``rotate_degrees(gray, angle)`` then levels the text. ``glyphs``: ``glyph_map(gray, max_side)``
    when the caller has it already, ``components`` its :func:`label_components`.
    """
    from scipy.spatial import cKDTree  # deferred: scipy takes about a second to import, only the search needs it

    binary = glyph_map(gray, max_side) if glyphs is None else glyphs
    boxes = glyph_boxes(binary, min_h=5, max_h=max(8, min(binary.shape) // 6),
                        stats=None if components is None else components[2])
    # Single glyphs only: a merged word's nearest neighbour is the line above, not the next word.
    elongation = np.maximum(boxes[:, 2], boxes[:, 3]) / np.maximum(1.0, np.minimum(boxes[:, 2], boxes[:, 3]))
    boxes = boxes[elongation <= 2.2]
    if len(boxes) < 12:
        return None
    centres = boxes[:, :2] + boxes[:, 2:] / 2
    size = np.maximum(boxes[:, 2], boxes[:, 3])
    dist, idx = cKDTree(centres).query(centres, k=3)
    angles, weights = [], []
    for k in (1, 2):
        other = idx[:, k]
        near = np.isfinite(dist[:, k]) & (other < len(boxes))
        other = np.where(near, other, 0)
        ratio = np.maximum(size, size[other]) / np.maximum(1.0, np.minimum(size, size[other]))
        keep = near & (ratio < 1.6) & (dist[:, k] < 1.8 * np.maximum(size, size[other]))
        vec = centres[other[keep]] - centres[keep]
        angles.append(np.degrees(np.arctan2(vec[:, 1], vec[:, 0])) % 180.0)
        weights.append(np.full(int(keep.sum()), 1.0 if k == 1 else 0.5))
    angles, weights = np.concatenate(angles), np.concatenate(weights)
    if len(angles) < 12:
        return None
    return _histogram_peak(angles, weights, min_peak=6.0)


def welded_text_angle(gray: np.ndarray, max_side: int = GLYPH_MAP_SIDE, *, glyphs: np.ndarray | None = None,
                      components: tuple | None = None) -> float | None:
    """Direction of the text lines in degrees, in [-90, 90), from text whose glyphs have run together.

    Under motion blur or heavy defocus a line's glyphs weld into a few long blobs, and
    :func:`text_angle`, which needs single glyphs, follows other text or sees none. Each
    elongated component's own axis (second moments) runs along its line instead. ``glyphs``:
    ``glyph_map(gray, max_side)`` when the caller has it already, ``components`` its :func:`label_components`.
    """
    binary = glyph_map(gray, max_side) if glyphs is None else glyphs
    n, labels, stats = label_components(binary) if components is None else components
    ys, xs = np.nonzero(labels)
    of = labels[ys, xs]
    area = np.maximum(stats[:, 4], 1).astype(np.float64)
    sums = [np.bincount(of, weights=v, minlength=n) / area for v in (xs, ys, xs * xs, ys * ys, xs * ys)]
    mx, my, mxx, myy, mxy = (v.astype(np.float64) for v in sums)
    mu20, mu02, mu11 = mxx - mx * mx, myy - my * my, mxy - mx * my  # second central moments per component
    spread = np.sqrt(4 * mu11 ** 2 + (mu20 - mu02) ** 2)
    major, minor = (mu20 + mu02 + spread) / 2, (mu20 + mu02 - spread) / 2
    # a run of glyphs: five times longer than thick (variances 25x), as thick as text (an edge is thinner)
    keep = (stats[:, 4] >= 30) & (minor > 0.5) & (major >= 25 * minor) & (4 * np.sqrt(np.maximum(minor, 0)) >= 5)
    keep[0] = False
    angles = np.degrees(0.5 * np.arctan2(2 * mu11[keep], mu20[keep] - mu02[keep])) % 180.0
    weights = stats[keep, 4].astype(np.float64)
    if len(angles) < 3:
        return None
    return _histogram_peak(angles, weights)


def _histogram_peak(angles: np.ndarray, weights: np.ndarray, min_peak: float = 0.0) -> float | None:
    """The weighted mode of line directions (degrees modulo 180), refined, in [-90, 90); None when the
    smoothed histogram's peak weighs less than ``min_peak``."""
    hist = np.bincount(np.floor(angles).astype(int) % 180, weights=weights, minlength=180)
    smooth = sum(np.roll(hist, d) * wt for d, wt in ((-2, 0.5), (-1, 1), (0, 1.5), (1, 1), (2, 0.5)))
    peak = int(np.argmax(smooth))
    if smooth[peak] < min_peak:
        return None
    near_peak = (np.abs((angles - peak - 0.5 + 90) % 180 - 90) <= 3)
    offsets = (angles[near_peak] - peak - 0.5 + 90) % 180 - 90
    angle = (peak + 0.5 + float(np.average(offsets, weights=weights[near_peak]))) % 180
    return angle - 180 if angle >= 90 else angle
