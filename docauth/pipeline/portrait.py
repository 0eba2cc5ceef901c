"""Where the portrait is on an upright, rectified document, so the face stage searches there first.

    regions = portrait_regions(page.shape, zone_top=0.74, zone_type="TD3")   # [(x0, y0, x1, y1), ...]
    encoding, info = faces.encode(page, regions=regions)
    if encoding is None and not portrait_on_page(page.shape, located=True, zone_type="TD3", zone_valid=True):
        ...  # only then the photo and the whole page

ICAO 9303 puts the portrait at the left of a passport data page and of a card's front, above the
machine-readable zone; some national cards print it at the right instead (never a passport's data page, which
a TD3 zone names). A portrait elsewhere is found by the face stage's fall-back, the search over the whole
page and the photo, except where the page is sure to hold it (:func:`portrait_on_page`).
"""

from __future__ import annotations

# The share of the page's width searched from its left (then its right) edge: the portrait (35 mm of a 125 mm
# data page, 25 mm of an 86 mm card, printed about 4 mm in) with room for a box the detector draws wider.
SIDE_SHARE = 0.45
# Below this height a page is too small for the detector's plain search of a cut-out: the whole page is searched.
MIN_PAGE_HEIGHT = 240
# Zone formats printed on the portrait's own page: a passport's data page (TD3), a TD2 document, a visa. A TD1
# zone is on a card's back, the portrait on its front (elsewhere in a photo of both sides).
PORTRAIT_PAGE_ZONES = frozenset({"TD3", "TD2", "MRVA", "MRVB"})
# Wider than this is no one page (ICAO pages are 1.42-1.59 wide for 1 high): an open booklet's two pages.
MAX_PAGE_ASPECT = 2.0


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


def portrait_on_page(shape, *, located: bool, zone_type: str | None, zone_valid: bool) -> bool:
    """Whether the page (of ``shape``) is sure to hold the portrait where :func:`portrait_regions` puts it: one
    document's page (not an open booklet's spread, twice as wide), located in the photo (not the whole frame
    taken for one), whose zone passes its checks in a format printed on the portrait's page. Then a face not
    found there is not looked for over the page and the photo."""
    height, width = int(shape[0]), int(shape[1])
    one_page = height > 0 and width / height < MAX_PAGE_ASPECT
    return bool(one_page and located and zone_valid and zone_type in PORTRAIT_PAGE_ZONES)
