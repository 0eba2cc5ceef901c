"""Find the machine-readable zone in an image and cut it into character cells.

MRZ text is fixed-pitch OCR-B, so reading it is a segmentation problem plus a
37-class glyph classifier:

1. binarise (adaptive threshold) and take connected components of text size;
2. chain components on the same baseline into text lines;
3. an MRZ is 2 or 3 long, regular, left-aligned, equally spaced lines;
4. each line is cut into N cells (N = 30, 36 or 44) on a regular grid fitted to
   the component centres, so merged or broken glyphs still land in one cell.

The cells go to the glyph model (:mod:`docauth.ocr.glyphs`); this module only
does geometry and is shared by training (cells from rendered MRZs) and
inference, so both see the same crops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CELL_H, CELL_W = 32, 24  # glyph model input
LINE_LENGTHS = {3: (30,), 2: (44, 36)}


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


def _binarise(gray: np.ndarray) -> np.ndarray:
    import cv2

    h, w = gray.shape
    block = int(max(15, min(101, (min(h, w) * 0.06)))) | 1
    return cv2.adaptiveThreshold(gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 10)


def _components(binary: np.ndarray, min_h: int, max_h: int) -> np.ndarray:
    import cv2

    n, _labels, stats, _c = cv2.connectedComponentsWithStats(binary, connectivity=8)
    s = stats[1:]
    x, y, w, h, area = s[:, 0], s[:, 1], s[:, 2], s[:, 3], s[:, 4]
    # Wide components are kept: blur merges runs of '<' into one zig-zag, still part of the line.
    keep = (h >= min_h) & (h <= max_h) & (w <= 30 * h) & (w >= 1) & (area >= 0.08 * w * h) & (area <= 0.95 * w * h + 4)
    return s[keep, :4].astype(np.float64)


def _chain_lines(boxes: np.ndarray) -> list[np.ndarray]:
    """Union components that sit side by side on the same baseline."""
    n = len(boxes)
    if n == 0:
        return []
    parent = list(range(n))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    order = np.argsort(boxes[:, 0])
    b = boxes[order]
    cx_right = b[:, 0] + b[:, 2]
    cy = b[:, 1] + b[:, 3] / 2
    hh = b[:, 3]
    for a in range(n):
        reach = cx_right[a] + 1.3 * hh[a]
        for c in range(a + 1, n):
            if b[c, 0] > reach:
                break
            hmax = max(hh[a], hh[c])
            if abs(cy[a] - cy[c]) > 0.3 * hmax:
                continue
            if min(hh[a], hh[c]) < 0.45 * hmax:
                continue
            if b[c, 0] - cx_right[a] > 1.3 * hmax:
                continue
            ra, rc = find(a), find(c)
            if ra != rc:
                parent[rc] = ra
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return [b[idx] for idx in groups.values() if len(idx) >= 4]


def _merge_rows(chains: list[np.ndarray], max_gap: float = 2.6) -> list[np.ndarray]:
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
    return [ln.boxes for ln in items]


def _make_line(boxes: np.ndarray) -> TextLine:
    boxes = boxes[np.argsort(boxes[:, 0])]
    h = float(np.percentile(boxes[:, 3], 80))
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
            slope, intercept = np.polyfit(cx[keep], cy[keep], 1)
            keep = np.abs(cy - (slope * cx + intercept)) < 0.2 * h
    return TextLine(boxes=boxes, height=h, x0=float(boxes[:, 0].min()),
                    x1=float((boxes[:, 0] + boxes[:, 2]).max()), slope=float(slope), intercept=float(intercept))


def find_text_lines(gray: np.ndarray, open_thin: bool = False) -> list[TextLine]:
    import cv2

    h, w = gray.shape
    binary = _binarise(gray)
    if open_thin:
        # Hair-line guilloche crossing the glyphs welds them into one huge component: cut it off.
        binary = cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    boxes = _components(binary, min_h=6, max_h=max(8, h // 3))
    return [_make_line(g) for g in _merge_rows(_chain_lines(boxes)) if len(g) >= 8]


def _is_mrz_line(line: TextLine) -> bool:
    extent = line.x1 - line.x0
    return line.count >= 18 and extent >= 16 * line.height and abs(line.slope) < 0.15


def find_mrz(gray: np.ndarray, max_side: int = 1400) -> MRZBlock | None:
    """The most MRZ-like block (2-3 lines) in a grayscale image, or None."""
    found = find_mrz_candidates(gray, max_side=max_side, limit=1)
    return found[0] if found else None


def find_mrz_candidates(gray: np.ndarray, max_side: int = 1400, limit: int = 3) -> list[MRZBlock]:
    """MRZ-like blocks, most likely first (more characters, three lines before two)."""
    import cv2

    scale = 1.0
    h, w = gray.shape
    if max(h, w) > max_side:
        scale = max_side / max(h, w)
        gray = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    out = _candidates(gray, scale, limit, open_thin=False)
    if not out:
        out = _candidates(gray, scale, limit, open_thin=True)
    return out


def _candidates(gray: np.ndarray, scale: float, limit: int, open_thin: bool) -> list[MRZBlock]:
    lines = [ln for ln in find_text_lines(gray, open_thin=open_thin) if _is_mrz_line(ln)]
    lines.sort(key=lambda ln: ln.intercept + ln.slope * (ln.x0 + ln.x1) / 2)
    scored = []
    for i in range(len(lines)):
        for k in (3, 2):
            group = lines[i:i + k]
            if len(group) != k:
                continue
            group = _trim_to_common_range(group)
            if group is None or not _aligned(group):
                continue
            scored.append((sum(ln.count for ln in group) + (5 if k == 3 else 0), i, k, group))
    scored.sort(key=lambda t: -t[0])
    out = []
    for _score, _i, _k, group in scored[:limit]:
        out.append(_block(group, scale))
    return out


def _block(group: list[TextLine], scale: float) -> MRZBlock:
    import copy

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
        if keep.sum() < 8:
            return None
        out.append(_make_line(b[keep]) if not keep.all() else ln)
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


def fit_grid(line: TextLine, n_chars: int) -> tuple[float, float]:
    """(first centre, pitch) of an ``n_chars`` fixed-pitch line, fitted to its components."""
    pitch = (line.x1 - line.x0) / (n_chars - 1 + 0.75)
    c0 = line.x0 + 0.375 * pitch
    boxes = line.boxes
    cx = boxes[:, 0] + boxes[:, 2] / 2
    single = boxes[:, 2] <= 1.15 * pitch  # merged glyphs have no single centre
    for _ in range(3):
        idx = np.round((cx[single] - c0) / pitch)
        ok = (idx >= 0) & (idx < n_chars)
        if ok.sum() < max(4, n_chars // 4):
            break
        resid_cx = cx[single][ok]
        k = idx[ok]
        if np.ptp(k) < 2:
            break
        p, c = np.polyfit(k, resid_cx, 1)
        if not (0.7 * pitch < p < 1.3 * pitch):
            break
        pitch, c0 = float(p), float(c)
    return c0, pitch


def cut_cells(gray: np.ndarray, line: TextLine, n_chars: int, scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
    """(n_chars, CELL_H, CELL_W) float32 cells in [0, 1], ink bright, from the *full-resolution* image.

    ``line`` geometry is in detection coordinates (input * ``scale``).
    """
    import cv2

    c0, pitch = fit_grid(line, n_chars)
    c0 += shift * pitch  # shift = +-1: the grid slipped by a glyph (first glyph lost in the detection)
    inv = 1.0 / scale
    half_w = 0.62 * pitch * inv
    half_h = 0.78 * line.height * inv
    out = np.zeros((n_chars, CELL_H, CELL_W), np.float32)
    H, W = gray.shape
    for i in range(n_chars):
        xd = c0 + i * pitch
        yd = line.y_at(xd)
        x, y = xd * inv, yd * inv
        # Sub-pixel crop keeps small glyphs centred (they are ~10 px wide on the specimens).
        src = np.float32([[x - half_w, y - half_h], [x + half_w, y - half_h], [x - half_w, y + half_h]])
        dst = np.float32([[0, 0], [CELL_W, 0], [0, CELL_H]])
        m = cv2.getAffineTransform(src, dst)
        cell = cv2.warpAffine(gray, m, (CELL_W, CELL_H), flags=cv2.INTER_AREA if half_w * 2 > CELL_W else cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
        out[i] = cell
    return normalise_cells(out)


def normalise_cells(cells: np.ndarray) -> np.ndarray:
    """Per cell: ink = 1, paper = 0 (robust min/max)."""
    flat = cells.reshape(len(cells), -1)
    lo = np.percentile(flat, 3, axis=1)[:, None, None]
    hi = np.percentile(flat, 97, axis=1)[:, None, None]
    rng = np.maximum(hi - lo, 24.0)
    x = (hi - cells) / rng
    return np.clip(x, 0.0, 1.0).astype(np.float32)


def mrz_skew_degrees(gray: np.ndarray) -> float | None:
    """Tilt of long text lines steeper than the MRZ finder accepts, or None.

    Used when no MRZ is found in a photo nobody could rectify: the image is
    turned by this angle and searched again.
    """
    lines = [ln for ln in find_text_lines(gray) if ln.count >= 18 and abs(ln.slope) >= 0.1]
    if not lines:
        return None
    slope = float(np.median([ln.slope for ln in lines]))
    return float(np.degrees(np.arctan(slope)))


def rotate_degrees(gray: np.ndarray, angle: float) -> np.ndarray:
    """Turn the image so that lines rising at ``angle`` (image coordinates) become horizontal."""
    import cv2

    h, w = gray.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(h * sin + w * cos), int(h * cos + w * sin)
    m[0, 2] += nw / 2 - w / 2
    m[1, 2] += nh / 2 - h / 2
    return cv2.warpAffine(gray, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
