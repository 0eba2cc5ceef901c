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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from docauth.errors import InvalidImage, ModelError
from docauth.ocr.mrz import MRZResult, checks_pass, parse_mrz
from docauth.ocr import outline
from docauth.ocr.mrz.line_model import LABELS, MODEL_NAME, decode_line, vote_lines
from docauth.ocr.printed import PrintedRead, PrintedReader
from docauth.ocr.printed.detection import DETECTOR_MODEL
from docauth.ocr.mrz.finder import (LINE_H, LINE_LENGTHS, LINE_W, FoundMRZ, angle_apart, cut_strip, find_mrz_at,
                                 find_mrz_levelled, text_angle, welded_text_angle)

# Formats printed on a booklet's data page: the outline may take in the facing page too.
BOOKLET_TYPES = frozenset({"TD3", "MRVA"})
# Card fronts seldom carry an MRZ (TD1 prints it on the back; TD2-style cards on the front do).
SIDES_WITHOUT_MRZ = frozenset({"front"})
# Sides the classifier only gives cards (a passport data page is "open"), and the long-to-short ratio from
# which a rectified outline is taken to be a card's (TD1 1.59, TD2 1.42; a square-ish quad says nothing).
CARD_SIDES = frozenset({"front", "back"})
CARD_MIN_ASPECT = 1.3
# With the side not known, only an outline in a TD1 card's proportions says which way is long: a passport data
# page (1.42) is landscape upright but an open booklet's two pages together (1.41) are portrait.
TD1_ONLY_MIN_ASPECT = 1.5
# Fields taken from an MRZ that is not valid as a whole, over the printed read, when they pass their own check
# (names, which have none, are taken from any MRZ with its structure: see DocumentReader.postprocess).
CERTAIN_ON_THEIR_OWN = frozenset({"document_number", "date_of_birth", "expiry_date"})
NAME_FIELDS = ("surname", "given_names")
TD1_ASPECT = 85.6 / 54.0  # ICAO 9303 part 5
ONE_CARD_ASPECT_SLACK = 0.2
FIELD_NAMES = ("surname", "given_names", "nationality", "sex", "date_of_birth", "document_number", "expiry_date")
LINE_MODEL = MODEL_NAME
# A page without an MRZ whose printed read gave this many of its five fields or fewer is read again (on the whole
# photo, then turned half-way), and the read with more fields is kept: the outline or the turn was wrong.
POOR_PRINTED_READ = 1
WHOLE_FRAME_READ_SIDE = 1400
OUTLINE_MODEL = outline.MODEL_NAME


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


@dataclass
class MRZRead:
    """An MRZ read from an image, and where it was."""

    result: MRZResult
    reading_angle: float  # direction of the MRZ text in the input image, degrees (0: upright, -90: turned CCW)
    found: FoundMRZ = field(repr=False)
    confidence: float = 0.0

    @property
    def rotation(self) -> int:
        """The document's CCW quarter-turn in the input (the ``np.rot90`` convention of the labels)."""
        return int(round(-self.reading_angle / 90.0)) % 4 * 90

    def zone_in_reading_order(self) -> np.ndarray:
        """The MRZ block's corners in input coordinates, TL first where the first line starts."""
        corners = self.found.corners_in_input()
        read_turned = abs((self.reading_angle - self.found.angle + 180.0) % 360.0 - 180.0) > 90.0
        return np.roll(corners, 2, axis=0) if read_turned else corners


