"""Find the machine-readable zone in an image and cut its lines into strips.

1. the direction of the text (any angle, 0-180 degrees, :mod:`docauth.ocr.mrz.direction`) from the directions
   between neighbouring glyph-sized components; the image is turned so that
   text runs horizontally (the MRZ is then upright or upside down);
2. binarise (adaptive threshold) and take connected components of text size;
3. chain components on the same baseline into text lines;
4. an MRZ is 2 or 3 long, regular, left-aligned, equally spaced lines;
5. each line is cut along its baseline into a fixed-size strip.

The strips go to the line recogniser (:mod:`docauth.ocr.mrz.line_model`); this
module only does geometry and is shared by training and inference, so both
see the same crops.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import cv2
import numpy as np

from docauth.ocr.mrz.direction import text_angle
from docauth.ocr.mrz.glyphs import Labelled, binarise, glyph_boxes

LINE_H, LINE_W = 32, 768  # line recogniser input: a line stretched to the width, glyphs ~19 px tall
LINE_LENGTHS = {3: (30,), 2: (44, 36)}
SAME_DIRECTION = 4.0  # degrees: text directions closer than this are searched as one
# A text line is 8 components at least, or, when blur has welded its glyphs into runs (a blurred MRZ line
# comes apart into a few blobs, under motion blur into one), as long as MIN_WELDED_CHARACTERS glyphs.
MIN_LINE_COMPONENTS, MIN_WELDED_CHARACTERS = 8, 18


@dataclass
class TextLine:
    boxes: np.ndarray  # (n, 4) x, y, w, h of its components
    height: float  # cap height estimate
    x0: float
    x1: float
    slope: float  # dy/dx of the component centres
    intercept: float  # y of the centre line at x = 0

    @property
    def count(self) -> int:
        """Characters on the line, counting a merged run of glyphs by its width."""
        widths = self.boxes[:, 2]
        return int(np.maximum(1, np.round(widths / max(self.height, 1.0))).sum())

    def y_at(self, x: float) -> float:
        return self.slope * x + self.intercept


@dataclass
class MRZBlock:
    lines: list[TextLine]
    scale: float  # detection image / input image
    box: tuple[int, int, int, int] = (0, 0, 0, 0)  # x, y, w, h in input coordinates
    extra: dict = field(default_factory=dict)


@dataclass
class FoundMRZ:
    """An MRZ-like block in an image turned so that its text runs horizontally."""

    gray: np.ndarray = field(repr=False)  # the levelled image the block's geometry refers to
    block: MRZBlock
    angle: float  # the image was turned by this many degrees (see rotate_degrees)
    to_level: np.ndarray = field(repr=False)  # 2x3: input image -> levelled image coordinates
    # 3x3 homography from the image searched to the caller's image, when the search ran on a rectified
    # crop of it (the MRZ read again on the located document); None: the caller's image was searched.
    outer: np.ndarray | None = field(default=None, repr=False)

    def to_input(self, points) -> np.ndarray:
        """(N, 2) points of the levelled image in input image coordinates."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        pts = np.hstack([pts, np.ones((len(pts), 1))]) @ _invert_affine(self.to_level).T
        if self.outer is None:
            return pts
        mapped = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(self.outer, np.float64).T
        return mapped[:, :2] / mapped[:, 2:3]

    def corners_in_input(self) -> np.ndarray:
        """The block's box (TL, TR, BR, BL) in input image coordinates."""
        x, y, w, h = self.block.box
        return self.to_input([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])

    def centre_in_input(self) -> tuple[float, float]:
        x, y, w, h = self.block.box
        cx, cy = self.to_input([[x + w / 2, y + h / 2]])[0]
        return float(cx), float(cy)


