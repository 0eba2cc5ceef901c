"""Find the document in a photo or scan and warp it to an upright, flat view.

With the outline model (:mod:`docauth.ocr.outline`) the quadrilateral is
fitted to the pixels it marks as document. Without it, or when it marks
nothing, the quadrilateral comes from the strongest closed outline that is
large, convex and plausibly shaped: Canny edges and a colour/brightness
segmentation both propose contours; each is reduced to four corners
(``approxPolyDP``, or the minimum-area rectangle of its hull when rounded card
corners defeat the polygon fit). With nothing convincing the whole image is
used (``found=False``).

Corners are reported in the input image, in the document's own order
(top-left, top-right, bottom-right, bottom-left of the *upright* document),
and ``rotation`` is the counter-clockwise quarter-turn the document had in the
image (the ``np.rot90`` convention: ``np.rot90(upright, rotation // 90)``
looks like the input).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from docauth.ocr.outline import mask_to_quad, preprocess
from docauth.ocr.quad import fit_sides, order_corners, quad_from_contour
from docauth.ocr.straight_edges import line_quads

TD1_ASPECT = 85.6 / 54.0
TD3_ASPECT = 125.0 / 88.0
WORK_SIDE = 640  # quad search resolution
# ... when the caller expects the document somewhere (``accept``): it then only confirms and sharpens that
# quad, which a smaller search does as well and faster.
CHECK_WORK_SIDE = 480


@dataclass
class Located:
    corners: np.ndarray  # (4, 2) float, input image coordinates, image order TL, TR, BR, BL
    found: bool
    score: float = 0.0
    info: dict = field(default_factory=dict)
    # Every quad the contour search weighed, when it searched without an expected place: choosing again among
    # them (other document shapes, :func:`locate_any_shape`) needs no second search.
    candidates: list | None = field(default=None, repr=False)


_NEXT, _PREVIOUS = np.array([1, 2, 3, 0]), np.array([3, 0, 1, 2])  # corner indices, in image order


def locate_document(rgb: np.ndarray, outline_model=None, accept: Callable[[np.ndarray], bool] | None = None,
                    shapes: tuple[float, ...] | None = None) -> Located:
    """The document's quad; ``outline_model`` (the runtime handle of the outline model) when loaded.

    ``accept``: a test of corners (input coordinates) for where the caller already expects the document
    (the MRZ predicts it). The search then stops at the first batch of candidates holding one on edges that
    passes, and chooses among those: the later edge maps and the straight-line search cost most of the time
    and are there for documents nothing else places.

    ``shapes``: the aspects (long side over short) of the documents that may be in the photo, preferred
    among quads on edges; all of :data:`DOCUMENT_ASPECTS` when None.
    """
    if outline_model is not None:
        mask = outline_model.predict(preprocess(rgb)[None])[0, ..., 0]
        fitted = mask_to_quad(mask, rgb.shape)
        if fitted is not None:
            quad, share = fitted
            return Located(quad, True, share, {"method": "outline_model"})
    return _locate_by_contours(rgb, accept, shapes)


# A quad is "on the edges" when the image has an edge within 2 px of this share of its sides (corners
# trimmed; measured above the image's own edge density) on average, and at least MIN_SIDE_SUPPORT on every
# side (a finger or glare may hide part of one side).
MIN_MEAN_SUPPORT = 0.55
MIN_SIDE_SUPPORT = 0.15
MAX_EDGE_DENSITY_FOR_LINES = 0.6


# Among quads on edges, only those within this much of the best mean support compete on size: a larger quad
# whose sides lie less well on edges was the card plus a strip of its shadow or of a paper beside it.
SUPPORT_TOLERANCE = 0.1


def _locate_by_contours(rgb: np.ndarray, accept: Callable[[np.ndarray], bool] | None = None,
                        shapes: tuple[float, ...] | None = None) -> Located:
    candidates: list[Located] = []
    for batch in candidate_batches(rgb, WORK_SIDE if accept is None else CHECK_WORK_SIDE):
        candidates += batch
        if accept is not None:
            accepted = [c for c in batch if _preference(c)[0] and accept(c.corners)]
            if accepted:
                return choose_quad(accepted, shapes)
    return replace(choose_quad(candidates, shapes, frame=frame_corners(rgb.shape)), candidates=candidates)


def locate_any_shape(rgb: np.ndarray, located: Located, outline_model=None) -> Located:
    """What :func:`locate_document` finds with every document shape allowed (an open booklet's too), for a
    ``located`` it found preferring some (``shapes``): chosen among the quads that search weighed, or searched
    afresh when it kept none."""
    if located.candidates is None:
        return locate_document(rgb, outline_model)
    return choose_quad(located.candidates, None, frame=frame_corners(rgb.shape))


def frame_corners(shape) -> np.ndarray:
    """The corners of a whole image of ``shape``, image order TL, TR, BR, BL."""
    height, width = shape[:2]
    return np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float64)


def choose_quad(candidates: list[Located], shapes: tuple[float, ...] | None = None,
                frame: np.ndarray | None = None) -> Located:
    """The largest plausible quad whose four sides lie on image edges (or along the photo's frame) about as
    well as the best do; without one on edges, the photo's ``frame`` (not found) when the photo has a
    document's proportions or holds no quad at all, else the best supported quad.

    Shape alone preferred the biggest quad, which was often the card plus a strip of table or the
    whole frame; edge support alone preferred inner rectangles (a header band, the photo's frame).
    """
    shapes = shapes or DOCUMENT_ASPECTS
    on_edges = [c for c in candidates if _preference(c, frame_sides=True)[0]]
    if not on_edges and frame is not None and (not candidates or _document_shaped(frame, shapes, CROPPED_ASPECT_TOLERANCE)):
        # A photo in a document's proportions with no quad on edges is the document, cropped to it (an
        # upload, a scanner's crop), far more often than the best supported of quads on no edge is right.
        return Located(np.asarray(frame, np.float64), False, 0.0, {"method": "whole_image"})
    if not on_edges:
        return max(candidates, key=_preference) if candidates else Located(np.zeros((4, 2)), False)
    on_edges = [c for c in on_edges if _document_shaped(c.corners, shapes)] or on_edges
    chosen = _largest_of_the_best_supported(on_edges)
    if not _preference(chosen)[0]:
        # On edges only with a side along the frame: a document running out of the photo, or the card plus
        # a strip of table out to the frame. A quad on edges all round that fills most of it is the card.
        inside = [c for c in on_edges if _preference(c)[0] and _share_inside(c.corners, chosen.corners) >= MIN_SHARE_OF_FRAMED]
        if inside:
            chosen = _largest_of_the_best_supported(inside)
    return chosen


def _largest_of_the_best_supported(candidates: list[Located]) -> Located:
    best_support = max(_mean_support(c, frame_sides=True) for c in candidates)
    return max((c for c in candidates if _mean_support(c, frame_sides=True) >= best_support - SUPPORT_TOLERANCE),
               key=lambda c: c.score)


# A quad on edges all round that covers this share of a quad whose side lies along the frame is preferred to it.
MIN_SHARE_OF_FRAMED = 0.6


def _share_inside(inner: np.ndarray, outer: np.ndarray) -> float:
    """The share of ``outer``'s area that ``inner`` covers (0 when it pokes out of ``outer``)."""
    a, b = (np.asarray(order_corners(q), np.float32) for q in (inner, outer))
    area_b = abs(cv2.contourArea(b))
    overlap, _ = cv2.intersectConvexConvex(a, b)
    if area_b <= 0 or overlap < 0.95 * abs(cv2.contourArea(a)):
        return 0.0
    return float(overlap / area_b)


# Long side over short side of what is photographed: an ID card (TD1), a passport data page or a TD2 card,
# an open passport booklet (both pages). Among quads on edges, those shaped like one of them within this
# share are preferred: the portrait, a header band or a keyboard's key block are rectangles on edges too.
# Without an MRZ read the reader asks for ONE_DOCUMENT_ASPECTS: a booklet's spread always shows its data
# page's zone, so a page without one is a single document.
ONE_DOCUMENT_ASPECTS = (TD1_ASPECT, TD3_ASPECT)
DOCUMENT_ASPECTS = ONE_DOCUMENT_ASPECTS + (2 * TD3_ASPECT,)
ASPECT_TOLERANCE = 0.1


def _document_shaped(corners: np.ndarray, shapes: tuple[float, ...] = DOCUMENT_ASPECTS,
                     tolerance: float = ASPECT_TOLERANCE) -> bool:
    aspect = float(_aspects(np.linalg.norm(_to_next(order_corners(corners)[None]), axis=2))[0])
    return any(abs(aspect / a - 1) <= tolerance for a in shapes)


CROPPED_ASPECT_TOLERANCE = 0.03  # a whole photo is a document cropped to it only in its exact proportions


def _support(c: Located, frame_sides: bool = False) -> np.ndarray:
    """Edge support of each side; with ``frame_sides``, a side along the photo's frame counts as on an edge."""
    support = np.asarray(c.info.get("edge_support", (0.0,) * 4), np.float64)
    if frame_sides:
        support = np.where(np.asarray(c.info.get("frame_sides", (False,) * 4)), 1.0, support)
    return support


def _mean_support(c: Located, frame_sides: bool = False) -> float:
    return float(np.mean(_support(c, frame_sides)))


def _preference(c: Located, frame_sides: bool = False) -> tuple:
    """(on edges, size when on edges else mean edge support)."""
    support = _support(c, frame_sides)
    on_edges = support.mean() >= MIN_MEAN_SUPPORT and support.min() >= MIN_SIDE_SUPPORT
    return (on_edges, c.score if on_edges else float(support.mean()))


def contour_candidates(rgb: np.ndarray) -> list[Located]:
    """Every document-like quad (all of :func:`candidate_batches`)."""
    return [c for batch in candidate_batches(rgb) for c in batch]


def candidate_batches(rgb: np.ndarray, work_side: int = WORK_SIDE) -> Iterator[list[Located]]:
    """Every document-like quad (input coordinates), scored by shape, with the edge support of its sides.

    Proposed by the contours of Canny edges and of colour segments, and by pairs of roughly parallel
    straight edges (Hough segments) that cross at roughly right angles: a card's border broken by glare,
    a finger or a background of the same colour closes no contour but still leaves its four straight lines.
    Each of the edge maps (:func:`_edge_maps`) proposes its own, with side support measured on that map
    (``info["edges"]`` names it). Yielded in batches, cheapest first: per map, the edge contours' quads
    and the colour segments' quads; then per map the straight lines' quads.
    """
    H, W = rgb.shape[:2]
    s = min(1.0, work_side / max(H, W))
    small = cv2.resize(rgb, (max(1, round(W * s)), max(1, round(H * s))), interpolation=cv2.INTER_AREA) if s < 1 else rgb
    h, w = small.shape[:2]
    area_img = float(h * w)
    gray = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    frame = frame_corners(small.shape)
    fitted: dict = {}  # contour -> its quad: the edge maps share the document's strongest contours
    colour: dict = {}  # the colour segments' masks and quads, each made when first asked for (the same on every map)

    def segment_quads(name: str) -> list:
        if name not in colour:
            if "distance" not in colour:
                colour["distance"] = _colour_distance_to_border(small)
            mask = (_segment_mask if name == "segment" else _low_segment_mask)(colour["distance"])
            colour[name] = _contour_quads(mask, name, area_img, frame, s, rgb, fitted)
        return colour[name]

    line_searches = []  # the straight-line search of every map, after all contours: it costs most
    for edge_name, thin_edges in _edge_maps(blur):
        # a 5x5 dilation, which is a 3x3 one twice over: the contours are taken on it too
        near_edge = cv2.dilate(thin_edges, np.ones((5, 5), np.uint8))
        edge_density = float(np.count_nonzero(near_edge)) / near_edge.size

        def supported(name: str, quads) -> list[Located]:
            return [Located(corners.copy(), True, score, {"method": name, "edges": edge_name,
                                                          "edge_support": _edge_support(q, near_edge, edge_density),
                                                          "frame_sides": _frame_sides(q, near_edge.shape)})
                    for q, score, corners in quads]

        from_this_map = supported(edge_name, _contour_quads(near_edge, edge_name, area_img, frame, s, rgb, fitted))
        yield from_this_map
        from_segments = supported("segment", segment_quads("segment"))
        if not from_this_map and not from_segments:
            from_segments = supported("segment_low", segment_quads("segment_low"))  # last resort: it takes shadows
        yield from_segments
        line_searches.append((thin_edges, near_edge, edge_density, edge_name))
    for thin_edges, near_edge, edge_density, edge_name in line_searches:
        yield _line_candidates(thin_edges, near_edge, edge_density, area_img, s, rgb, edge_name)


def _contour_quads(mask: np.ndarray, name: str, area_img: float, frame: np.ndarray, s: float, rgb: np.ndarray,
                   fitted: dict | None = None) -> list[tuple[np.ndarray, float, np.ndarray]]:
    """(quad at search resolution in image order, shape score, corners in input coordinates) of each large
    enough contour of ``mask`` that closes a plausible quad other than the image frame. ``fitted``: the quads of
    contours met before in the same search (a contour's quad is the same on any mask), added to."""
    h, w = mask.shape[:2]
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL if name.startswith("segment") else cv2.RETR_LIST,
                                   cv2.CHAIN_APPROX_NONE)
    fitted = {} if fitted is None else fitted
    quads = []
    for cnt in contours:
        if cv2.contourArea(cnt) < 0.03 * area_img and cv2.arcLength(cnt, True) < 0.4 * (h + w):
            continue
        key = cnt.tobytes()
        if key not in fitted:
            fitted[key] = _contour_quad(cnt, area_img, frame, s, rgb)
        if fitted[key] is not None:
            quads.append(fitted[key])
    return quads


def _contour_quad(cnt: np.ndarray, area_img: float, frame: np.ndarray, s: float, rgb: np.ndarray
                  ) -> tuple[np.ndarray, float, np.ndarray] | None:
    """:func:`_contour_quads`' quad of one contour; None when it closes no plausible one."""
    q = quad_from_contour(cnt, cv2)
    if q is None:
        return None
    q = fit_sides(order_corners(q), cnt.reshape(-1, 2).astype(np.float64), cv2)
    ordered = order_corners(q)
    if np.abs(ordered - frame).max() < 0.03 * (frame.max() + 1):  # frame.max() + 1: the long side
        return None  # the image frame itself, not a document in it
    score = float(_shape_scores(ordered[None], area_img)[0])
    return (ordered, score, _refine_corners(ordered / s, rgb, cv2)) if score > 0 else None


# Canny's hysteresis thresholds. The first map takes them from the median brightness (the usual automatic
# choice), which on a pale card on a pale table sets the upper one near 250 and loses the card's faint border.
# Two more maps take them from the gradient magnitudes themselves (the upper one at these percentiles, the
# lower at half of it), which keep a faint border wherever it is among the stronger edges of the image. Where
# nearly all is flat (a scanner lid) or noise, those percentiles fall to the noise itself, whose edges then
# close straight-line quads anywhere: the upper threshold is at least MIN_GRADIENT_THRESHOLD (Sobel L1 at the
# search resolution).
GRADIENT_PERCENTILES = (90.0, 80.0)
MIN_GRADIENT_THRESHOLD = 20.0


def _edge_maps(blur: np.ndarray) -> Iterator[tuple[str, np.ndarray]]:
    """Canny edge maps of one blurred gray image, each named, with thresholds chosen as described above
    (each made only when asked for: the search may stop at the first). A map whose thresholds an earlier one
    had (both percentiles held at MIN_GRADIENT_THRESHOLD on a flat image) is that map: it is not given again,
    its quads would only repeat the earlier map's."""
    med = _whole_number_percentiles(blur, (50.0,))[0]  # np.median of 8-bit values, from their histogram
    thresholds = (max(10, 0.5 * med), min(255, 1.2 * med + 30))
    yield "canny", cv2.Canny(blur, *thresholds)
    made = {thresholds}
    magnitude = np.abs(cv2.Sobel(blur, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(blur, cv2.CV_32F, 0, 1))
    for percentile, value in zip(GRADIENT_PERCENTILES, _whole_number_percentiles(magnitude, GRADIENT_PERCENTILES)):
        upper = max(MIN_GRADIENT_THRESHOLD, value)
        if (0.5 * upper, upper) in made:
            continue
        made.add((0.5 * upper, upper))
        yield f"canny_p{percentile:.0f}", cv2.Canny(blur, 0.5 * upper, upper)


def _whole_number_percentiles(values: np.ndarray, percentiles: tuple[float, ...]) -> list[float]:
    """``np.percentile(values, percentiles)`` (linear interpolation, the same arithmetic) of non-negative whole
    numbers in any dtype (the Sobel magnitudes of an 8-bit image are), from their histogram: a fraction of the
    cost of the partition np.percentile sorts them with.

    >>> _whole_number_percentiles(np.float32([[0, 3, 3], [7, 1, 9]]), (90.0, 50.0, 100.0))
    [8.0, 3.0, 9.0]
    """
    below = np.cumsum(np.bincount(values.astype(np.int64).ravel()))  # below[v]: how many are v or less
    n = int(below[-1])
    out = []
    for percentile in percentiles:
        at = (n - 1) * (percentile / 100)
        lo = min(math.floor(at), n - 1)
        a, b = (float(np.searchsorted(below, k, side="right")) for k in (lo, min(lo + 1, n - 1)))
        t = at - lo
        out.append(a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t))
    return out


def _colour_distance_to_border(small: np.ndarray) -> np.ndarray:
    """Each pixel's colour distance (Lab) from the image's border (the surface the document lies on)."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (7, 7), 0), cv2.COLOR_RGB2LAB).astype(np.float32)
    border = np.concatenate([lab[:4].reshape(-1, 3), lab[-4:].reshape(-1, 3), lab[:, :4].reshape(-1, 3),
                             lab[:, -4:].reshape(-1, 3)])
    return _colour_distance(lab, np.median(border, 0))


def _segment_mask(dist: np.ndarray) -> np.ndarray:
    """What differs in colour from the border, by Otsu's threshold on the distance."""
    dist8 = np.clip(dist * 2, 0, 255).astype(np.uint8)
    _t, seg = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    seg = cv2.morphologyEx(seg, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))
    return cv2.morphologyEx(seg, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))