class MRZReader:
    """Find the MRZ in a grayscale image and read its lines with the line recogniser (CTC)."""

    def __init__(self, model):
        self.model = model

    def read(self, gray: np.ndarray, *, expected: bool = True) -> MRZRead | None:
        """The best reading of the MRZ-like blocks in ``gray`` (the first valid one), or None.

        ``expected=False`` (a card front): searched along the text direction only, not also
        along the image axes, and without the second, hair-line-cutting pass: each costs line
        searches on an image that most likely has no MRZ.
        """
        gray, zoom = _reading_scale(gray)
        angle = text_angle(gray)
        best: MRZRead | None = None
        # Second pass only when the first read nothing valid: with hair-lines cut, an MRZ printed over
        # guilloche comes apart into its lines (it costs a second line search, so not by default).
        for open_thin in (None, True) if expected else (None,):
            best = self._read_best(find_mrz_levelled(gray, limit=2, open_thin=open_thin, axes=expected,
                                                     angle=angle), best)
            if best is None or best.result.valid:
                break
        if expected and (best is None or not best.result.valid):
            # Glyphs welded into runs (motion blur) leave too few single glyphs to tell the direction of the
            # text, or it follows other text (a typed page beside the document): the runs' own axes tell it.
            welded = welded_text_angle(gray)
            tried = [angle] if angle is not None else [0.0, 90.0]
            # Runs of glyphs are long: a tilt the glyph chaining shrugs off (4 degrees) lifts a run's end by
            # more than its height, so a closer direction is searched again.
            if welded is not None and all(angle_apart(welded, a) > WELDED_SAME_DIRECTION for a in tried):
                best = self._read_best(find_mrz_at(gray, welded, limit=2), best)
        if best is not None and zoom != 1.0:
            best.found = _unzoomed(best.found, zoom)
        return best

    def _read_best(self, candidates: list[FoundMRZ], best: MRZRead | None) -> MRZRead | None:
        """The better of ``best`` and the candidates read in turn, up to the first valid one. A read the
        reader would drop as other text (:func:`_credible`) never displaces one it would keep: its score
        is no measure against a zone's (the specimen other/USA_Border_Crosser.png, a sharp TD1 zone with
        wrong check digits, score 55 at confidence 1.0, lost to nonsense scoring 59 at 0.28)."""
        for found in candidates:
            read = self.read_block(found)
            if best is None or _rank_kept_first(read) > _rank_kept_first(best):
                best = read
            if read.result.valid:
                break
        return best

    def read_block(self, found: FoundMRZ) -> MRZRead:
        """Read a block both ways up (one batch): the right way gives the valid or more confident text."""
        block = found.block
        strips = np.stack([cut_strip(found.gray, line, block.scale) for line in block.lines])
        flipped = strips[::-1, ::-1, ::-1]  # the block turned 180 degrees: lines reversed, each reversed
        probs = self.model.predict(np.concatenate([strips, flipped])[..., None])
        n = len(strips)
        first = self._parse(probs[:n])
        # A block valid as found is the right way up (turned, a valid zone reads as nonsense): its turned read,
        # predicted in the same batch, is not decoded and parsed for nothing.
        turned = None if first[0].valid else self._parse(probs[n:])
        upright = 0 if turned is None or _upright_first(first, turned) else 1
        result, confidence = first if upright == 0 else turned
        if not result.valid and _mrz_like(result):
            voted = self._read_recut(found, probs[n * upright:n * (upright + 1)], upright=bool(upright))
            # Only a vote whose check digits all pass replaces the read (its names may still be unsure): one that
            # fails too is no surer, and the correction search on its other candidates respelled the optional
            # data of a real specimen whose check digits are wrong as printed ('0' -> 'D', to fit the composite).
            if voted is not None and checks_pass(voted[0]) and _rank_parts(*voted) > _rank_parts(result, confidence):
                result, confidence = voted
        angle = (found.angle + 180.0 * upright + 180.0) % 360.0 - 180.0
        return MRZRead(result=result, reading_angle=angle, found=found, confidence=confidence)

    def _read_recut(self, found: FoundMRZ, probs: np.ndarray, *, upright: bool) -> tuple[MRZResult, float] | None:
        """The block read again from strips cut a little differently (shifted, taller, shorter, longer), each
        line's reads voted character by character (:func:`vote_lines`) with the first read, ``probs``; None
        when a line has no read of the format's length to vote.

        A cut that clips a glyph or takes in a line of print above garbles the same glyphs in every read of
        it; other cuts garble others. 500 generated passport pages: exact 478 -> 481, no read wrongly valid.
        """
        block = found.block
        strips = np.stack([cut_strip(found.gray, line, block.scale, pad=pad, dy=dy, half_height=half)
                           for pad, dy, half in RECUT_VARIANTS for line in block.lines])
        if upright:  # read the other way up: each cut's lines reversed, each line reversed
            strips = strips.reshape(len(RECUT_VARIANTS), len(block.lines), *strips.shape[1:])[:, ::-1, ::-1, ::-1]
            strips = strips.reshape(-1, *strips.shape[2:])
        recut = self.model.predict(strips[..., None]).reshape(len(RECUT_VARIANTS), *probs.shape)
        length = _line_length(probs)
        lines = [vote_lines([decode_line(p, length) for p in (probs[k], *recut[:, k])], length)
                 for k in range(len(probs))]
        if any(line is None for line in lines):
            return None
        return _parsed(lines, f", strips cut {len(RECUT_VARIANTS) + 1} ways")

    @staticmethod
    def _parse(probs: np.ndarray) -> tuple[MRZResult, float]:
        length = _line_length(probs)
        return _parsed([decode_line(p, length) for p in probs])