def _chain_lines(boxes: np.ndarray) -> list[np.ndarray]:
    """Union components that sit side by side on the same baseline."""
    from scipy.sparse import coo_matrix  # deferred: scipy takes about a second to import, only the search needs it
    from scipy.sparse.csgraph import connected_components

    n = len(boxes)
    if n == 0:
        return []
    order = np.argsort(boxes[:, 0])
    b = boxes[order]
    x0 = b[:, 0]
    right = x0 + b[:, 2]
    cy = b[:, 1] + b[:, 3] / 2
    hh = b[:, 3]
    # Pairs (a, c), c after a in x order, whose left edge is within reach of a's right edge.
    stop = np.searchsorted(x0, right + 1.3 * hh, side="right")
    first = np.arange(n) + 1
    counts = np.maximum(stop - first, 0)
    a = np.repeat(np.arange(n), counts)
    c = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(first, counts)
    hmax = np.maximum(hh[a], hh[c])
    near = ((np.abs(cy[a] - cy[c]) <= 0.3 * hmax) & (np.minimum(hh[a], hh[c]) >= 0.45 * hmax)
            & (x0[c] - right[a] <= 1.3 * hmax))
    graph = coo_matrix((np.ones(int(near.sum()), np.int8), (a[near], c[near])), shape=(n, n))
    _count, labels = connected_components(graph, directed=False)
    sizes = np.bincount(labels)
    glyphs = np.bincount(labels, weights=np.maximum(1, np.round(b[:, 2] / np.maximum(hh, 1))))
    # Lines in x order of their first component (members stay in x order).
    _, first_member = np.unique(labels, return_index=True)
    return [b[labels == k] for k in np.argsort(first_member, kind="stable")
            if sizes[k] >= 4 or glyphs[k] >= MIN_WELDED_CHARACTERS]


def _merge_rows(chains: list[np.ndarray], max_gap: float = 2.6) -> list[TextLine]:
    """Join chains on the same baseline separated by a short gap (a faint or broken glyph)."""
    items = [_make_line(c) for c in chains]
    items.sort(key=lambda ln: ln.x0)
    merged = True
    while merged:
        merged = False
        for a in range(len(items)):
            for c in range(len(items)):
                if a == c:
                    continue
                la, lc = items[a], items[c]
                gap = lc.x0 - la.x1
                hm = max(la.height, lc.height)
                if not (-0.5 * hm < gap < max_gap * hm):
                    continue
                if min(la.height, lc.height) < 0.7 * hm:
                    continue
                if abs(la.y_at(la.x1) - lc.y_at(lc.x0)) > 0.35 * hm:
                    continue
                items[a] = _make_line(np.vstack([la.boxes, lc.boxes]))
                del items[c]
                merged = True
                break
            if merged:
                break
    return items


