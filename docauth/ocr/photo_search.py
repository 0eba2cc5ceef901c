"""One photo's zone search as :meth:`docauth.ocr.reader.DocumentReader.find_zone` makes it: the zone searched on
the photo, the document located, the zone read again on the located document. Each is made once however often
the search asks: a card "front" that may be a page with a zone is searched again without a side, which repeats
what the first search did (the same reads, the same outline).

What is handed out again is a copy, the same every time: the search changes reads and outlines as it settles
them (a zone judged at its glyph pitch, a booklet's outline cut to its data page).
"""

from __future__ import annotations

import copy
from dataclasses import replace

import cv2
import numpy as np

from docauth.ocr import locate
from docauth.ocr.mrz.reader import MRZRead, MRZReader, ZoneReading

# Long side of the located document when its MRZ is read again on it (a TD3 line then spans ~600 px).
DOCUMENT_READ_SIDE = 1400


class PhotoSearch:
    """The zone searches of one RGB ``image``, each made once (see the module). ``again``: whether the search may
    ask for them again; without, each is handed out as made, neither copied nor kept."""

    def __init__(self, mrz_reader: MRZReader, outline_model, image: np.ndarray, *, again: bool):
        self.mrz_reader = mrz_reader
        self.outline_model = outline_model
        self.image = image
        self.again = again
        self._photo: ZoneReading | None = None
        self._made: dict = {}

    def read_photo(self, *, expected: bool) -> MRZRead | None:
        """The zone read on the photo's luminance (:meth:`MRZReader.read` of its gray image)."""
        if self._photo is None:
            self._photo = self.mrz_reader.reading(cv2.cvtColor(self.image, cv2.COLOR_RGB2GRAY))
        return self._once(("photo", expected), lambda: self._photo.read(expected=expected))

    def locate(self, *, shapes: tuple[float, ...] | None) -> locate.Located:
        """:func:`locate.locate_document` of the photo with no expected place (a valid zone's place differs with
        the zone: that search is not kept)."""
        return self._once(("located", shapes), lambda: self._locate(shapes))

    def _locate(self, shapes: tuple[float, ...] | None) -> locate.Located:
        # The quads the contour search weighs do not depend on the shapes preferred: another preference chooses
        # again among them, as locate_any_shape does.
        weighed = next((made.candidates for key, made in self._made.items()
                        if key[0] == "located" and made.candidates is not None), None)
        if weighed is None:
            return locate.locate_document(self.image, self.outline_model, shapes=shapes)
        chosen = locate.choose_quad(weighed, shapes, frame=locate.frame_corners(self.image.shape))
        return replace(chosen, candidates=weighed)

    def locate_any_shape(self, located: locate.Located) -> locate.Located:
        """:func:`locate.locate_any_shape` of the photo for ``located``, a copy: the quads it chooses among may
        be chosen among again."""
        return _copied(locate.locate_any_shape(self.image, located, self.outline_model))

    def read_on_document(self, corners: np.ndarray) -> MRZRead | None:
        """The MRZ read again on the located document, warped flat at reading size.

        On the photo as taken the MRZ was missed or misread where the document is small in the frame
        (a booklet on a flatbed page: glyphs 7 px tall after the search's downscale), blurred and tilted,
        or beside text-like clutter (a keyboard) that the search took for the zone. The warped document
        has none of those. Costs one more MRZ search, only when the first found nothing valid.
        """
        corners = np.asarray(corners, np.float64)
        return self._once(("document", corners.tobytes()), lambda: self._read_on_document(corners))

    def _read_on_document(self, corners: np.ndarray) -> MRZRead | None:
        # Warped in colour: where luminance reads no valid zone, the reader looks again in black ink alone.
        flat, homography = locate.warp(self.image, corners, max_long_side=DOCUMENT_READ_SIDE,
                                       min_long_side=DOCUMENT_READ_SIDE)
        read = self.mrz_reader.read(flat, expected=True)
        if read is not None:
            read.found = replace(read.found, outer=np.linalg.inv(homography))
        return read

    def _once(self, key, make):
        if not self.again:
            return make()
        if key not in self._made:
            self._made[key] = make()  # never handed out itself
        return _copied(self._made[key])


def _copied(made):
    """A copy of a read or an outline whose changes (attributes set, its result judged) leave ``made`` as it is."""
    if isinstance(made, MRZRead):
        return replace(made, result=copy.deepcopy(made.result))
    if isinstance(made, locate.Located):
        return replace(made, info=dict(made.info))
    return made