def _parsed(reads: list, how: str = "") -> tuple[MRZResult, float]:
    """The MRZ the line reads spell, and the recogniser's confidence in them (geometric mean)."""
    confidence = float(np.exp(np.mean([np.log(max(r.confidence, 1e-9)) for r in reads])))
    result = parse_mrz([r.text for r in reads], alternatives=[r.alternatives for r in reads])
    result.warnings.append(f"recogniser confidence {confidence:.3f}{how}")
    return result, confidence


def _line_length(probs: np.ndarray) -> int | None:
    """The length the block's lines must have: two lines are 44 (TD3, MRV-A) or 36 (TD2, MRV-B) characters,
    whichever the frames say; None for a line count no format has."""
    lengths = LINE_LENGTHS.get(len(probs), (None,))
    if len(lengths) > 1:
        free = [len(decode_line(p).text) for p in probs]
        return min(lengths, key=lambda n: abs(n - float(np.median(free))))
    return lengths[0]


# Strip cuts (pad before/after, baseline shift, half height, in line heights) for reading a block again: within
# the variation the recogniser was trained on (mrzlines._jitter); the first read's cut is (0.7, 0.7), 0, 0.85.
RECUT_VARIANTS = (((0.7, 0.7), -0.1, 0.85), ((0.7, 0.7), 0.1, 0.85), ((0.7, 0.7), 0.0, 0.75),
                  ((0.7, 0.7), 0.0, 1.0), ((0.3, 0.3), 0.0, 0.85), ((1.2, 1.2), 0.0, 0.85))


def _mrz_like(result: MRZResult) -> bool:
    """Does a read look like an MRZ, valid or not: its structure, or a country code where the issuing state
    stands? Other text taken for a zone (a card front's fields, a header) mostly has neither."""
    from docauth.ocr.mrz.countries import is_known_code

    return result.structure_ok or bool(result.lines and is_known_code(result.lines[0][2:5]))


# A block read as an MRZ with a low score (see MRZResult.score) that the recogniser was also unsure of is
# most likely other text taken for one: on card fronts, blocks of printed fields read as "TD2" scored 0-39 at
# confidence 0.54-0.73 and turned the page upside down. Such a read is dropped ("no MRZ read"). A sharp MRZ
# whose check digits fail is kept whatever its score: real specimens with wrong check digits read at
# confidence 0.98-1.0 with scores 15-59, and "fails its checks" is what a forged MRZ looks like.
# A read without an MRZ's structure (letters where its dates are, no dates at all) whose issuing state is no
# country code either is dropped however confident the recogniser was: card headers ("REPUBLIC OF PERU /
# IDENTITY CARD") and label rows read as "TD2" at high confidence on 18 of 300 generated fronts (issuing
# states "PUB", "SCH", "<OJ", ...) and cut the page above them. A real zone half lost under glare keeps its
# code and is kept: reported invalid, with the fields its own check digits vouch for.
MIN_CREDIBLE_MRZ_SCORE = 50
MIN_CREDIBLE_MRZ_CONFIDENCE = 0.8


def _credible(read: "MRZRead | None") -> "MRZRead | None":
    if read is None or read.result.valid:
        return read
    result = read.result
    if not _mrz_like(result):
        return None
    if result.score >= MIN_CREDIBLE_MRZ_SCORE or read.confidence >= MIN_CREDIBLE_MRZ_CONFIDENCE:
        return read
    return None


# The recogniser was trained on upright lines only: a block read the wrong way up is nonsense to it, so its
# confidence drops. When neither way passes every check, a clear confidence gap settles which way is up
# before the scores do: a sharp real MRZ with wrong check digits (resident_cards/USA.png, confidence 1.00,
# score 15) otherwise lost to its own upside-down read (nonsense scoring 39 at confidence 0.86).
ORIENTATION_CONFIDENCE_GAP = 0.1