def _percentile(values: np.ndarray, q: float) -> float:
    """``np.percentile(values, q)`` (linear interpolation, the same arithmetic) without its overhead:
    it is taken for every candidate line of every search."""
    v = np.sort(values)
    at = (len(v) - 1) * (q / 100.0)
    lo = int(at)
    hi = min(lo + 1, len(v) - 1)
    t = at - lo
    a, b = float(v[lo]), float(v[hi])
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def _line_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope and intercept of y over x (``np.polyfit(x, y, 1)``, in closed form)."""
    mx, my = x.mean(), y.mean()
    dx = x - mx
    spread = float((dx * dx).sum())
    slope = float((dx * (y - my)).sum()) / spread if spread > 0 else 0.0  # a vertical run: no slope to fit
    return slope, float(my - slope * mx)


def _make_line(boxes: np.ndarray) -> TextLine:
    boxes = boxes[np.argsort(boxes[:, 0], kind="stable")]
    h = _percentile(boxes[:, 3], 80)
    tall = boxes[boxes[:, 3] >= 0.75 * h]
    if len(tall) < 3:
        tall = boxes
    cx = tall[:, 0] + tall[:, 2] / 2
    cy = tall[:, 1] + tall[:, 3] / 2
    slope, intercept = 0.0, float(np.median(cy))
    if len(tall) >= 6 and np.ptp(cx) > 0:
        keep = np.abs(cy - intercept) < 0.5 * h
        for _ in range(3):  # robust: drop background specks chained onto the line
            if keep.sum() < 6:
                break
            slope, intercept = _line_fit(cx[keep], cy[keep])
            keep = np.abs(cy - (slope * cx + intercept)) < 0.2 * h
    return TextLine(boxes=boxes, height=h, x0=float(boxes[:, 0].min()),
                    x1=float((boxes[:, 0] + boxes[:, 2]).max()), slope=float(slope), intercept=float(intercept))


def find_text_lines(gray: np.ndarray, open_thin: bool = False, binary: np.ndarray | None = None,
                    stats: np.ndarray | None = None) -> list[TextLine]:
    """``binary``: ``binarise(gray)`` when the caller has it already (the search with hair-lines cut after
    the one without binarises the same image); ``stats``: its components' (not taken with hair-lines cut)."""
    h, w = gray.shape
    binary = binarise(gray) if binary is None else binary
    if open_thin:
        # Hair-line guilloche crossing the glyphs welds them into one huge component: cut it off.
        binary = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        stats = None
    boxes = glyph_boxes(binary, min_h=6, max_h=max(8, h // 3), stats=stats)
    return [ln for ln in _merge_rows(_chain_lines(boxes)) if _long_enough(ln)]


def _long_enough(line: TextLine) -> bool:
    return len(line.boxes) >= MIN_LINE_COMPONENTS or line.count >= MIN_WELDED_CHARACTERS


def _is_mrz_line(line: TextLine) -> bool:
    extent = line.x1 - line.x0
    return line.count >= 18 and extent >= 16 * line.height and abs(line.slope) < 0.15


def find_mrz_candidates(gray: np.ndarray, max_side: int = 1400, limit: int = 3,
                        open_thin: bool | None = None) -> list[MRZBlock]:
    """MRZ-like blocks, most likely first (more characters, three lines before two).

    ``open_thin``: cut hair-lines (guilloche crossing the glyphs) before finding lines; None: only
    when nothing is found without.
    """
    return _Levelled(gray, max_side).candidates(limit, open_thin)


class _Levelled:
    """One levelled image as the line search sees it: reduced to at most ``max_side`` and binarised once, each
    search's blocks (with hair-lines cut or not, up to ``limit``) found once however often they are asked for.
    ``labelled``: ``gray`` binarised and labelled already (the text direction's glyph map of it), taken when
    ``gray`` is searched unreduced."""

    def __init__(self, gray: np.ndarray, max_side: int = 1400, labelled: Labelled | None = None):
        self.scale = 1.0
        h, w = gray.shape
        if max(h, w) > max_side:
            self.scale = max_side / max(h, w)
            gray = cv2.resize(gray, (round(w * self.scale), round(h * self.scale)), interpolation=cv2.INTER_AREA)
            labelled = None
        self.gray = gray
        self._labelled = labelled
        self._found: dict = {}

    def candidates(self, limit: int, open_thin: bool | None) -> list[MRZBlock]:
        if open_thin is not None:
            return self._candidates(limit, open_thin)
        return self._candidates(limit, False) or self._candidates(limit, True)

    def _candidates(self, limit: int, open_thin: bool) -> list[MRZBlock]:
        key = (limit, open_thin)
        if key not in self._found:
            if self._labelled is None:
                self._labelled = Labelled(binarise(self.gray))
            stats = None if open_thin else self._labelled.components[2]
            self._found[key] = _candidates(self.gray, self.scale, limit, open_thin=open_thin,
                                           binary=self._labelled.binary, stats=stats)
        return self._found[key]


def _candidates(gray: np.ndarray, scale: float, limit: int, open_thin: bool,
                binary: np.ndarray | None = None, stats: np.ndarray | None = None) -> list[MRZBlock]:
    lines = [ln for ln in find_text_lines(gray, open_thin=open_thin, binary=binary, stats=stats)
             if _is_mrz_line(ln)]
    lines.sort(key=lambda ln: ln.intercept + ln.slope * (ln.x0 + ln.x1) / 2)
    scored = []
    for i in range(len(lines)):
        # The lines below line i in its column: text beside the MRZ (a page lying next to the document)
        # interleaves with its lines in top-to-bottom order.
        column = [i] + [j for j in range(i + 1, len(lines)) if _same_column(lines[i], lines[j])]
        for k in (3, 2):
            members = column[:k]
            if len(members) != k:
                continue
            group = [lines[j] for j in members]
            ragged = _raggedness(group)
            group = _trim_to_common_range(group)
            if group is None or not _aligned(group):
                continue
            # MRZ lines are fixed-pitch and all of one length; paragraphs of capitals (observations,
            # an address) are neither, however long and aligned they are.
            # Three lines of unequal length are rather a line of text (or a band's edge) over a 2-line MRZ:
            # raggedness costs a 3-line block twice as much.
            irregular = float(np.mean([_pitch_irregularity(ln) for ln in group]))
            score = (sum(ln.count for ln in group) + (5 if k == 3 else 0) - 150 * irregular
                     - (4 if k == 3 else 2) * ragged)
            scored.append((score, members, group))
    scored.sort(key=lambda t: -t[0])
    out, used, paragraphs = [], set(), []
    for _score, members, group in scored:
        # A block's 2-line subset is no second candidate, nor is the next block of the same paragraph:
        # the next one must be elsewhere (a page of typed text beside a blurred MRZ gave five blocks
        # that pushed the real MRZ out of the list).
        if used.intersection(members):
            continue
        used.update(members)
        span = _span(group)
        if any(_same_paragraph(span, other) for other in paragraphs):
            continue
        paragraphs.append(span)
        out.append(_block(group, scale))
        if len(out) == limit:
            break
    return out


def _same_column(a: TextLine, b: TextLine) -> bool:
    """The two lines overlap over half the shorter one's length."""
    return _overlap_half(a.x0, a.x1, b.x0, b.x1)


def _overlap_half(a0: float, a1: float, b0: float, b1: float) -> bool:
    """Do spans [a0, a1] and [b0, b1] overlap over half the shorter one?"""
    return min(a1, b1) - max(a0, b0) >= 0.5 * min(a1 - a0, b1 - b0)


def _span(group: list[TextLine]) -> tuple[float, float, float, float, float]:
    """x0, x1, top and bottom line centre, line spacing of a block."""
    mids = [ln.y_at((ln.x0 + ln.x1) / 2) for ln in group]
    return (min(ln.x0 for ln in group), max(ln.x1 for ln in group), min(mids), max(mids),
            float(np.max(np.diff(mids))))


def _same_paragraph(a: tuple, b: tuple) -> bool:
    """Blocks in one column, the gap between them no wider than their own line spacing."""
    if not _overlap_half(a[0], a[1], b[0], b[1]):
        return False
    gap = max(a[2] - b[3], b[2] - a[3])
    return gap <= 1.2 * max(a[4], b[4])


def _raggedness(group: list[TextLine]) -> float:
    """How unequal the lines' starts and ends are, in line heights."""
    h = float(np.median([ln.height for ln in group]))
    return (np.ptp([ln.x0 for ln in group]) + np.ptp([ln.x1 for ln in group])) / max(h, 1.0)


def _pitch_irregularity(line: TextLine) -> float:
    """0 for glyphs on a regular grid (merged glyphs skip whole steps), up to 0.5 for proportional text."""
    single = line.boxes[line.boxes[:, 2] <= 1.2 * line.height]
    gaps = np.diff(np.sort(single[:, 0] + single[:, 2] / 2))
    gaps = gaps[gaps > 0.3 * line.height]
    if len(gaps) < 4:
        return 0.5
    steps = gaps / np.median(gaps)
    return float(np.median(np.abs(steps - np.round(steps))))


def _block(group: list[TextLine], scale: float) -> MRZBlock:
    group = [copy.copy(ln) for ln in group]
    ref = max(group, key=lambda ln: ln.count)
    x0 = min(ref.x0, float(np.median([ln.x0 for ln in group])))
    x1 = max(ref.x1, float(np.median([ln.x1 for ln in group])))
    for ln in group:
        ln.x0, ln.x1 = x0, x1  # every MRZ line spans the same grid
    ys = [ln.y_at((ln.x0 + ln.x1) / 2) for ln in group]
    hh = max(ln.height for ln in group)
    y0, y1 = min(ys) - hh, max(ys) + hh
    box = tuple(int(round(v / scale)) for v in (x0, y0, x1 - x0, y1 - y0))
    return MRZBlock(lines=group, scale=scale, box=box)


def _trim_to_common_range(group: list[TextLine]) -> list[TextLine] | None:
    """Cut components that stick out of the block (text beside the MRZ chained onto a line)."""
    if len(group) == 3:
        x0 = float(np.median([ln.x0 for ln in group]))
        x1 = float(np.median([ln.x1 for ln in group]))
    else:
        ref = max(group, key=lambda ln: ln.count)
        x0, x1 = ref.x0, ref.x1
    out = []
    for ln in group:
        b = ln.boxes
        margin = 0.8 * ln.height
        keep = (b[:, 0] >= x0 - margin) & (b[:, 0] + b[:, 2] <= x1 + margin)
        if not keep.any():
            return None
        trimmed = _make_line(b[keep]) if not keep.all() else ln
        if not _long_enough(trimmed):
            return None
        out.append(trimmed)
    return out


def _aligned(group: list[TextLine]) -> bool:
    hs = [ln.height for ln in group]
    hm = float(np.median(hs))
    if max(hs) > 1.4 * min(hs):
        return False
    ref = max(group, key=lambda ln: ln.count)
    for ln in group:  # every line covers most of the reference line (broken lines start late)
        overlap = min(ln.x1, ref.x1) - max(ln.x0, ref.x0)
        if overlap < 0.6 * (ref.x1 - ref.x0):
            return False
    mids = [ln.y_at((ln.x0 + ln.x1) / 2) for ln in group]
    gaps = np.diff(mids)
    if np.any(gaps < 1.15 * hm) or np.any(gaps > 3.8 * hm):
        return False
    if len(gaps) == 2 and max(gaps) > 1.3 * min(gaps):
        return False
    if len(group) == 3 and np.mean([(ln.x1 - ln.x0) / ln.height for ln in group]) > 36:
        return False  # three lines of 44-character width: a text line stacked on a 2-line MRZ
    return True


_MEASURE = object()


def find_mrz_levelled(gray: np.ndarray, limit: int = 2, open_thin: bool | None = None,
                      axes: bool = True, angle: "float | None" = _MEASURE) -> list[FoundMRZ]:
    """MRZ-like blocks, most likely first, each in the image levelled by the text direction.

    The block may still be upside down: its reader tries both ways. When the text
    direction cannot be told, the image is searched as it is and turned a quarter.
    ``axes=False``: not also along the image axes when the text direction finds nothing
    (about 1 MRZ in 20 is found only there; for images not expected to carry one).
    ``angle``: the text direction (:func:`text_angle`) when the caller has it already.
    """
    return ZoneSearch(gray).levelled(limit, open_thin, axes, angle)


def find_mrz_at(gray: np.ndarray, angle: float, limit: int = 2, open_thin: bool | None = None) -> list[FoundMRZ]:
    """MRZ-like blocks of ``gray`` levelled by ``angle`` (see :func:`rotate_degrees`), most likely first."""
    return ZoneSearch(gray).at(angle, limit, open_thin)


class ZoneSearch:
    """The zone searched for in one grayscale image in any direction, as often as a reader asks: each direction's
    turned, reduced and binarised image is made once, each search's blocks found once (the same
    :class:`FoundMRZ` objects when asked for again, so a reader can tell a block it has read already)."""

    def __init__(self, gray: np.ndarray, labelled: Labelled | None = None):
        """``labelled``: ``gray`` binarised and labelled already (its glyph map when made unreduced)."""
        self.gray = gray
        self._labelled = labelled
        self._at: dict = {}  # angle -> (levelled full-resolution image, its 2x3 matrix, _Levelled)
        self._found: dict = {}

    def levelled(self, limit: int = 2, open_thin: bool | None = None, axes: bool = True,
                 angle: "float | None" = _MEASURE) -> list[FoundMRZ]:
        """:func:`find_mrz_levelled` of this image."""
        if angle is _MEASURE:
            angle = text_angle(self.gray)
        # The estimate can follow other text (a barcode, a stamp, a blurred page): the image axes come next.
        tries = ([] if angle is None else [angle]) + [a for a in (0.0, 90.0) if angle is None or
                                                      (axes and angle_apart(a, angle) > SAME_DIRECTION)]
        for a in tries:
            found = self.at(a, limit=limit, open_thin=open_thin)
            if found:
                return found
        return []

    def at(self, angle: float, limit: int = 2, open_thin: bool | None = None) -> list[FoundMRZ]:
        """:func:`find_mrz_at` of this image."""
        angle = float(angle)
        if angle not in self._at:
            labelled = None
            if abs(angle) < 0.3:
                levelled, m, labelled = self.gray, np.array([[1.0, 0, 0], [0, 1.0, 0]]), self._labelled
            else:
                levelled, m = rotate_degrees(self.gray, angle)
            self._at[angle] = (levelled, m, _Levelled(levelled, labelled=labelled))
        levelled, m, search = self._at[angle]
        blocks = search.candidates(limit, open_thin)
        key = (angle, id(blocks))
        if key not in self._found:
            self._found[key] = (blocks, [FoundMRZ(levelled, b, angle, m) for b in blocks])
        return self._found[key][1]


def angle_apart(a: float, b: float) -> float:
    """Difference of two line directions (modulo 180 degrees)."""
    return abs((a - b + 90.0) % 180.0 - 90.0)


def _invert_affine(m: np.ndarray) -> np.ndarray:
    full = np.vstack([m, [0.0, 0.0, 1.0]])
    return np.linalg.inv(full)[:2]


def rotate_degrees(gray: np.ndarray, angle: float) -> tuple[np.ndarray, np.ndarray]:
    """Turn the image so that lines rising at ``angle`` (image coordinates) become horizontal.

    The canvas grows to hold the whole turned image. Returns the image and the
    2x3 matrix from input to output coordinates.
    """
    h, w = gray.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
    m[0, 2] += nw / 2 - w / 2
    m[1, 2] += nh / 2 - h / 2
    out = cv2.warpAffine(gray, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out, m


def cut_strip(gray: np.ndarray, line: TextLine, scale: float = 1.0, *, pad: tuple[float, float] = (0.7, 0.7),
              dy: float = 0.0, half_height: float = 0.85) -> np.ndarray:
    """(LINE_H, LINE_W) float32 strip along ``line`` from the *full-resolution* image; ink = 1, paper = 0.

    ``line`` geometry is in detection coordinates (input * ``scale``). The strip
    runs from ``pad[0]`` line heights before the line to ``pad[1]`` after it,
    ``half_height`` line heights above and below its centre (``dy`` shifts it
    down); training varies these to teach the recogniser imperfect detections.
    """
    inv = 1.0 / scale
    hh = line.height
    xa, xb = line.x0 - pad[0] * hh, line.x1 + pad[1] * hh
    norm = float(np.hypot(1.0, line.slope))
    nx, ny = -line.slope / norm, 1.0 / norm  # unit normal, pointing down
    half = half_height * hh
    off = dy * hh
    left = np.array([xa, line.y_at(xa)]) + (off - half) * np.array([nx, ny])
    right = np.array([xb, line.y_at(xb)]) + (off - half) * np.array([nx, ny])
    below = left + 2 * half * np.array([nx, ny])
    length = float(np.hypot(*(right - left))) * inv
    height = 2 * half * inv
    # Cut at native resolution, then shrink with area averaging (a warp alone would alias).
    out_w, out_h = max(8, int(round(length))), max(4, int(round(height)))
    src = np.float32([left, right, below]) * inv
    dst = np.float32([[0, 0], [out_w, 0], [0, out_h]])
    native = cv2.warpAffine(gray, cv2.getAffineTransform(src, dst), (out_w, out_h), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
    shrink = out_w > LINE_W or out_h > LINE_H
    strip = cv2.resize(native, (LINE_W, LINE_H), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    return normalise_strip(strip)


def normalise_strip(strip: np.ndarray) -> np.ndarray:
    """Ink = 1, paper = 0 (robust min/max, so glare and dark paper look alike)."""
    lo, hi = np.percentile(strip, (2, 98))
    rng = max(float(hi - lo), 24.0)
    return np.clip((np.float32(hi) - strip.astype(np.float32)) / np.float32(rng), 0.0, 1.0)
