"""Text boxes by morphology (cheap, no model): where words are, for telling which way up a page is.

Ink is thresholded locally, glyph-shaped components kept, closed horizontally into word groups.
"""

from __future__ import annotations

import cv2
import numpy as np

MAX_TEXT_BOXES = 60  # top to bottom
WORD_BOX_ASPECT = 1.5  # a box this many times wider than tall holds a word (two glyphs or more)


def text_boxes(gray: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Word-group boxes (x0, y0, x1, y1) of printed text: ink closed horizontally, filtered by shape."""
    h, w = gray.shape
    ink = cv2.adaptiveThreshold(cv2.GaussianBlur(gray, (3, 3), 0), 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                cv2.THRESH_BINARY_INV, 41, 18)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
    st = stats[1:]
    cw, ch, area = st[:, 2], st[:, 3], st[:, 4]
    # glyph-like components only: drops the photo, guilloche strokes and specks before closing
    # Sizes relative to the page's short side: an upright page is landscape, but a whole photo taken upright
    # is portrait, and its card's print is as small against its height as a card's small print would be.
    side = min(h, w)
    glyph = (ch >= 0.012 * side) & (ch <= 0.09 * side) & (cw <= 25 * ch) & (area >= 0.05 * cw * ch)
    keep = np.zeros(n, np.uint8)
    keep[1:][glyph] = 255
    ink = keep[labels]
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (int(0.024 * w) | 1, 1)))
    n2, _l2, st2, _c2 = cv2.connectedComponentsWithStats(closed, connectivity=8)
    out = []
    for x, y, bw, bh in _without_tall_ends(st2, st[glyph]):
        if bh < 0.012 * side or bh > 0.1 * side or bw < 0.6 * bh:
            continue
        out.append((int(x), int(y), int(x + bw), int(y + bh)))
    if len(out) > MAX_TEXT_BOXES:
        # Clutter (a keyboard's keys, a page of print beside the card) would fill the budget from the top: words
        # go first, boxes of a glyph or two (a key, a speck) only while there is room.
        is_word = [b[2] - b[0] >= WORD_BOX_ASPECT * (b[3] - b[1]) for b in out]
        words = [b for b, w in zip(out, is_word) if w]
        glyphs = sorted((b for b, w in zip(out, is_word) if not w), key=lambda b: (b[1], b[0]))
        out = words + glyphs[:max(0, MAX_TEXT_BOXES - len(words))]
    out.sort(key=lambda b: (b[1], b[0]))
    return out[:MAX_TEXT_BOXES]


# A piece of background hair-line (guilloche) beside a word's first or last glyph is kept as a glyph and the
# closing joins it to the word, growing its box by half a line: an end glyph this many times taller than the
# word's median glyph is left out of the box.
TALL_END_GLYPH = 1.6


def _without_tall_ends(word_stats: np.ndarray, glyph_stats: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) of each closed word box (rows of ``word_stats``, background first), less a first or last
    glyph (rows of ``glyph_stats``: the glyphs kept, which the closing joined into words) far taller than the
    word's others."""
    words = word_stats[1:, :4].astype(int)
    glyphs = glyph_stats[:, :4].astype(int)
    boxes = [tuple(int(v) for v in row) for row in words]
    if not len(words) or not len(glyphs):
        return boxes
    # a glyph lies inside the box of the word the closing made of it (boxes only grow by joining)
    inside = ((words[None, :, 0] <= glyphs[:, None, 0]) & (words[None, :, 1] <= glyphs[:, None, 1])
              & (glyphs[:, None, 0] + glyphs[:, None, 2] <= words[None, :, 0] + words[None, :, 2])
              & (glyphs[:, None, 1] + glyphs[:, None, 3] <= words[None, :, 1] + words[None, :, 3]))
    for w in np.flatnonzero(inside.sum(0) >= 4):
        g = glyphs[inside[:, w]]
        g = g[np.argsort(g[:, 0], kind="stable")]
        median = float(np.median(g[:, 3]))
        ends = [k for k in (0, len(g) - 1) if g[k, 3] > TALL_END_GLYPH * median]
        if not ends:
            continue
        rest = np.delete(g, ends, axis=0)
        x0, y0 = rest[:, 0].min(), rest[:, 1].min()
        x1, y1 = (rest[:, 0] + rest[:, 2]).max(), (rest[:, 1] + rest[:, 3]).max()
        boxes[w] = (int(x0), int(y0), int(x1 - x0), int(y1 - y0))
    return boxes


def label_above(label, value) -> bool:
    """Boxes (x0, y0, x1, y1): ``label`` sits right above ``value``, left-aligned with it (within 1.5 label
    heights): how documents print a field. Also decides which way up a page without an MRZ is."""
    label_h = label[3] - label[1]
    return abs(value[0] - label[0]) < 1.5 * label_h and 0 <= value[1] - label[3] < 1.5 * label_h