def _upright_first(first: tuple[MRZResult, float], turned: tuple[MRZResult, float]) -> bool:
    """Is the block read as found (``first``) the right way up, rather than ``turned`` 180 degrees?"""
    (a, conf_a), (b, conf_b) = first, turned
    if a.valid != b.valid:
        return a.valid
    if abs(conf_a - conf_b) >= ORIENTATION_CONFIDENCE_GAP:
        return conf_a > conf_b
    return _rank_parts(a, conf_a) >= _rank_parts(b, conf_b)


def _rank_parts(result: MRZResult, confidence: float) -> tuple:
    return (result.valid, result.score, confidence)


def _rank(read: MRZRead) -> tuple:
    return _rank_parts(read.result, read.confidence)


def _rank_kept_first(read: MRZRead) -> tuple:
    return (_credible(read) is not None, *_rank(read))


READ_MIN_SIDE, READ_MAX_SIDE = 1000, 2000
SAME_CORNERS_PX = 4.0  # two located outlines this close are the same
WELDED_SAME_DIRECTION = 1.5  # degrees
# Long side of the located document when its MRZ is read again on it (a TD3 line then spans ~600 px).
DOCUMENT_READ_SIDE = 1400


def _reading_scale(gray: np.ndarray) -> tuple[np.ndarray, float]:
    """Small scans are enlarged (glyphs come apart under thresholding), huge photos reduced."""
    import cv2

    long_side = max(gray.shape)
    zoom = READ_MIN_SIDE / long_side if long_side < READ_MIN_SIDE else min(1.0, READ_MAX_SIDE / long_side)
    if zoom == 1.0:
        return gray, 1.0
    size = (round(gray.shape[1] * zoom), round(gray.shape[0] * zoom))
    return cv2.resize(gray, size, interpolation=cv2.INTER_CUBIC if zoom > 1 else cv2.INTER_AREA), zoom


