"""Quads from a Canny map's straight edges: Hough segments merged into lines, pairs of near-parallel lines
crossing at near right angles. A card's border broken by glare, a finger or a background of its colour closes no
contour but still leaves its four straight lines (the contour locator, :mod:`docauth.ocr.locate`, asks)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from docauth.ocr.quad import order_corners_of


MAX_LINES = 14  # strongest merged straight edges combined into quads (14 lines: at most a few hundred quads)


def line_quads(edges: np.ndarray) -> np.ndarray:
    """Quads (image order TL, TR, BR, BL) from the strongest straight edges of a Canny map.

    Hough segments are merged into lines (same direction within 5 degrees, same offset within 2 % of the
    image); every two pairs of near-parallel lines (within 20 degrees) that cross at 55-125 degrees close
    a quad; quads whose corners fall far outside the image are dropped.
    """
    h, w = edges.shape
    size = min(h, w)
    segments = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold=40, minLineLength=int(0.12 * size),
                               maxLineGap=int(0.02 * size) + 3)
    if segments is None:
        return np.empty((0, 4, 2))
    seg = segments.reshape(-1, 4).astype(np.float64)
    lengths = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    angles = np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0]) % np.pi
    offsets = -np.sin(angles) * seg[:, 0] + np.cos(angles) * seg[:, 1]
    lines = _merged_lines(angles, offsets, lengths, math.radians(5), 0.02 * size + 3)
    lines = sorted(lines, key=lambda ln: -ln[2])[:MAX_LINES]
    pairs = [(i, j) for i in range(len(lines)) for j in range(i + 1, len(lines))
             if _angle_apart(lines[i][0], lines[j][0]) < np.radians(20)]
    crossing_angle = np.radians(55)
    crossings = {}
    for a in range(len(lines)):
        for b in range(a + 1, len(lines)):
            crosses = [key for key in ((a, b), (b, a))
                       if _angle_apart(lines[key[0]][0], lines[key[1]][0]) >= crossing_angle]
            if crosses:
                # the same point either way round (each product and difference only changes sign): found once
                point = _crossing(lines[a], lines[b])
                crossings.update((key, point) for key in crosses)
    corners = []
    for p, (i, j) in enumerate(pairs):
        for k, m in pairs[p + 1:]:
            if len({i, j, k, m}) < 4 or (i, k) not in crossings:
                continue
            four = [crossings.get(key) for key in ((i, k), (k, j), (j, m), (m, i))]
            if all(c is not None for c in four):
                corners.append(four)
    if not corners:
        return np.empty((0, 4, 2))
    q = np.array(corners, np.float64)
    inside = ((q[..., 0] >= -0.1 * w) & (q[..., 0] <= 1.1 * w) & (q[..., 1] >= -0.1 * h) & (q[..., 1] <= 1.1 * h)).all(1)
    return order_corners_of(q[inside])


MERGE_ROWS = 256


def _merged_lines(angles: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, same_direction: float,
                  same_offset: float) -> list[list[float]]:
    """Segments (angle in [0, pi), normal offset, length) merged into lines, longest segment first: each joins
    the first line (in the order they were started) within ``same_direction`` and ``same_offset`` of it, else
    starts one. [angle, offset, total length] per line.

    >>> _merged_lines(np.float64([0.0, 0.01, 1.5]), np.float64([10, 11, 50]), np.float64([30, 20, 25]), 0.05, 3)
    [[0.0, 10.0, 50.0], [1.5, 50.0, 25.0]]
    """
    order = np.argsort(-lengths, kind="stable")
    a, o = angles[order], offsets[order]
    starts: list[int] = []  # positions in ``order`` of the segments that started a line
    lines: list[list[float]] = []
    joins: list = []
    for i, length in enumerate(lengths[order].tolist()):
        if i % MERGE_ROWS == 0:
            # Which of these segments could join the line which other segment starts, many pairs at once (rows
            # in blocks: a textured photo gives thousands of segments). Directions as in _angle_apart; this
            # segment's offset, negated where the two angles lie over a quarter turn apart (near 0 and near pi:
            # the same direction with opposite normals), is compared with the other's.
            rows = slice(i, i + MERGE_ROWS)
            apart = np.abs((a[rows, None] - a[None, :] + math.pi / 2) % math.pi - math.pi / 2)
            as_other = np.where(np.abs(a[rows, None] - a[None, :]) < math.pi / 2, o[rows, None], -o[rows, None])
            joins = ((apart < same_direction) & (np.abs(as_other - o[None, :]) < same_offset)).tolist()
        row = joins[i % MERGE_ROWS]
        for k, start in enumerate(starts):
            if row[start]:
                lines[k][2] += length
                break
        else:
            starts.append(i)
            lines.append([float(a[i]), float(o[i]), length])
    return lines


def _angle_apart(a: float, b: float) -> float:
    """Difference of two undirected line angles, 0..pi/2."""
    return abs((a - b + math.pi / 2) % math.pi - math.pi / 2)


def _crossing(a: list[float], b: list[float]) -> np.ndarray | None:
    """Where two lines (angle, offset of the normal) cross; None when (nearly) parallel."""
    na, nb = (-math.sin(a[0]), math.cos(a[0])), (-math.sin(b[0]), math.cos(b[0]))
    det = na[0] * nb[1] - na[1] * nb[0]
    if abs(det) < 1e-3:
        return None
    return np.array([(a[1] * nb[1] - na[1] * b[1]) / det, (na[0] * b[1] - a[1] * nb[0]) / det])
