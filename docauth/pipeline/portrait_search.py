"""The face stage's search for the portrait (see :class:`PortraitSearch`): beside OCR in a realtime check, after
it in a batch check, the same looks in the same order."""

from __future__ import annotations

import numpy as np

from docauth.pipeline.portrait import portrait_regions


class PortraitSearch:
    """The portrait search: where the layout puts the portrait on the rectified page as soon as OCR has made
    it and read its zone (:func:`~docauth.pipeline.portrait.portrait_regions`: on a
    passport's page, at its left above the zone). When no face is there: on a page OCR's read is sure holds
    the portrait (``result(leave_page=False)``), the same places more closely; else the whole page and the
    photo (quick sizes), then the page turned half-way and the photo at the larger size. When OCR made no
    page, the photo, once the check asks.

    ``rectified_ready`` is OCR's ``on_rectified`` callback (realtime), or called once OCR is done (batch).
    ``encode_places_timed(page, regions, closer=)`` searches the page's portrait places. ``pool`` None: each
    look runs in the caller's thread when it is asked for (a batch check, whose workers fill the cores).
    ``unwanted(zone)``: whether the zone OCR hands over already decides a side that carries no portrait (a card's
    back); then the page's look waits until the check asks for the face, as it does in a batch check.
    """

    def __init__(self, pool, encode_timed, encode_places_timed, photo, *, tail_pool=None, unwanted=None):
        self._pool, self._encode_timed, self._encode_places_timed = pool, encode_timed, encode_places_timed
        self._photo_image = photo
        self._unwanted = unwanted
        self._followup = None
        self._tail_pool = tail_pool  # set: the last two searches run at once
        self._searched: list[str] = []
        self._regions: list = []  # the page's portrait places, from its shape and zone
        self._upright = None  # the page OCR handed over
        self.searched_large = False
        self.left_page = False  # whether the search went beyond the page's portrait places

    @property
    def searched(self) -> str:
        return ", ".join(self._searched)

    def rectified_ready(self, upright, zone=None) -> None:
        """``zone``: the page's MRZ as read (its ``zone_top`` and ``type``), or None."""
        self._upright = upright
        if self._pool is None or (self._unwanted is not None and self._unwanted(zone)):
            # Looked at when the check asks: a batch check asks at once; a side without a portrait never does, and
            # a look run beside OCR would be CPU spent on an answer nobody reads.
            self._followup = _WhenAsked(self._on_page, upright, zone)
        else:
            self._followup = self._pool.submit(self._on_page, upright, zone)

    def _on_page(self, upright, zone, name: str = "rectified portrait"):
        """(encoding or None, info, ms, page): the portrait's places on the page."""
        page = np.ascontiguousarray(upright)
        place = (zone.zone_top, zone.type) if zone is not None else (None, None)
        self._regions = portrait_regions(page.shape, *place)
        if not self._regions:  # the page has no place to search (too small, not a document's shape)
            return None, {}, 0.0, page
        encoding, info, ms = self._encode_places_timed(page, self._regions)
        self._searched.append(name)
        return encoding, info, ms, page

    def _off_page(self, page, ms):
        # The whole rectified page first (its long side is ~1,000 px: the larger copy adds nothing): its face is
        # seen square-on, which the descriptor matches better than the photo's face seen at the capture's angle.
        encoding, info, more_ms = self._encode_timed(page, large=False)
        self._searched.append("rectified")
        ms += more_ms
        if encoding is not None:
            return encoding, info, ms
        encoding, info, more_ms = self._encode_timed(self._photo_image, large=False)
        self._searched.append("photo")
        ms += more_ms
        if encoding is not None:
            return encoding, info, ms
        # Then the page turned half-way (HOG finds upright faces only, and a page without an MRZ can be read
        # upside down) and the photo at the larger size (a small card far from the camera). When the face
        # stage serves two calls at once (its processes), both run together: by now OCR is nearly done
        # and the other core is free; the first in this order that finds a face is taken.
        large = (self._tail_pool.submit(self._encode_timed, self._photo_image, upsampled=False)
                 if self._tail_pool is not None else None)
        encoding, info, turned_ms = self._encode_timed(np.ascontiguousarray(page[::-1, ::-1]), large=False)
        self._searched.append("rectified turned 180")
        if encoding is not None or large is None:
            # A hit on the preferred search (a running larger one finishes unread), or no second search:
            # in process, the caller makes the larger search last.
            return encoding, info, ms + turned_ms
        encoding, info, large_ms = large.result()
        self._searched.append("photo (large)")
        self.searched_large = True
        return encoding, info, ms + max(turned_ms, large_ms)

    def result(self, *, leave_page: bool = True, read_page=None, read_zone=None):
        """(encoding or None, info, milliseconds spent searching). ``leave_page``: whether a face not found on
        the page's portrait places is looked for beyond them (False: OCR's read puts the portrait there, and
        they are searched once more, closer). ``read_page``, ``read_zone``: the page OCR's read ended on and
        its zone; the search goes on there when it is another page than the one OCR handed over."""
        if self._followup is None:  # OCR made no page (it failed, or there is no reader): the photo
            self.left_page = True
            encoding, info, ms = self._encode_timed(self._photo_image, large=False)
            self._searched.append("photo")
        else:
            encoding, info, ms, page = self._followup.result()
            if encoding is None and read_page is not None and read_page is not self._upright:
                # OCR read another page than the one it handed over (that outline was the portrait or a band
                # of the card, or the page was the other way up): the read page's places, then beyond them.
                encoding, info, more_ms, page = self._on_page(read_page, read_zone, "read page portrait")
                ms += more_ms
            if encoding is None and info and not leave_page:  # the page holds the portrait: there, closer
                encoding, info, more_ms = self._encode_places_timed(page, self._regions, closer=True)
                self._searched.append("rectified portrait (closer)")
                ms += more_ms
            elif encoding is None:
                self.left_page = True
                encoding, info, ms = self._off_page(page, ms)
        info["searched"] = self.searched
        return encoding, info, ms


class _WhenAsked:
    """A look read as a pool's future is, run in the caller's thread at its first ``result()``."""

    def __init__(self, look, *args):
        self._look, self._args = look, args
        self._done = False
        self._value = None

    def result(self):
        if not self._done:
            self._value, self._done = self._look(*self._args), True
        return self._value