def _unzoomed(found: FoundMRZ, zoom: float) -> FoundMRZ:
    """The same block, with ``to_level`` taking original input coordinates."""
    to_level = found.to_level @ np.diag([zoom, zoom, 1.0])
    return FoundMRZ(found.gray, found.block, found.angle, to_level)


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
    def load(cls, models_dir: str | Path | None = None, backend: str = "auto", mode: str = "realtime",
             *, read_viz: bool = True, tesseract: str = "auto") -> "DocumentReader":
        from docauth.ocr.tesseract import tesseract_engine
        from docauth.runtime import load_model
        from docauth.runtime.model import model_paths

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

    # -- stages ------------------------------------------------------------
    def preprocess(self, image: np.ndarray, timings: dict | None = None, *, side: str | None = None
                   ) -> tuple[DocumentView, np.ndarray, MRZRead | None]:
        """Read the MRZ (it also tells the document's orientation), locate, warp and turn upright.

        ``side``: the side classifier's answer, when known (a front is searched less for an MRZ).
        """
        import cv2

        from docauth.ocr.locate import (ONE_DOCUMENT_ASPECTS, document_corners, locate_any_shape, locate_document,
                                        rotate_quarter, warp)

        timings = {} if timings is None else timings
        image = _as_rgb(image)
        t = time.perf_counter()
        mrz = _credible(self.mrz_reader.read(cv2.cvtColor(image, cv2.COLOR_RGB2GRAY),
                                             expected=side not in SIDES_WITHOUT_MRZ))
        timings["mrz_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        expected = _zone_agreement(mrz) if mrz is not None and mrz.result.valid else None
        # No MRZ read: not an open booklet (its spread shows the data page's zone), so prefer one document's shape.
        located = locate_document(image, self.outline_model, accept=expected,
                                  shapes=ONE_DOCUMENT_ASPECTS if mrz is None else None)
        if (mrz is None or not mrz.result.valid) and located.found and side not in SIDES_WITHOUT_MRZ:
            t_second = time.perf_counter()
            second = _credible(self._read_mrz_on_document(image, located.corners))
            if mrz is None and second is None:
                # The zone too small in the photo to be found (a booklet on a flatbed page): the shape search
                # took one page of the spread, most likely the blank one. The spread holds the data page.
                spread = locate_any_shape(image, located, self.outline_model)
                if spread.found and not np.allclose(spread.corners, located.corners, atol=SAME_CORNERS_PX):
                    second = _credible(self._read_mrz_on_document(image, spread.corners))
                    if second is not None:
                        located = spread
            if second is not None and (mrz is None or _rank(second) > _rank(mrz)):
                mrz = second
            timings["mrz_on_document_ms"] = (time.perf_counter() - t_second) * 1000
            t += timings["mrz_on_document_ms"] / 1000  # locate_ms stays the locator's own time
        if mrz is not None and located.found and mrz.result.type in BOOKLET_TYPES:
            located.corners = _data_page(located.corners, mrz)
        if mrz is not None and mrz.result.valid:
            located = _checked_against_zone(located, mrz)
        rect, homography = warp(image, located.corners)
        timings["locate_ms"] = (time.perf_counter() - t) * 1000
        if mrz is not None:
            rotation = mrz.rotation
        elif self.read_viz:
            t = time.perf_counter()
            # A card located as a card is landscape when upright: its outline settles 0/180 against 90/270.
            landscape = _card_outline_landscape(rect.shape, side) if located.found else None
            rotation = _orient_by_text(cv2.cvtColor(rect, cv2.COLOR_RGB2GRAY), self.tesseract, landscape=landscape)
            timings["orient_ms"] = (time.perf_counter() - t) * 1000
        else:
            rotation = 0
        upright = rotate_quarter(rect, rotation)
        view = DocumentView(corners=document_corners(located.corners, rotation), rotation=rotation,
                            found=located.found, rectified=upright)
        if mrz is not None:
            mrz.result.zone_top = _zone_top(mrz, homography, rect.shape, rotation) if located.found else None
        return view, upright, mrz

    def _read_mrz_on_document(self, image: np.ndarray, corners: np.ndarray) -> MRZRead | None:
        """The MRZ read again on the located document, warped flat at reading size.

        On the photo as taken the MRZ was missed or misread where the document is small in the frame
        (a booklet on a flatbed page: glyphs 7 px tall after the search's downscale), blurred and tilted,
        or beside text-like clutter (a keyboard) that the search took for the zone. The warped document
        has none of those. Costs one more MRZ search, only when the first found nothing valid.
        """
        import cv2

        from docauth.ocr.locate import warp

        gray = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
        flat, homography = warp(gray, corners, max_long_side=DOCUMENT_READ_SIDE, min_long_side=DOCUMENT_READ_SIDE)
        read = self.mrz_reader.read(flat, expected=True)
        if read is not None:
            read.found = replace(read.found, outer=np.linalg.inv(homography))
        return read

    def __call__(self, image: np.ndarray, *, side: str | None = None,
                 on_rectified: Callable[[np.ndarray], None] | None = None) -> OCRResult:
        """Read a document. ``on_rectified(upright_rgb)`` is called as soon as the document is
        rectified, before its printed fields are read (the pipeline starts the portrait search there)."""
        timings: dict = {}
        t0 = time.perf_counter()
        view, upright, read = self.preprocess(image, timings, side=side)
        if on_rectified is not None:
            on_rectified(upright)
        mrz = read.result if read is not None else None
        printed = None
        if self.printed is not None and not _prints_nothing_more(mrz, side, upright.shape):
            t = time.perf_counter()
            printed = self.printed(upright, mrz_top=_mrz_top(mrz), mrz_fields=_zone_fields(mrz))
            timings["viz_ms"] = (time.perf_counter() - t) * 1000
            if mrz is None and len(printed.fields) <= POOR_PRINTED_READ:
                t = time.perf_counter()
                for other_view, other in self._read_again(image, view):
                    if len(other.fields) > len(printed.fields):
                        view, printed = other_view, other
                    if len(printed.fields) > POOR_PRINTED_READ:
                        break
                timings["viz_whole_frame_ms"] = (time.perf_counter() - t) * 1000
            if mrz is not None and not mrz.valid and printed.lines:
                from docauth.ocr.mrz import confirm_in_print
                from docauth.ocr.printed.compare import printed_name_words

                # The page prints the names and codes the MRZ's unsure letters may spell (no check digit covers them).
                mrz = confirm_in_print(mrz, printed_name_words(printed.lines))
        result = self.postprocess(view, mrz, printed, timings)
        result.timings_ms["total_ms"] = (time.perf_counter() - t0) * 1000
        return result

    def _read_again(self, image: np.ndarray, view: DocumentView) -> Iterator[tuple[DocumentView, PrintedRead]]:
        """Other reads of a page whose printed read gave next to nothing, most likely first: the whole photo
        (when the read was of a located outline), then the first view the other way up. A located card's
        outline is often right and its quarter-turn wrong by half a turn (text-layout votes on a small,
        blurred card); on 350 generated fronts that was 3 of the 27 read again."""
        if view.found:
            yield self._read_whole_frame(image)
        yield self._read_turned(view)

    def _read_whole_frame(self, image: np.ndarray) -> tuple[DocumentView, PrintedRead]:
        """The printed fields read on the whole photo, turned upright by its text, for when the located
        outline gave next to nothing: it was the portrait, a band of the card, or the card turned the wrong
        way (a scan filling the frame leaves no background edge to find). The portrait search has already
        been given the first rectified view; it also searches the photo itself, so it is not told again."""
        import cv2

        from docauth.ocr.locate import document_corners, frame_corners, rotate_quarter

        rgb = _as_rgb(image)
        height, width = rgb.shape[:2]
        scale = min(1.0, WHOLE_FRAME_READ_SIDE / max(height, width))
        small = cv2.resize(rgb, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA) \
            if scale < 1.0 else rgb
        # A card lying askew in the photo is read level: Tesseract and the text boxes take lines as horizontal
        # (on the 27 of 350 generated fronts read again, surname/number right 8/10 -> 10/14 of 27).
        small = _levelled(small)
        rotation = _orient_by_text(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), self.tesseract)
        upright = rotate_quarter(small, rotation)
        printed = self.printed(upright)
        view = DocumentView(corners=document_corners(frame_corners(rgb.shape), rotation), rotation=rotation,
                            found=False, rectified=upright)
        if len(printed.fields) <= POOR_PRINTED_READ:
            turned = self._read_turned(view)
            if len(turned[1].fields) > len(printed.fields):
                return turned
        return view, printed

    def _read_turned(self, view: DocumentView) -> tuple[DocumentView, PrintedRead]:
        """The printed fields of ``view`` read the other way up. Orientation by text layout is fooled by
        cluttered backgrounds (grass, a keyboard) on the whole photo: on 30 generated fronts read whole it
        turned 3 upside down, whose fields then read as nothing."""
        from docauth.ocr.locate import rotate_quarter

        turned = rotate_quarter(view.rectified, 180)
        printed = self.printed(turned)
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
        from docauth.ocr.printed.assign import surely_differs
        from docauth.ocr.printed.compare import compare_field

        mrz_fields = mrz.fields if mrz is not None and mrz.type else {}
        reads = printed.fields if printed is not None else {}
        viz = {name: read.value for name, read in reads.items()}
        fields: dict = {}
        consistency: dict = {}
        sources: dict = {}
        for name in FIELD_NAMES:
            read, v, m = reads.get(name), viz.get(name), mrz_fields.get(name)
            agree = None
            consistency[name] = {"viz": v, "mrz": m, "agree": None}
            if read is not None and m not in (None, ""):
                if read.how == "mrz" or compare_field(name, v, m):
                    agree = True
                    consistency[name].update(agree=True, found_in_print=read.how == "mrz")
                elif surely_differs(name, read, m):
                    agree = False
                    consistency[name]["agree"] = False
                else:
                    consistency[name]["unsure"] = True
            # A check-digit-verified MRZ is the most trustworthy source; names beyond the MRZ width are
            # truncated there, so a VIZ name that starts with the MRZ one is preferred.
            # A field under its own passing check digit is verified even when the MRZ as a whole is not.
            own_check = (mrz is not None and mrz.structure_ok and mrz.checks.get(name, {}).get("ok", False)
                         and not mrz.checks[name].get("doubtful", False)
                         and mrz.checks.get("composite", {"ok": True})["ok"])
            if mrz is not None and (mrz.valid or own_check) and m not in (None, ""):
                fields[name], sources[name] = m, "mrz"
                if name in NAME_FIELDS and v and agree:
                    fields[name] = v if len(v) > len(m) else m
            elif m not in (None, "") and not agree and name in NAME_FIELDS and mrz.structure_ok:
                # Names carry no check digit in any MRZ, valid or not, and the MRZ recogniser reads OCR-B better
                # than a printed name on a guilloche background is read. Not verified.
                fields[name], sources[name] = m, "mrz_unchecked"
            elif m not in (None, "") and not agree and name in CERTAIN_ON_THEIR_OWN and mrz.field_is_certain(name):
                # The MRZ fails somewhere else, but this field passed its own check: it is likelier right than
                # the printed read. Not verified.
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


