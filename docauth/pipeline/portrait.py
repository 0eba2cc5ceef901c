"""Where the portrait is on an upright, rectified document, so the face stage searches there first.

    for region in portrait_regions(page.shape, zone_top=0.74, zone_type="TD3"):   # (x0, y0, x1, y1)
        encoding, info = faces.encode(page, region=region)
        if encoding is not None:
            break

ICAO 9303 puts the portrait at the left of a passport data page and of a card's front, above the
machine-readable zone; some national cards print it at the right instead (never a passport's data page, which
a TD3 zone names). A portrait elsewhere is found by the face stage's fall-back, the search over the whole
page and the photo.
"""

from __future__ import annotations

# The share of the page's width searched from its left (then its right) edge: the portrait (35 mm of a 125 mm
# data page, 25 mm of an 86 mm card, printed about 4 mm in) with room for a box the detector draws wider.
SIDE_SHARE = 0.45
# Below this height a page is too small for the detector's plain search of a cut-out: the whole page is searched.
MIN_PAGE_HEIGHT = 240


def portrait_regions(shape, zone_top: float | None = None, zone_type: str | None = None
                     ) -> list[tuple[int, int, int, int]]:
    """(x0, y0, x1, y1) pixels of the page where its portrait should be, most likely first; [] when the page
    is too small or not a document's upright shape. Above the zone when ``zone_top`` (a fraction of the
    page's height) is known; the left only under a passport's zone (``zone_type`` TD3)."""
    height, width = int(shape[0]), int(shape[1])
    if height < MIN_PAGE_HEIGHT or width <= height:  # an upright document is wider than tall
        return []
    bottom = height
    if zone_top is not None and 0.3 < float(zone_top) < 1.0:
        bottom = int(round(float(zone_top) * height))  # a zone higher than that is a misread: not trusted
    side = int(round(width * SIDE_SHARE))
    left = (0, 0, side, bottom)
    return [left] if zone_type == "TD3" else [left, (width - side, 0, width, bottom)]