def _low_segment_mask(dist: np.ndarray) -> np.ndarray:
    """Pale documents on pale scanner lids: a low fixed colour distance separates them where Otsu does not."""
    low = ((dist > 10) * 255).astype(np.uint8)
    low = cv2.morphologyEx(low, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    return cv2.morphologyEx(low, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))


def _colour_distance(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(lab - colour, axis=2)`` (the same sums in the same order) from the channels' planes, each
    contiguous: numpy's reduction over a 3-long last axis costs about three times as much, strided planes half
    again."""
    squares = [np.square(plane - value) for plane, value in zip(cv2.split(lab), colour)]
    out = squares[0] + squares[1]
    out += squares[2]
    return np.sqrt(out, out=out)


def _line_candidates(thin_edges: np.ndarray, near_edge: np.ndarray, edge_density: float, area_img: float,
                     s: float, rgb: np.ndarray, edge_name: str) -> list[Located]:
    # Straight lines are found in any texture (noise, a keyboard, text): their quads count only when on edges
    # that stand out from the image's own edge density, and not at all where edges are nearly everywhere
    # (sensor noise alone puts most of the image near an edge, a document capture far less of it).
    quads = line_quads(thin_edges) if edge_density <= MAX_EDGE_DENSITY_FOR_LINES else np.empty((0, 4, 2))
    scores = _shape_scores(quads, area_img)
    quads, scores = quads[scores > 0], scores[scores > 0]
    found = []
    for q, score, support in zip(quads, scores, _edge_supports(quads, near_edge, edge_density)):
        candidate = Located(q, True, float(score), {"method": "lines", "edges": edge_name, "edge_support": support})
        if _preference(candidate)[0]:
            candidate.corners = _refine_corners(q / s, rgb, cv2)
            found.append(candidate)
    return found


def _shape_scores(quads: np.ndarray, area_img: float) -> np.ndarray:
    """Plausibility of each quad (n, 4, 2; image order) as a photographed document, by shape: its share of the
    image times how equal its opposite sides are; 0 for a quad too small to read or the image frame itself (under 4 % or over 97 % of the image), not convex, longer than
    3.2 times its width, with a corner outside ~57-123 degrees (a photographed rectangle keeps them near
    right angles) or opposite sides unequal (under 0.6 as a product of both pairs' ratios)."""
    if not len(quads):
        return np.zeros(0)
    to_next = _to_next(quads)
    cross = to_next[:, _PREVIOUS, 0] * to_next[:, :, 1] - to_next[:, _PREVIOUS, 1] * to_next[:, :, 0]
    convex = (cross > 0).all(1) | (cross < 0).all(1)
    x, y = quads[..., 0], quads[..., 1]
    frac = np.abs((x * y[:, _NEXT] - x[:, _NEXT] * y).sum(1)) / 2 / area_img
    sides = np.linalg.norm(to_next, axis=2)
    aspect = _aspects(sides)
    cos = ((quads[:, _PREVIOUS] - quads) * to_next).sum(2) / np.maximum(1e-6, sides[:, _PREVIOUS] * sides)
    para = np.minimum(sides[:, 0], sides[:, 2]) / np.maximum(1e-9, np.maximum(sides[:, 0], sides[:, 2])) \
        * np.minimum(sides[:, 1], sides[:, 3]) / np.maximum(1e-9, np.maximum(sides[:, 1], sides[:, 3]))
    plausible = (frac >= 0.04) & (frac <= 0.97) & convex & (aspect <= 3.2) & (np.abs(cos) <= 0.55).all(1) & (para >= 0.6)
    return np.where(plausible, frac * para, 0.0)


def _to_next(quads: np.ndarray) -> np.ndarray:
    """Each corner's vector to the next (n, 4, 2): the sides TL-TR, TR-BR, BR-BL, BL-TL."""
    return quads[:, _NEXT] - quads


def _aspects(sides: np.ndarray) -> np.ndarray:
    """Long over short of quads with these side lengths (n, 4), opposite sides averaged."""
    w, h = (sides[:, 0] + sides[:, 2]) / 2, (sides[:, 1] + sides[:, 3]) / 2
    return np.maximum(w, h) / np.maximum(1e-6, np.minimum(w, h))


def _edge_supports(quads: np.ndarray, near_edge: np.ndarray, edge_density: float, samples: int = 40
                   ) -> list[tuple[float, ...]]:
    """Per side (TL-TR, TR-BR, BR-BL, BL-TL) of each quad (n, 4, 2): the share of its middle 80 % lying on
    ``near_edge``, above what a line drawn anywhere would get from the image's edge density (the share of
    ``near_edge`` set; 0 on noise, where edges are everywhere)."""
    h, w = near_edge.shape
    density = min(0.95, edge_density)
    pts = _side_points(quads, samples)
    inside = (pts[..., 0] >= 0) & (pts[..., 0] <= w - 1) & (pts[..., 1] >= 0) & (pts[..., 1] <= h - 1)
    x = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
    y = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
    shares = ((near_edge[y, x] > 0) & inside).sum(2) / samples
    return [tuple(round(max(0.0, share - density) / (1.0 - density), 3) for share in row) for row in shares.tolist()]


# A side with this share of its length within FRAME_MARGIN (of the image's long side) of the frame, or beyond
# it, lies along the frame.
FRAME_MARGIN = 0.01


def _frame_sides(q: np.ndarray, shape: tuple) -> tuple[bool, ...]:
    """Which sides of quad ``q`` (4, 2; image order) lie along the frame of an image of ``shape``."""
    h, w = shape[:2]
    margin = FRAME_MARGIN * max(h, w)
    pts = _side_points(q, 20)[0]  # (side, sample, xy)
    near = ((pts[..., 0] <= margin) | (pts[..., 0] >= w - 1 - margin)
            | (pts[..., 1] <= margin) | (pts[..., 1] >= h - 1 - margin))
    return tuple(bool(v) for v in near.mean(1) >= 0.8)


def _side_points(quads: np.ndarray, samples: int) -> np.ndarray:
    """Points spread over the middle 80 % of each side of each quad (n, 4, 2): (quad, side, sample, xy)."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    t = np.linspace(0.1, 0.9, samples)[None, None, :, None]
    starts, ends = quads[:, :, None, :], quads[:, _NEXT, None, :]
    return starts + (ends - starts) * t


def _edge_support(q: np.ndarray, near_edge: np.ndarray, edge_density: float) -> tuple[float, ...]:
    """:func:`_edge_supports` of one quad."""
    return _edge_supports(q[None], near_edge, edge_density)[0]


def _refine_corners(q: np.ndarray, rgb: np.ndarray, cv2) -> np.ndarray:
    # Half-resolution quads are off by a pixel or two; that is fine for reading.
    H, W = rgb.shape[:2]
    q[:, 0] = np.clip(q[:, 0], 0, W - 1)
    q[:, 1] = np.clip(q[:, 1], 0, H - 1)
    return q


# A located document's long side once warped: a small one upsampled to the first, a large one reduced to the second.
WARP_LONG_SIDES = (1000, 1100)


def warped_long_side(measured: float, min_long_side: float = WARP_LONG_SIDES[0],
                     max_long_side: float = WARP_LONG_SIDES[1]) -> float:
    """The long side :func:`warp` gives a document whose long side measures ``measured`` pixels.

    >>> warped_long_side(640), warped_long_side(1050), warped_long_side(3000)
    (1000, 1050, 1100)
    """
    return min(max_long_side, max(min_long_side, measured))


def warp(rgb: np.ndarray, corners: np.ndarray, max_long_side: int = WARP_LONG_SIDES[1],
         min_long_side: int = WARP_LONG_SIDES[0]) -> tuple[np.ndarray, np.ndarray]:
    """Perspective-warp the quad (image order TL, TR, BR, BL) to a rectangle; returns (image, homography)."""
    q = np.asarray(corners, np.float64)
    sides = np.linalg.norm(q - np.roll(q, -1, 0), axis=1)
    w, h = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    aspect = w / max(h, 1e-6)
    # Snap to the ICAO sizes when the measured aspect is close (perspective shortens one side).
    for target in (TD1_ASPECT, TD3_ASPECT):
        for a in (target, 1 / target):
            if abs(aspect / a - 1) < 0.07:
                aspect = a
    # Small documents (a booklet far from the phone) are upsampled: the MRZ glyphs then come
    # apart under thresholding and the glyph cells are cut from a smooth (cubic) image.
    long_side = warped_long_side(max(w, h), min_long_side, max_long_side)
    if aspect >= 1:
        out_w, out_h = long_side, long_side / aspect
    else:
        out_h, out_w = long_side, long_side * aspect
    out_w, out_h = int(round(out_w)), int(round(out_h))
    dst = np.float32([[0, 0], [out_w - 1, 0], [out_w - 1, out_h - 1], [0, out_h - 1]])
    m = cv2.getPerspectiveTransform(q.astype(np.float32), dst)
    img = cv2.warpPerspective(rgb, m, (out_w, out_h), flags=cv2.INTER_AREA if long_side < max(w, h) else cv2.INTER_CUBIC,
                              borderMode=cv2.BORDER_REPLICATE)
    return img, m


_CLOCKWISE_TURNS = {1: cv2.ROTATE_90_CLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_COUNTERCLOCKWISE}


def rotate_quarter(img: np.ndarray, rotation: int) -> np.ndarray:
    """Undo a CCW ``rotation`` (0/90/180/270) so the document is upright: ``np.rot90(img, -rotation // 90)``,
    contiguous. An 8-bit image is turned by OpenCV, the same pixels in about a tenth of the time numpy's
    strided copy takes (a page is turned for every read of it)."""
    k = (rotation // 90) % 4
    if not k:
        return img
    if img.dtype == np.uint8 and (img.ndim == 2 or (img.ndim == 3 and img.shape[2] in (3, 4))):
        return cv2.rotate(img, _CLOCKWISE_TURNS[k])
    return np.ascontiguousarray(np.rot90(img, -k))


def document_corners(image_order: np.ndarray, rotation: int) -> list[list[float]]:
    """Image-order corners -> the upright document's TL, TR, BR, BL (still in input coordinates)."""
    k = (rotation // 90) % 4
    # The upright TL sits k positions clockwise-behind... a CCW turn moves TL to the image's BL (k=1).
    q = np.roll(np.asarray(image_order, np.float64), -((4 - k) % 4), axis=0)
    return [[round(float(x), 1), round(float(y), 1)] for x, y in q]