# How far (largest corner distance over the diagonal) an outline may lie from where the MRZ puts the
# document before the MRZ's prediction replaces it. The prediction's own corners scatter by ~2 % of the
# diagonal; an outline that agrees within 6 % is the sharper of the two (its edges are the real ones).
ZONE_AGREEMENT = 0.06


def _checked_against_zone(located, read: MRZRead):
    """The outline when it agrees with the document the MRZ predicts (ICAO sizes around the zone), else the
    prediction. Measured on 108 generated backs and passport pages: within 5 % of the true corners
    64 -> 83 % (card backs), 42 -> 82 % (passport data pages)."""
    from docauth.ocr.locate import Located
    from docauth.ocr.quad import document_from_zone

    predicted = document_from_zone(read.zone_in_reading_order(), read.result.type)
    if predicted is None or (located.found and _agrees(located.corners, predicted)):
        return located
    return Located(predicted, True, located.score, {"method": "mrz_geometry", "outline": located.info.get("method")})


def _agrees(corners: np.ndarray, predicted: np.ndarray) -> bool:
    """Whether located corners lie within ZONE_AGREEMENT of the diagonal of the predicted ones (image order)."""
    diagonal = float(np.linalg.norm(predicted[2] - predicted[0]))
    return float(np.linalg.norm(corners - predicted, axis=1).max()) <= ZONE_AGREEMENT * diagonal


