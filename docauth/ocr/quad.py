"""Quadrilateral geometry shared by the document locators (contours in :mod:`docauth.ocr.locate`, the
outline model's mask in :mod:`docauth.ocr.outline`): corner order, a quad from a contour, side refits, side lengths."""

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
    return pts[(_FOUR + k) % 4]  # np.roll(pts, -k, axis=0), without its overhead (called per candidate quad)


_FOUR = np.arange(4)


def order_corners_of(quads: np.ndarray) -> np.ndarray:
    """:func:`order_corners` of many quads at once: (n, 4, 2) -> (n, 4, 2).

    >>> order_corners_of(np.float64([[[9, 9], [0, 0], [9, 0], [0, 9]]])).tolist()
    [[[0.0, 0.0], [9.0, 0.0], [9.0, 9.0], [0.0, 9.0]]]
    """
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    c = quads.mean(1, keepdims=True)
    ang = np.arctan2(quads[..., 1] - c[..., 1], quads[..., 0] - c[..., 0])
    pts = np.take_along_axis(quads, np.argsort(ang, axis=1)[..., None], 1)
    k = np.argmin(pts.sum(2), axis=1)
    return np.take_along_axis(pts, ((_FOUR[None, :] + k[:, None]) % 4)[..., None], 1)


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


def page_with_zone(corners: np.ndarray, zone_centre, zone_direction, page_aspect: float,
                   tolerance: float = 0.3) -> np.ndarray:
    """The page of an open booklet that holds a zone (the MRZ), when ``corners`` outline two pages.

    ``corners``: a quad in image order. ``zone_direction``: a vector along the zone's lines, which run
    along the page's width. A page is ``page_aspect`` times as wide as it is high; a quad about twice
    as high (two pages joined at the fold, across the lines) is cut at the fold and the half with the
    zone's centre returned. Any other quad is returned as it is.

    >>> spread = np.float64([[0, 0], [125, 0], [125, 176], [0, 176]])  # facing page above the data page
    >>> page_with_zone(spread, (60, 160), (1, 0), 125 / 88).tolist()
    [[0.0, 88.0], [125.0, 88.0], [125.0, 176.0], [0.0, 176.0]]
    >>> page_with_zone(spread[:, ::-1], (160, 60), (0, 1), 125 / 88).tolist()  # turned a quarter
    [[88.0, 0.0], [176.0, 0.0], [176.0, 125.0], [88.0, 125.0]]
    >>> page_with_zone(np.float64([[0, 0], [125, 0], [125, 88], [0, 88]]), (60, 80), (1, 0), 125 / 88).tolist()
    [[0.0, 0.0], [125.0, 0.0], [125.0, 88.0], [0.0, 88.0]]
    """
    q = order_corners(corners)
    u = np.asarray(zone_direction, np.float64)
    u = u / max(np.linalg.norm(u), 1e-9)
    sides = [q[(k + 1) % 4] - q[k] for k in range(4)]
    along = [abs(float(np.dot(s, u))) / max(np.linalg.norm(s), 1e-9) for s in sides]
    k = 0 if along[0] + along[2] >= along[1] + along[3] else 1  # sides k, k+2 run along the lines
    width = (np.linalg.norm(sides[k]) + np.linalg.norm(sides[k + 2])) / 2
    height = (np.linalg.norm(sides[k + 1]) + np.linalg.norm(sides[(k + 3) % 4])) / 2
    if abs(height * page_aspect / max(width, 1e-9) - 2.0) > 2.0 * tolerance:
        return q
    # Corners a, b on one line-parallel side, c, d on the other (a-d and b-c cross the fold).
    a, b, c, d = q[k], q[(k + 1) % 4], q[(k + 2) % 4], q[(k + 3) % 4]
    m_bc, m_da = (b + c) / 2, (d + a) / 2
    halves = (np.array([a, b, m_bc, m_da]), np.array([m_da, m_bc, c, d]))
    centre = np.asarray(zone_centre, np.float64)
    dist = [np.linalg.norm(h.mean(0) - centre) for h in halves]
    return order_corners(halves[int(np.argmin(dist))])


# Where the document's edges lie around its MRZ, in units of the zone's width (the text block from the first
# to the last glyph), from the zone's top-left corner, x along the lines, y down the page: (left, top, right,
# bottom). Measured on generated captures and in line with ICAO 9303's sizes (e.g. TD1 1.148 x 0.725 of the
# zone width is 85.6 x 54 mm; TD3 1.133 x 0.793 is 125 x 88 mm).
DOCUMENT_AROUND_ZONE = {
    "TD1": (-0.067, -0.477, 1.081, 0.248),
    "TD2": (-0.058, -0.631, 1.076, 0.168),
    "TD3": (-0.063, -0.632, 1.070, 0.161),
    "MRVA": (-0.048, -0.606, 1.080, 0.139),
    "MRVB": (-0.043, -0.625, 1.059, 0.150),
}


def document_from_zone(zone: np.ndarray, mrz_type: str, *, upright: bool = False) -> np.ndarray | None:
    """The document's quad (image order) predicted from its MRZ block, ``zone``: TL, TR, BR, BL in reading
    order (TL is where the first line starts), input coordinates. None for an unknown format. ``upright``: the
    corners in the zone's reading order instead (the upright document's TL, TR, BR, BL).

    >>> zone = np.float64([[100, 400], [400, 400], [400, 460], [100, 460]])  # a TD1 zone 300 px wide
    >>> document_from_zone(zone, "TD1").round().tolist()
    [[80.0, 257.0], [424.0, 257.0], [424.0, 474.0], [80.0, 474.0]]
    >>> turned = np.stack([1000 - zone[:, 1], zone[:, 0]], 1)  # turned a quarter clockwise: lines run down
    >>> document_from_zone(turned, "TD1").round().tolist()
    [[526.0, 80.0], [743.0, 80.0], [743.0, 424.0], [526.0, 424.0]]
    >>> document_from_zone(turned, "TD1", upright=True).round().tolist()
    [[743.0, 80.0], [743.0, 424.0], [526.0, 424.0], [526.0, 80.0]]
    >>> document_from_zone(zone, "ZZ") is None
    True
    """
    box = DOCUMENT_AROUND_ZONE.get(mrz_type)
    if box is None:
        return None
    zone = np.asarray(zone, np.float64).reshape(4, 2)
    origin, along = zone[0], zone[1] - zone[0]
    width = float(np.linalg.norm(along))
    if width < 1e-6:
        return None
    u = along / width
    v = np.array([-u[1], u[0]])  # down the page, in reading direction
    left, top, right, bottom = box
    corners = [origin + width * (x * u + y * v) for x, y in ((left, top), (right, top), (right, bottom), (left, bottom))]
    return np.array(corners) if upright else order_corners(np.array(corners))


def side_lengths(corners) -> tuple[float, float, float, float]:
    """The lengths of a quad's sides (corners in image order TL, TR, BR, BL): top, right, bottom, left.

    >>> side_lengths([[0, 0], [856, 0], [856, 540], [0, 540]])
    (856.0, 540.0, 856.0, 540.0)
    """
    c = np.asarray(corners, dtype=np.float64)
    top, right, bottom, left = np.linalg.norm(c - c[[1, 2, 3, 0]], axis=1).tolist()
    return top, right, bottom, left
