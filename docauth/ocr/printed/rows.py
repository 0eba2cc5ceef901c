"""Lines printed on one row as one value: the detector may cut a value at a wide space ("20 FEB" and "1979").

A value's parts stand side by side at one height and one size, a word space or two apart; a value printed
beside another field's stands further off, or in a column of its own.

>>> from types import SimpleNamespace as Line
>>> day, year = Line(x0=497, y0=226, x1=625, y1=257), Line(x0=637, y0=225, x1=723, y1=254)
>>> far, small = Line(x0=900, y0=226, x1=990, y1=257), Line(x0=640, y0=231, x1=700, y1=246)
>>> [[(part.x0, part.x1) for part in run] for run in row_runs([year, day, far])]
[[(497, 625), (637, 723)]]
>>> row_runs([day, small]), row_runs([day])
([], [])
"""

from __future__ import annotations

# How far apart the parts of one value may stand, in line heights: a word space is about a third of the
# height, a wide one (dates spaced out for legibility) a whole height; columns stand several apart.
ROW_GAP = 1.2
ROW_OVERLAP = -0.3  # boxes grown by the detector may overlap a little
ROW_CENTRE = 0.35  # of the taller line's height: how far the parts' centres may stand apart vertically
ROW_HEIGHTS = 0.7  # the smaller part's height over the larger's: one type size
ROW_PARTS = 3  # a date cut at both its spaces
# A stamp, a hologram or a fold over a value hides a few of its glyphs from the detector, which cuts the value
# there, further apart than a word space: up to this many line heights (about four glyphs).
BRIDGE_GAP = 2.2


def beside(left, right) -> bool:
    """Does ``right`` continue ``left`` on its row, as the next part of one printed value?"""
    h = max(left.y1 - left.y0, right.y1 - right.y0, 1.0)
    return _on_row(left, right) and ROW_OVERLAP * h <= right.x0 - left.x1 <= ROW_GAP * h


def row_runs(lines: list) -> list[list]:
    """Every run of two or more lines (up to ``ROW_PARTS``) that continue each other left to right on one row,
    each line followed by its nearest continuation."""
    ordered = sorted(lines, key=lambda line: line.x0)
    following = {}
    for i, left in enumerate(ordered):
        nexts = [right for right in ordered[i + 1:] if right is not left and beside(left, right)]
        if nexts:
            following[id(left)] = min(nexts, key=lambda right: right.x0)
    runs = []
    for line in ordered:
        run = [line]
        while len(run) < ROW_PARTS and id(run[-1]) in following:
            run.append(following[id(run[-1])])
            runs.append(list(run))
    return runs


def bridges(lines: list) -> list[tuple[float, float, float, float]]:
    """The spans (x0, y0, x1, y1) from each line to its nearest neighbour on its row, where the gap between them
    is wider than a value's own spaces but no wider than ``BRIDGE_GAP``: a value whose middle the detector lost
    under a stamp, to be read across, nearest pairs first. So is a neighbour that overlaps a line by more than
    detector boxes do (a value cut in two over a busy background, a glyph or two in both parts), overlapping
    pairs first: neither part, nor both joined, reads as the value.

    >>> from types import SimpleNamespace as Line
    >>> left, right = Line(x0=310, y0=166, x1=383, y1=192), Line(x0=425, y0=169, x1=460, y1=190)
    >>> bridges([right, left]), bridges([left, Line(x0=520, y0=166, x1=600, y1=192)])
    ([(310, 166, 460, 192)], [])
    >>> bridges([left, Line(x0=360, y0=167, x1=440, y1=192)])
    [(310, 166, 440, 192)]
    """
    ordered = sorted(lines, key=lambda line: line.x0)
    spans = []
    for i, left in enumerate(ordered):
        h = max(left.y1 - left.y0, 1.0)
        nexts = [right for right in ordered[i + 1:] if right.x0 > left.x0 and right.x1 > left.x1
                 and _on_row(left, right) and right.x0 - left.x1 <= BRIDGE_GAP * max(h, right.y1 - right.y0)]
        if nexts:
            right = min(nexts, key=lambda line: line.x0)
            if not beside(left, right):  # parts a word space apart are joined as read already
                spans.append((right.x0 - left.x1, (left.x0, min(left.y0, right.y0), right.x1, max(left.y1, right.y1))))
    return [span for _, span in sorted(spans, key=lambda s: s[0])]


def _on_row(left, right) -> bool:
    """One type size, centres at one height."""
    h_left, h_right = left.y1 - left.y0, right.y1 - right.y0
    h = max(h_left, h_right, 1.0)
    return (min(h_left, h_right) >= ROW_HEIGHTS * h
            and abs((left.y0 + left.y1) / 2 - (right.y0 + right.y1) / 2) <= ROW_CENTRE * h)