def _zone_agreement(read: MRZRead):
    """The locator's ``accept`` test for a read MRZ: corners (their data page, for a booklet) that agree with
    the document the zone predicts; None for a format without a prediction."""
    from docauth.ocr.quad import document_from_zone

    predicted = document_from_zone(read.zone_in_reading_order(), read.result.type)
    if predicted is None:
        return None
    if read.result.type in BOOKLET_TYPES:
        return lambda corners: _agrees(_data_page(corners, read), predicted)
    return lambda corners: _agrees(corners, predicted)


def _data_page(corners: np.ndarray, read: MRZRead) -> np.ndarray:
    """The data page alone when the outline found the whole open booklet (both pages)."""
    from docauth.ocr.locate import TD3_ASPECT
    from docauth.ocr.quad import page_with_zone

    block = read.found.corners_in_input()
    return page_with_zone(corners, read.found.centre_in_input(), block[1] - block[0], TD3_ASPECT)


def _card_outline_landscape(shape, side: str | None) -> bool | None:
    """Is the rectified card's long side horizontal? None when the outline is too square to say (a TD1 card
    is 1.59:1; a wrong outline, or the whole photo, may be anything), or may be a booklet's two pages.

    Without the side (``docauth ocr`` on a photo), an outline in a card's shape is a card's: of 300 generated
    card fronts read without it, 3 well-located ones were turned a quarter by the text-line count.

    >>> _card_outline_landscape((540, 856), "front"), _card_outline_landscape((856, 540), None)
    (True, False)
    >>> _card_outline_landscape((700, 1000), None), _card_outline_landscape((540, 856), "open")  # page or spread
    (None, None)
    """
    if side is not None and side not in CARD_SIDES:
        return None
    height, width = shape[:2]
    ratio = max(height, width) / max(1, min(height, width))
    return None if ratio < (CARD_MIN_ASPECT if side in CARD_SIDES else TD1_ONLY_MIN_ASPECT) else width > height


def _orient_by_text(gray: np.ndarray, engine=None, *, landscape: bool | None = None) -> int:
    """Quarter-turn of a document without an MRZ.

    Text lines run horizontally when upright (component chains decide 0/180 vs
    90/270). Printed fields put a small label *above* a larger value, left
    aligned: upside down the small text sits below and right-aligned. That vote
    decides upright from upside down; Tesseract's orientation detector breaks ties.
    """
    import cv2

    from docauth.ocr.locate import rotate_quarter
    from docauth.ocr.mrz.finder import find_text_lines
    from docauth.ocr.textboxes import text_boxes

    s = min(1.0, 800 / max(gray.shape))
    small = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else gray
    if landscape is None:
        chars = {r: sum(ln.count for ln in find_text_lines(rotate_quarter(small, r))) for r in (0, 90)}
        base = 0 if chars[0] >= chars[90] else 90
    else:
        base = 0 if landscape else 90
    g = rotate_quarter(small, base)
    up, down = _label_value_votes(text_boxes(g))
    if down >= up + 2:
        return (base + 180) % 360
    if up >= down + 1:
        return base
    from docauth.ocr.tesseract import tesseract_engine

    osd = (engine or tesseract_engine()).orientation(g)
    if osd is not None and osd.rotate == 180 and osd.confidence > 1.0:
        return (base + 180) % 360
    return base  # too little text to decide: keep the horizontal reading


