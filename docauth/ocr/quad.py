"""Quadrilateral geometry shared by the document locators (contours in :mod:`docauth.ocr.locate`, the
outline model's mask in :mod:`docauth.ocr.outline`): corner order, a quad from a contour, side refits."""

from __future__ import annotations

import numpy as np


def order_corners(pts: np.ndarray) -> np.ndarray:
    """TL, TR, BR, BL in image coordinates."""
    pts = np.asarray(pts, np.float64).reshape(4, 2)
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise on screen starting near -pi (left)
    # Start at the corner with the smallest x + y (top-left).
    k = int(np.argmin(pts.sum(1)))
    return np.roll(pts, -k, axis=0)


def quad_from_contour(cnt, cv2) -> np.ndarray | None:
    """Four corners of a contour: a 4-gon fit of its hull, else its min-area box when the hull fills it."""
    hull = cv2.convexHull(cnt)
    peri = cv2.arcLength(hull, True)
    for eps in (0.015, 0.025, 0.04):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float64)
    rect = cv2.minAreaRect(hull)
    box = cv2.boxPoints(rect)
    if cv2.contourArea(hull) >= 0.88 * rect[1][0] * rect[1][1]:
        return box.astype(np.float64)
    return None


def fit_sides(q: np.ndarray, pts: np.ndarray, cv2) -> np.ndarray:
    """Refit each side to the contour points along its middle; corners = intersections.

    Rounded card corners and a bump of glare pull polygon vertices off; the
    straight middle parts of the sides do not lie.
    """
    lines = []
    for k in range(4):
        a, b = q[k], q[(k + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 10:
            return q
        u = d / length
        rel = pts - a
        t = rel @ u
        dist = np.abs(rel[:, 0] * u[1] - rel[:, 1] * u[0])
        sel = pts[(t > 0.15 * length) & (t < 0.85 * length) & (dist < max(3.0, 0.03 * length))]
        if len(sel) < 8:
            return q
        vx, vy, x0, y0 = cv2.fitLine(sel.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    out = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[(k - 1) % 4], lines[k]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return q
        s_, _t = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s_ * d1)
    out = np.array(out)
    if np.max(np.abs(out - q)) > 0.15 * np.ptp(q, axis=0).max():
        return q  # the fit ran away: keep the polygon
    return out
