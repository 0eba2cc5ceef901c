"""The OCR stage: locate + rectify, read the MRZ, read the printed fields, cross-check.

    reader = DocumentReader.load()          # once per process (loads the glyph model)
    result = reader(rgb_image)              # OCRResult
    result.export()                         # JSON-safe dict

Stage object in the doctr style: ``preprocess`` (locate, rectify, orient),
``__call__``, ``postprocess`` (fields + consistency).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import cv2
import numpy as np

from docauth.errors import InvalidImage, ModelError
from docauth.ocr import locate, outline
from docauth.ocr.other_side import merged, missing_zone_values, no_zone_value, read_other_side
from docauth.ocr.photo_search import DOCUMENT_READ_SIDE, PhotoSearch
from docauth.ocr.mrz.confirm import confirm_in_print
from docauth.ocr.mrz.finder import LINE_H, LINE_W
from docauth.ocr.mrz.line_model import LABELS, MODEL_NAME
from docauth.ocr.mrz.parse import MRZResult, at_glyph_pitch
from docauth.ocr.mrz.reader import (MRZRead, MRZReader, better_in_black_ink, credible, rank, reading_zoom,
                                   zone_like)
from docauth.ocr.orient import card_outline_landscape, levelled, orient_by_text
from docauth.ocr.printed import PrintedRead, PrintedReader
from docauth.ocr.printed.assign import surely_differs
from docauth.ocr.printed.compare import compare_field, printed_name_words, printed_number_texts
from docauth.ocr.printed.detection import DETECTOR_MODEL
from docauth.ocr.quad import document_from_zone, side_lengths
from docauth.ocr.tesseract import tesseract_engine
from docauth.ocr.zone_geometry import (BOOKLET_TYPES, at_bottom_edge, checked_against_zone, data_page, holds_zone,
                                       zone_agreement, zone_top)
from docauth.runtime import load_model
from docauth.runtime.model import model_paths


# Card fronts seldom carry an MRZ (TD1 prints it on the back; TD2-style cards on the front do).
SIDES_WITHOUT_MRZ = frozenset({"front"})
# Fields taken from an MRZ that is not valid as a whole, over the printed read, when they pass their own check
# (names, which have none, are taken from any MRZ with its structure: see DocumentReader.postprocess).
CERTAIN_ON_THEIR_OWN = frozenset({"document_number", "date_of_birth", "expiry_date"})
NAME_FIELDS = ("surname", "given_names")
DATE_FIELDS = ("date_of_birth", "expiry_date")
TD1_ASPECT = 85.6 / 54.0  # ICAO 9303 part 5
# A rectified page within this of one TD1 card's proportions is that card alone (not both sides on one sheet).
ONE_CARD_ASPECT_SLACK = 0.2
# How far from a card's proportions a located "front" may be and still be taken for one without a zone search:
# half the way to a passport page's (1.42:1), so that perspective does not send card fronts to the search.
CARD_FRONT_ASPECT_SLACK = 0.09
FIELD_NAMES = ("surname", "given_names", "nationality", "sex", "date_of_birth", "document_number", "expiry_date")
LINE_MODEL = MODEL_NAME
# A page without an MRZ whose printed read gave this many of its five fields or fewer is read again (on the whole
# photo, then turned half-way), and the read with more fields is kept: the outline or the turn was wrong.
POOR_PRINTED_READ = 1
LAYOUT_ONLY_UNCOUNTED = frozenset({"document_number", "surname", "given_names"})
# A page that gave a field and read this many lines or more at a confident glyph probability was read where the
# document is and the right way up (a portrait, a band of the card or a page upside down reads few lines
# surely): its missing fields are the layout's (captions too faint to detect), which no other outline or turn
# reads better, so it is not read again.
READ_IN_PLACE_LINES = 6
READ_IN_PLACE_CONFIDENCE = 0.85
# The long side the whole photo is read at then: a card in part of the frame keeps legible print at this size.
WHOLE_FRAME_READ_SIDE = 1400
OUTLINE_MODEL = outline.MODEL_NAME
SAME_CORNERS_PX = 4.0  # two located outlines this close are the same
# A document this long (px) or longer in the image its zone is searched on prints zone glyphs of 10 px or more
# (a zone's glyphs are about 2 % of a page's width, 3 % of a card's): the search on the photo finds such lines
# as a zone whenever they are one; a smaller one's zone may be missed there (glyphs 7 px tall come apart).
SMALL_FOR_SEARCH = DOCUMENT_READ_SIDE / 2


@dataclass
class DocumentView:
    corners: list  # upright document's TL, TR, BR, BL in input image coordinates
    rotation: int  # CCW quarter-turn the document had in the input
    found: bool
    rectified: np.ndarray | None = field(default=None, repr=False)  # upright RGB, not exported

    def export(self) -> dict:
        return {"corners": [[float(x), float(y)] for x, y in self.corners], "rotation": int(self.rotation),
                "found": bool(self.found)}


@dataclass
class OCRResult:
    document: DocumentView
    mrz: MRZResult | None
    fields: dict
    consistency: dict
    timings_ms: dict
    viz: dict = field(default_factory=dict)  # the printed values alone, field -> value
    # Where each field's value comes from: "mrz" (under a passing check digit), "mrz_unchecked" (an MRZ
    # that fails its checks) or "viz" (the printed zone alone).
    sources: dict = field(default_factory=dict)
    printed: dict = field(default_factory=dict)  # field -> the printed read: value, text, how, sure, confidence
    unsure: set = field(default_factory=set)  # fields taken from print that were not read surely

    def export(self) -> dict:
        return {
            "document": self.document.export(),
            "mrz": None if self.mrz is None else self.mrz.export(),
            "fields": dict(self.fields),
            "sources": dict(self.sources),
            "printed": dict(self.printed),
            "unsure": sorted(self.unsure),
            "consistency": {k: dict(v) for k, v in self.consistency.items()},
            "timings_ms": {k: round(float(v), 1) for k, v in self.timings_ms.items()},
        }


class DocumentReader:
    """Locate, rectify, read MRZ + printed fields, cross-check."""

    def __init__(self, mrz_reader: MRZReader, *, printed: PrintedReader | None = None, outline_model=None,
                 tesseract=None):
        self.mrz_reader = mrz_reader
        self.printed = printed  # None: the MRZ alone is read
        self.outline_model = outline_model
        # a docauth.ocr.tesseract engine, for its orientation detector only (a tie-break when text layout cannot
        # tell upright from upside down); None: the process's "auto" one
        self.tesseract = tesseract

    @property
    def read_viz(self) -> bool:
        return self.printed is not None

    @classmethod
    def load(cls, models_dir: str | Path | None = None, backend: str | None = None, mode: str = "realtime",
             *, read_viz: bool = True, tesseract: str = "auto") -> "DocumentReader":
        """``backend=None``: ``DOCAUTH_BACKEND`` (default ``auto``: the measured choice)."""
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # Tesseract: faster single-threaded on small crops
        model = load_model(LINE_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        if model.input_shape != (LINE_H, LINE_W, 1) or list(model.labels) != LABELS:
            raise ModelError(f"{LINE_MODEL}: expected a {LINE_H}x{LINE_W} single-channel CTC model over "
                             f"{len(LABELS)} classes")
        outline_model = None
        # The outline model is optional: without it the contour locator finds the document. When its
        # file is there it must load (a corrupt file is an error, not a silent fallback).
        if model_paths(OUTLINE_MODEL, models_dir).keras.is_file():
            outline_model = load_model(OUTLINE_MODEL, models_dir=models_dir, backend=backend, mode=mode)
            side = outline.INPUT_SIDE
            if outline_model.input_shape != (side, side, 3):
                raise ModelError(f"{OUTLINE_MODEL}: expected a {side}x{side} RGB input")
        printed = None
        if read_viz:
            if not model_paths(DETECTOR_MODEL, models_dir).metadata.is_file():
                raise ModelError(f"{DETECTOR_MODEL}: the printed-field reader's models are missing from "
                                 f"{models_dir or 'models/'}")
            printed = PrintedReader.load(models_dir, backend=backend, mode=mode)
        engine = tesseract_engine(tesseract) if read_viz else None
        return cls(MRZReader(model), printed=printed, outline_model=outline_model, tesseract=engine)

    def warmup(self) -> None:
        """Load what the first call would otherwise load (Tesseract's language, in process)."""
        if self.tesseract is not None:
            self.tesseract.warmup()

    def models(self) -> list:
        """The runtime models the pipeline reports and meters for this stage: the outline model (when one is
        loaded) and the MRZ line recogniser."""
        return [m for m in (self.outline_model, self.mrz_reader.model) if m is not None]

    # -- stages ------------------------------------------------------------
    def preprocess(self, image: np.ndarray, timings: dict | None = None, *, side: str | None = None
                   ) -> tuple[DocumentView, np.ndarray, MRZRead | None]:
        """Read the MRZ (it also tells the document's orientation), locate, warp and turn upright.

        ``side``: the side classifier's answer, when known (a front is searched less for an MRZ).
        """
        timings = {} if timings is None else timings
        image = _as_rgb(image)
        located, mrz = self.find_zone(image, timings, side=side)
        t = time.perf_counter()
        rect, homography = locate.warp(image, located.corners)
        timings["locate_ms"] += (time.perf_counter() - t) * 1000
        if mrz is not None:
            rotation = mrz.rotation
        elif self.read_viz:
            t = time.perf_counter()
            # A card located as a card is landscape when upright: its outline settles 0/180 against 90/270.
            landscape = card_outline_landscape(rect.shape, side) if located.found else None
            rotation = orient_by_text(cv2.cvtColor(rect, cv2.COLOR_RGB2GRAY), self.tesseract, landscape=landscape)
            timings["orient_ms"] = (time.perf_counter() - t) * 1000
        else:
            rotation = 0
        upright = locate.rotate_quarter(rect, rotation)
        view = DocumentView(corners=locate.document_corners(located.corners, rotation), rotation=rotation,
                            found=located.found, rectified=upright)
        if mrz is not None:
            mrz.result.zone_top = zone_top(mrz, homography, rect.shape, rotation) if located.found else None
            mrz.result.zone = mrz.zone_in_reading_order().tolist()
        return view, upright, mrz

    def find_zone(self, image: np.ndarray, timings: dict | None = None, *, side: str | None = None
                  ) -> tuple[locate.Located, MRZRead | None]:
        """(the located document, the MRZ the check takes) — searched on the photo, on the located document and
        in black ink as the check searches a photo of ``side``, without warping it or reading its print:
        ``docauth classify`` and ``/v1/classify`` settle the side on the very zone the check would."""
        image = _as_rgb(image)
        # A "front" may be searched again without a side (below), which asks for the same reads again.
        search = PhotoSearch(self.mrz_reader, self.outline_model, image, again=side in SIDES_WITHOUT_MRZ)
        return self._find_zone(search, {} if timings is None else timings, side)

    def _find_zone(self, search: PhotoSearch, timings: dict, side: str | None
                   ) -> tuple[locate.Located, MRZRead | None]:
        image = search.image
        t = time.perf_counter()
        glimpsed = search.read_photo(expected=side not in SIDES_WITHOUT_MRZ)
        mrz = credible(glimpsed)
        timings["mrz_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        expected = zone_agreement(mrz) if mrz is not None and mrz.result.valid else None
        # No MRZ read: not an open booklet (its spread shows the data page's zone), so prefer one document's shape.
        shapes = locate.ONE_DOCUMENT_ASPECTS if mrz is None else None
        located = (locate.locate_document(image, self.outline_model, accept=expected, shapes=shapes)
                   if expected is not None else search.locate(shapes=shapes))
        zone_expected = located.found and side not in SIDES_WITHOUT_MRZ
        # A "front" is searched again when what was located, or the photo a scan fills, is no card, and a zone
        # may be on it: the photo's search found lines shaped like one, or the document is too small in the photo
        # for that search to find its glyphs. A front the search found no such lines on, large enough to be
        # searched well, prints none (the search on the document costs more than reading its fields).
        doubtful_front = (side in SIDES_WITHOUT_MRZ and not _card_proportions(located.corners)
                          and (glimpsed is not None or _small_for_search(located.corners, image.shape)))
        if (mrz is None or not mrz.result.valid) and (zone_expected or doubtful_front):
            t_second = time.perf_counter()
            second = credible(search.read_on_document(located.corners))
            if mrz is None and second is None and zone_expected:
                # The zone too small in the photo to be found (a booklet on a flatbed page): the shape search
                # took one page of the spread, most likely the blank one. The spread holds the data page.
                spread = search.locate_any_shape(located)
                if spread.found and not np.allclose(spread.corners, located.corners, atol=SAME_CORNERS_PX):
                    second = credible(search.read_on_document(spread.corners))
                    if second is not None:
                        located = spread
            if second is not None and (mrz is None or rank(second) > rank(mrz)):
                mrz = second
            timings["mrz_on_document_ms"] = (time.perf_counter() - t_second) * 1000
            t += timings["mrz_on_document_ms"] / 1000  # locate_ms stays the locator's own time
        if (mrz is None or not mrz.result.valid) and side not in SIDES_WITHOUT_MRZ:
            # Nothing valid on the photo or on the document as located (a zone crossed by a coloured stamp, the
            # outline wrong): the photo is searched once more in black ink alone.
            t_ink = time.perf_counter()
            mrz = credible(better_in_black_ink(mrz, self.mrz_reader.read_in_black_ink(image)))
            timings["mrz_black_ink_ms"] = (time.perf_counter() - t_ink) * 1000
            t += timings["mrz_black_ink_ms"] / 1000
        if mrz is not None and not mrz.result.valid and located.found and not at_bottom_edge(mrz, located.corners):
            mrz = None  # not where a zone is printed: other text, which must neither turn the page nor hide its print
        if mrz is not None and located.found and mrz.result.type in BOOKLET_TYPES:
            located.corners = data_page(located.corners, mrz)
        if mrz is not None and (mrz.result.valid or (mrz.result.structure_ok and located.found
                                                     and not holds_zone(located.corners, mrz))):
            # A zone that fails its check digits still lies where it lies: an outline that does not hold it is
            # another shape (the portrait, a fingerprint), and the zone's document is where the zone puts it.
            located = checked_against_zone(located, mrz)
        if side in SIDES_WITHOUT_MRZ and (mrz is not None or doubtful_front or zone_like(glimpsed)) and (
                mrz is None or not mrz.result.valid):
            # A "front" whose search saw lines shaped like a zone, or a document no card's shape, and took no valid
            # zone may be a passport page or a card's back the side model took for a front: searched without a side.
            unhinted = self._find_zone(search, searched := {}, side=None)
            timings["mrz_unhinted_ms"] = sum(searched.values())
            t += timings["mrz_unhinted_ms"] / 1000
            if unhinted[1] is not None and (mrz is None or rank(unhinted[1]) > rank(mrz)):
                located, mrz = unhinted
        if mrz is not None:  # judged once chosen: glyph size decides what is trusted, not which zone is found
            at_glyph_pitch(mrz.result, mrz.glyph_pitch())
        timings["locate_ms"] = (time.perf_counter() - t) * 1000
        return located, mrz

    def __call__(self, image: np.ndarray, *, side: str | None = None,
                 on_rectified: Callable[[np.ndarray], None] | None = None, expected: dict | None = None) -> OCRResult:
        """Read a document. ``on_rectified(upright_rgb, zone)`` is called as soon as the document is
        rectified and its zone read (``zone``: the MRZ result, its ``zone_top`` and ``type`` where it is on
        the page; None when no zone was found), before its printed fields are read (the pipeline starts the
        portrait search there, where the zone's layout puts the portrait).
        ``expected``: the record of the person the document should belong to (a 1:1 check); where no zone gives
        the printed values to look for, print is searched for the record's, and read whole when they are not
        all there (fields found so say ``how`` "record"; the zone's values always come first)."""
        timings: dict = {}
        t0 = time.perf_counter()
        view, upright, read = self.preprocess(image, timings, side=side)
        mrz = read.result if read is not None else None
        if on_rectified is not None:
            on_rectified(upright, mrz)
        printed = None
        if self.printed is not None and not _prints_nothing_more(mrz, side, upright.shape):
            t = time.perf_counter()
            printed = self.printed(upright, mrz_top=_mrz_top(mrz), mrz_fields=_zone_fields(mrz), record=expected,
                                   zone_valid=mrz is not None and mrz.valid,
                                   zone_side=_prints_nothing_more(mrz, None, upright.shape))
            timings["viz_ms"] = (time.perf_counter() - t) * 1000
            if mrz is None and _poor_read(printed):
                t = time.perf_counter()
                for other_view, other in self._read_again(image, view, printed, expected):
                    if _fields_read(other) > _fields_read(printed):
                        view, printed = other_view, other
                    if not _poor_read(printed):
                        break
                timings["viz_whole_frame_ms"] = (time.perf_counter() - t) * 1000
            if expected and not _zone_fields(mrz):
                printed = self.printed.with_record(printed, expected)
            if mrz is not None and not mrz.valid and printed.lines:
                # The page prints the names and codes the MRZ's unsure letters may spell (no check digit covers them),
                # and the number whose look-alikes its check digit cannot tell apart.
                settled = confirm_in_print(mrz, printed_name_words(printed.lines),
                                           printed_numbers=printed_number_texts(printed.lines))
                if settled is not mrz:  # the zone's values changed: the print is looked through for them again
                    mrz = settled
                    printed = PrintedRead(self.printed.postprocess(printed.lines, _zone_fields(mrz), None),
                                          printed.lines, printed.timings_ms)
        zone = _zone_fields(mrz)
        back = (_back_on_sheet(view, upright.shape, read, mrz)
                if self.printed is not None and missing_zone_values(printed, zone) else None)
        if back is not None:
            # A card's back on a sheet that may show its front too: the front prints what was not found.
            t = time.perf_counter()
            rest = read_other_side(self.printed, _as_rgb(image), *back, zone)
            if rest is not None:
                if no_zone_value(printed) and missing_zone_values(rest, zone):
                    # Both sides on one sheet: the back, not read for itself or read as a lone back (no closer look),
                    # may print what the front does not (a birth date over the zone).
                    printed = self.printed(upright, mrz_top=_mrz_top(mrz), mrz_fields=zone, zone_values_only=True)
                printed = merged(printed, rest)
            timings["viz_rest_of_sheet_ms"] = (time.perf_counter() - t) * 1000
        result = self.postprocess(view, mrz, printed, timings)
        result.timings_ms["total_ms"] = (time.perf_counter() - t0) * 1000
        return result

    def _read_again(self, image: np.ndarray, view: DocumentView, printed: PrintedRead, record: dict | None = None
                    ) -> Iterator[tuple[DocumentView, PrintedRead]]:
        """Other reads of a page whose printed read gave next to nothing, most likely first: the page the other
        way up, only when its lines read more surely so (the text layout's vote on a small, blurred card is
        often half a turn wrong); then, for a located outline, the whole photo (the outline was the portrait
        or a band of the card), itself turned only on the same evidence. A page that is merely hard to read
        costs two reads, not four."""
        if self.printed.reads_better_turned(view.rectified, printed.lines):
            yield self._read_turned(view, record)
        if view.found:
            yield self._read_whole_frame(image, record)

    def _read_whole_frame(self, image: np.ndarray, record: dict | None = None) -> tuple[DocumentView, PrintedRead]:
        """The printed fields read on the whole photo, turned upright by its text, for when the located
        outline gave next to nothing: it was the portrait, a band of the card, or the card turned the wrong
        way (a scan filling the frame leaves no background edge to find). The portrait search has already
        been given the first rectified view; it also searches the photo itself, so it is not told again."""
        rgb = _as_rgb(image)
        height, width = rgb.shape[:2]
        scale = min(1.0, WHOLE_FRAME_READ_SIDE / max(height, width))
        small = cv2.resize(rgb, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA) \
            if scale < 1.0 else rgb
        # A card lying askew in the photo is read level: Tesseract and the text boxes take lines as horizontal.
        small = levelled(small)
        rotation = orient_by_text(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), self.tesseract)
        upright = locate.rotate_quarter(small, rotation)
        printed = self.printed(upright, record=record)
        view = DocumentView(corners=locate.document_corners(locate.frame_corners(rgb.shape), rotation),
                            rotation=rotation, found=False, rectified=upright)
        if _poor_read(printed) and self.printed.reads_better_turned(upright, printed.lines):
            turned = self._read_turned(view, record)
            if _fields_read(turned[1]) > _fields_read(printed):
                return turned
        return view, printed

    def _read_turned(self, view: DocumentView, record: dict | None = None) -> tuple[DocumentView, PrintedRead]:
        """The printed fields of ``view`` read the other way up. Orientation by text layout is fooled by
        cluttered backgrounds (grass, a keyboard) on the whole photo, which turns some pages upside down, whose
        fields then read as nothing."""
        turned = locate.rotate_quarter(view.rectified, 180)
        printed = self.printed(turned, record=record)
        # half a turn more: the upright corners' order moves on by two
        turned_view = DocumentView(corners=view.corners[2:] + view.corners[:2], rotation=(view.rotation + 180) % 360,
                                   found=view.found, rectified=turned)
        return turned_view, printed

    def postprocess(self, view: DocumentView, mrz: MRZResult | None, printed: PrintedRead | None,
                    timings: dict) -> OCRResult:
        """Fields from the best source, and the printed-vs-MRZ agreement per field.

        A field agrees when the page prints the MRZ's value (under its caption or anywhere among the lines).
        It disagrees only when the printed value was read confidently under a caption read nearly exactly and
        still differs: a misread must never accuse a genuine document. Otherwise its agreement is unknown
        (None), and ``unsure`` says a printed value was read but not surely enough to compare.
        """
        mrz_fields = mrz.fields if mrz is not None and mrz.type else {}
        reads = printed.fields if printed is not None else {}
        viz = {name: read.value for name, read in reads.items()}
        fields: dict = {}
        consistency: dict = {}
        sources: dict = {}
        for name in FIELD_NAMES:
            read, v, m = reads.get(name), viz.get(name), mrz_fields.get(name)
            # A field under its own passing check digit is verified even when the MRZ as a whole is not.
            own_check = (mrz is not None and mrz.structure_ok and mrz.checks.get(name, {}).get("ok", False)
                         and not mrz.checks[name].get("doubtful", False)
                         and mrz.checks.get("composite", {"ok": True})["ok"])
            if read is not None and read.how == "layout" and own_check and not compare_field(name, v, m):
                # A value placed by layout alone is a guess at which line holds the field; one that the zone's own
                # check digit contradicts came from another field's line (an issue date taken for the birth
                # date), and is no printed read of this field.
                read = v = None
                del viz[name]
            agree = None
            consistency[name] = {"viz": v, "mrz": m, "agree": None}
            if read is not None and m not in (None, ""):
                if read.how == "mrz" or compare_field(name, v, m, zone_full=_names_fill_zone(mrz)):
                    agree = True
                    consistency[name].update(agree=True, found_in_print=read.how == "mrz")
                elif surely_differs(name, read, m):
                    agree = False
                    consistency[name]["agree"] = False
                else:
                    consistency[name]["unsure"] = True
            # A check-digit-verified MRZ is the most trustworthy source; names beyond the MRZ width are
            # truncated there, so a VIZ name that starts with the MRZ one is preferred.
            if mrz is not None and (mrz.valid or own_check) and m not in (None, ""):
                fields[name], sources[name] = m, "mrz"
                if name in NAME_FIELDS and v and agree:
                    fields[name] = v if len(v) > len(m) else m
                elif name in DATE_FIELDS and v and agree:
                    # The zone states two digits of the year, its century a guess; the print may state it.
                    fields[name] = v
            elif m not in (None, "") and not agree and name in NAME_FIELDS and mrz.structure_ok:
                # Names carry no check digit in any MRZ, valid or not, and the MRZ recogniser reads OCR-B better
                # than a printed name on a guilloche background is read. Not verified.
                fields[name], sources[name] = m, "mrz_unchecked"
            elif m not in (None, "") and not agree and name in CERTAIN_ON_THEIR_OWN and mrz.field_is_certain(name):
                # The MRZ fails somewhere else, but this field passed its own check: it is likelier right than
                # the printed read. Not verified.
                fields[name], sources[name] = m, "mrz_unchecked"
            elif m not in (None, "") and read is not None and read.how == "layout":
                # A value placed by layout alone (the earliest date, a number by its shape) is a guess at which
                # line holds the field; the zone's, even unchecked, was read where that field stands.
                fields[name], sources[name] = m, "mrz_unchecked"
            elif v not in (None, ""):
                fields[name], sources[name] = v, "viz"
            elif m not in (None, ""):
                fields[name], sources[name] = m, "mrz_unchecked"
            else:
                fields[name] = None
        unsure = {name for name, source in sources.items() if source == "viz" and not reads[name].sure}
        return OCRResult(document=view, mrz=mrz, fields=fields, consistency=consistency, timings_ms=timings, viz=viz,
                         sources=sources, printed=printed.export() if printed is not None else {}, unsure=unsure)


def _names_fill_zone(mrz: MRZResult | None) -> bool:
    """Do the zone's names run to the end of its name field (the last line of a card's zone, the first of the
    others)? The zone then may have cut the given names short.

    >>> from docauth.ocr.mrz import parse_mrz
    >>> _names_fill_zone(parse_mrz(["I<MEXJT52026128<<<<<<<<<<<<<<<", "4203315M1711028MEX<<<<<<<<<<<0",
    ...                             "ABERCROMBIE<FITZGERALD<<JEAN<E"]))
    True
    """
    if mrz is None or not mrz.lines:
        return False
    line = mrz.lines[2] if mrz.type == "TD1" and len(mrz.lines) > 2 else mrz.lines[0]
    return bool(line) and not line.endswith("<")


def _fields_read(printed: PrintedRead) -> int:
    """How many fields a printed read gave, to tell a poor read (a wrong outline, a wrong turn) from a good one;
    a number placed by its shape alone, or names by their place alone, are not counted: a page read wrongly has
    such tokens as often."""
    return sum(not (name in LAYOUT_ONLY_UNCOUNTED and read.how == "layout") for name, read in printed.fields.items())


def _poor_read(printed: PrintedRead) -> bool:
    """Was the page most likely read in a wrong outline or turned the wrong way: no field, or next to none from
    lines that mostly read unsurely?"""
    fields = _fields_read(printed)
    confident = sum(line.confidence >= READ_IN_PLACE_CONFIDENCE for line in printed.lines)
    return fields == 0 or (fields <= POOR_PRINTED_READ and confident < READ_IN_PLACE_LINES)


def _mrz_top(mrz: MRZResult | None) -> float | None:
    """Fraction of the upright document above the MRZ (printed fields live there)."""
    top = getattr(mrz, "zone_top", None) if mrz is not None else None
    return top if top is not None and top > 0.3 else None


def _prints_nothing_more(mrz: MRZResult | None, side: str | None, page_shape) -> bool:
    """Is the page one card's back? A TD1 zone is on the back (unless the side model saw a front), which prints
    none of the fields the zone does not already carry; but a page in other proportions than one card holds
    more (both sides of the card scanned on one sheet), and is read. So is an upright page taller than wide, in
    whatever proportions: a card's zone runs along its long side, so such a page holds more than one card (the
    sides stacked on a sheet, the sheet taken whole).

    >>> from docauth.ocr.mrz import parse_mrz
    >>> back = parse_mrz(["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
    ...                   "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
    >>> _prints_nothing_more(back, "back", (540, 856, 3)), _prints_nothing_more(back, "back", (1080, 856, 3))
    (True, False)
    >>> _prints_nothing_more(back, "front", (540, 856, 3)), _prints_nothing_more(back, "back", (1000, 704, 3))
    (False, False)
    """
    if side == "front" or mrz is None or mrz.type != "TD1" or not getattr(mrz, "structure_ok", False):
        return False
    height, width = page_shape[:2]
    return width > height and _td1_like(width, height, ONE_CARD_ASPECT_SLACK)


def _back_on_sheet(view: DocumentView, page_shape, read: MRZRead | None, mrz: MRZResult | None
                   ) -> tuple[np.ndarray, tuple[int, int]] | None:
    """Where a card's back lies whose front may lie beside it on the sheet, and the size it is read at (upright
    TL, TR, BR, BL in the photo; width, height): the located page when it is one card's back; else, on a page
    that is not one card (both sides located as one sheet, or an outline cut across a card), the card its TD1
    zone is printed on, as ICAO sizes put it around the zone. None for a page that is one card with no zone on
    its back (a front printing its zone has been read for itself).

    >>> from docauth.ocr.mrz import parse_mrz
    >>> from types import SimpleNamespace
    >>> back = parse_mrz(["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
    ...                   "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
    >>> read = SimpleNamespace(zone_in_reading_order=lambda: np.float64([[60, 700], [940, 700], [940, 840], [60, 840]]))
    >>> view = DocumentView(corners=[[0, 0], [1000, 0], [1000, 900], [0, 900]], rotation=0, found=True)
    >>> corners, size = _back_on_sheet(view, (900, 1000, 3), read, back)   # a sheet of both sides, stacked
    >>> corners.round().tolist(), size
    ([[1.0, 280.0], [1011.0, 280.0], [1011.0, 918.0], [1.0, 918.0]], (1010, 637))
    >>> _back_on_sheet(view, (631, 1000, 3), read, back)[1], _back_on_sheet(view, (631, 1000, 3), read, None)
    ((1000, 631), None)
    """
    if _prints_nothing_more(mrz, None, page_shape):  # the located page is one card's back
        height, width = page_shape[:2]
        return (np.asarray(view.corners, np.float32), (width, height)) if view.found else None
    if mrz is None or mrz.type != "TD1" or not mrz.structure_ok:
        return None
    card = None if read is None else document_from_zone(read.zone_in_reading_order(), "TD1", upright=True)
    if card is None:
        return None
    # read as a located card is warped: its long side as the photo shows it, within the warp's bounds
    long_side = locate.warped_long_side(float(np.linalg.norm(card[1] - card[0])))
    return card.astype(np.float32), (int(round(long_side)), int(round(long_side / TD1_ASPECT)))


def _small_for_search(corners, shape) -> bool:
    """Is a located document smaller, at the scale a photo of ``shape`` is searched for a zone, than a zone's
    glyphs are found at surely (:data:`SMALL_FOR_SEARCH`)?

    >>> _small_for_search([[0, 0], [1300, 0], [1300, 900], [0, 900]], (1300, 1900, 3))
    False
    >>> _small_for_search([[0, 0], [1300, 0], [1300, 900], [0, 900]], (3000, 4500, 3))  # searched at 0.44
    True
    """
    return bool(max(side_lengths(corners)) * reading_zoom(shape) < SMALL_FOR_SEARCH)


def _card_proportions(corners) -> bool:
    """Is a located outline in an ID-1 card's proportions (1.59:1)? A "front" that is not (a passport's data
    page is 1.42:1, both sides of a card on one sheet nearly square) may well carry an MRZ after all.

    >>> _card_proportions([[0, 0], [856, 0], [856, 540], [0, 540]]), _card_proportions([[0, 0], [600, 0], [600, 420], [0, 420]])
    (True, False)
    """
    top, right, bottom, left = side_lengths(corners)
    return _td1_like((top + bottom) / 2, (left + right) / 2, CARD_FRONT_ASPECT_SLACK)


def _td1_like(width: float, height: float, slack: float) -> bool:
    """Is a width and height's long-to-short ratio within ``slack`` of an ID-1 card's?"""
    return bool(abs(max(width, height) / max(1.0, min(width, height)) - TD1_ASPECT) < slack)


def _zone_fields(mrz: MRZResult | None) -> dict:
    """The MRZ's fields the page prints too, when its layout was read (check digits aside: the print is
    looked for, not trusted)."""
    if mrz is None or not mrz.type or not getattr(mrz, "structure_ok", False):
        return {}
    return {k: v for k, v in mrz.fields.items() if v}


def _as_rgb(image) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise InvalidImage("the OCR stage expects an RGB uint8 image array")
    if image.ndim == 2:
        return np.stack([image] * 3, -1)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise InvalidImage(f"the OCR stage expects an (H, W, 3) image, not shape {image.shape}")
    if min(image.shape[:2]) < 16:
        raise InvalidImage(f"image is too small to read ({image.shape[1]}x{image.shape[0]})")
    return np.ascontiguousarray(image[..., :3])