def _label_value_votes(boxes) -> tuple[int, int]:
    """(upright, upside-down) votes from small-label-over-large-value pairs."""
    from docauth.ocr.textboxes import label_above

    if len(boxes) < 4:
        return 0, 0
    hs = np.array([b[3] - b[1] for b in boxes], float)
    ref = float(np.percentile(hs, 70))
    small = [b for b in boxes if b[3] - b[1] < 0.75 * ref]
    large = [b for b in boxes if b[3] - b[1] >= 0.85 * ref]
    up = down = 0
    for sx0, sy0, sx1, sy1 in small:
        sh = sy1 - sy0
        up += any(label_above((sx0, sy0, sx1, sy1), value) for value in large)
        for lx0, ly0, lx1, ly1 in large:
            if abs(lx1 - sx1) < 1.5 * sh and 0 <= sy0 - ly1 < 1.5 * sh:
                down += 1
                break
    return up, down


def _zone_top(read: MRZRead, homography: np.ndarray, rect_shape, rotation: int) -> float | None:
    """Fraction of the upright rectified document above the MRZ block."""
    import cv2

    pts = cv2.perspectiveTransform(read.found.corners_in_input()[None], homography)[0]
    height, width = rect_shape[:2]
    for _ in range((rotation // 90) % 4):  # each clockwise quarter-turn: (x, y) -> (H - 1 - y, x)
        pts = np.stack([height - 1 - pts[:, 1], pts[:, 0]], 1)
        height, width = width, height
    top = float(pts[:, 1].min()) / height
    return top if 0.0 < top < 1.0 else None


def _mrz_top(mrz: MRZResult | None) -> float | None:
    """Fraction of the upright document above the MRZ (printed fields live there)."""
    top = getattr(mrz, "zone_top", None) if mrz is not None else None
    return top if top is not None and top > 0.3 else None


# A tilt under this many degrees is left as it is (1 and 2 read the same 27 fronts alike).
MIN_TILT_DEGREES = 2.0


def _levelled(rgb: np.ndarray) -> np.ndarray:
    """``rgb`` turned about its centre so that its text lines run horizontally or vertically (the quarter-turn
    is left to :func:`_orient_by_text`), or as it is when it holds too little text to tell. The frame keeps its
    size (the photo's corners are cut): a frame grown to hold them would be read smaller."""
    import cv2

    from docauth.ocr.mrz.finder import text_angle

    angle = text_angle(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
    if angle is None:
        return rgb
    tilt = (angle + 45.0) % 90.0 - 45.0
    if abs(tilt) < MIN_TILT_DEGREES:
        return rgb
    height, width = rgb.shape[:2]
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), tilt, 1.0)
    return cv2.warpAffine(rgb, turn, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _prints_nothing_more(mrz: MRZResult | None, side: str | None, page_shape) -> bool:
    """Is the page one card's back? A TD1 zone is on the back (unless the side model saw a front), which prints
    none of the fields the zone does not already carry; but a page in other proportions than one card holds
    more (both sides of the card scanned on one sheet), and is read.

    >>> from docauth.ocr.mrz import parse_mrz
    >>> back = parse_mrz(["I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6",
    ...                   "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
    >>> _prints_nothing_more(back, "back", (540, 856, 3)), _prints_nothing_more(back, "back", (1080, 856, 3))
    (True, False)
    >>> _prints_nothing_more(back, "front", (540, 856, 3))
    False
    """
    if side == "front" or mrz is None or mrz.type != "TD1" or not getattr(mrz, "structure_ok", False):
        return False
    height, width = page_shape[:2]
    return abs(max(height, width) / max(1, min(height, width)) - TD1_ASPECT) < ONE_CARD_ASPECT_SLACK


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
