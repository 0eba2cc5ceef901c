"""Reading the MRZ from an image: the finder's blocks, each read both ways up by the line recogniser and parsed,
the best read kept (:class:`MRZReader`), and whether a read is an MRZ at all (:func:`credible`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from docauth.ocr.mrz.countries import is_known_code
from docauth.ocr.mrz.direction import GLYPH_MAP_SIDE, glyph_map, text_angle, welded_text_angle
from docauth.ocr.mrz.finder import LINE_LENGTHS, FoundMRZ, ZoneSearch, angle_apart, cut_strip
from docauth.ocr.mrz.glyphs import Labelled
from docauth.ocr.mrz.line_model import decode_line, vote_lines
from docauth.ocr.mrz.parse import MRZResult, checks_pass, parse_mrz


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

    def glyph_pitch(self) -> float:
        """How many pixels of the input image lie between one character and the next along the zone's lines
        (median over its lines): how much of each glyph the image recorded, whatever it was enlarged to for
        reading."""
        block = self.found.block
        pitches = []
        for line, text in zip(block.lines, self.result.lines or [""] * len(block.lines)):
            ends = np.array([[line.x0, line.y_at(line.x0)], [line.x1, line.y_at(line.x1)]]) / block.scale
            start, end = self.found.to_input(ends)
            pitches.append(float(np.hypot(*(end - start))) / max(len(text) or line.count, 1))
        return float(np.median(pitches))

    def zone_in_reading_order(self) -> np.ndarray:
        """The MRZ block's corners in input coordinates, TL first where the first line starts."""
        corners = self.found.corners_in_input()
        read_turned = abs((self.reading_angle - self.found.angle + 180.0) % 360.0 - 180.0) > 90.0
        return np.roll(corners, 2, axis=0) if read_turned else corners


class MRZReader:
    """Find the MRZ in a grayscale image and read its lines with the line recogniser (CTC)."""
    def __init__(self, model):
        self.model = model

    def read(self, image: np.ndarray, *, expected: bool = True) -> MRZRead | None:
        """The best reading of the MRZ-like blocks in ``image`` (grayscale, or RGB), the first valid one, or None.

        ``expected=False`` (a card front): searched along the text direction only, not also
        along the image axes, and without the second, hair-line-cutting pass: each costs line
        searches on an image that most likely has no MRZ.

        An RGB image is searched in its luminance first; where that gives no valid read of an expected zone,
        again in black ink alone (:func:`black_ink`), and the better read is kept.
        """
        if image.ndim == 2:
            return self._read_gray(image, expected=expected)
        rgb = np.ascontiguousarray(image[..., :3])
        best = self._read_gray(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), expected=expected)
        if expected and (best is None or not best.result.valid):
            best = better_in_black_ink(best, self.read_in_black_ink(rgb))
        return best

    def read_in_black_ink(self, rgb: np.ndarray) -> MRZRead | None:
        """The zone searched for in black ink alone (:func:`black_ink`); None for an image without colour,
        where that is its luminance."""
        rgb = np.ascontiguousarray(rgb[..., :3])
        return self._read_gray(black_ink(rgb), expected=True) if _coloured(rgb) else None

    def reading(self, gray: np.ndarray) -> "ZoneReading":
        """``gray`` prepared to be searched for a zone as often as asked (:class:`ZoneReading`)."""
        return ZoneReading(self, gray)

    def _read_gray(self, gray: np.ndarray, *, expected: bool) -> MRZRead | None:
        return ZoneReading(self, gray).read(expected=expected)

    def read_block(self, found: FoundMRZ) -> MRZRead:
        """Read a block as found and, unless that read is valid, turned 180 degrees: the right way gives the
        valid or more confident text."""
        block = found.block
        strips = np.stack([cut_strip(found.gray, line, block.scale) for line in block.lines])
        probs = self.model.predict(strips[..., None])
        first_lines = _decoded(probs)
        first = _parsed(first_lines[1])
        # A block valid as found is the right way up (turned, a valid zone reads as nonsense): it is not read
        # turned for nothing (half the recogniser's work on a zone).
        turned = None
        if not first[0].valid:
            flipped = np.ascontiguousarray(strips[::-1, ::-1, ::-1])  # turned: lines reversed, each reversed
            turned_probs = self.model.predict(flipped[..., None])
            turned_lines = _decoded(turned_probs)
            turned = _parsed(turned_lines[1])
        upright = 0 if turned is None or _upright_first(first, turned) else 1
        result, confidence = first if upright == 0 else turned
        if not result.valid and _mrz_like(result):
            voted = self._read_recut(found, probs if upright == 0 else turned_probs,
                                     first_lines if upright == 0 else turned_lines, upright=bool(upright))
            # Only a vote whose check digits all pass replaces the read (its names may still be unsure): one that
            # fails too is no surer, and the correction search on its other candidates can respell a zone whose
            # check digits are wrong as printed until the composite fits.
            if voted is not None and checks_pass(voted[0]) and _rank_parts(*voted) > _rank_parts(result, confidence):
                result, confidence = voted
        angle = (found.angle + 180.0 * upright + 180.0) % 360.0 - 180.0
        return MRZRead(result=result, reading_angle=angle, found=found, confidence=confidence)

    def _read_recut(self, found: FoundMRZ, probs: np.ndarray, decoded: tuple[int | None, list], *, upright: bool
                    ) -> tuple[MRZResult, float] | None:
        """The block read again from strips cut a little differently (shifted, taller, shorter, longer), each
        line's reads voted character by character (:func:`vote_lines`) with the first read, ``probs`` (decoded:
        ``decoded``); None when a line has no read of the format's length to vote.

        A cut that clips a glyph or takes in a line of print above garbles the same glyphs in every read of
        it; other cuts garble others.
        """
        block = found.block
        strips = np.stack([cut_strip(found.gray, line, block.scale, pad=pad, dy=dy, half_height=half)
                           for pad, dy, half in RECUT_VARIANTS for line in block.lines])
        if upright:  # read the other way up: each cut's lines reversed, each line reversed
            strips = strips.reshape(len(RECUT_VARIANTS), len(block.lines), *strips.shape[1:])[:, ::-1, ::-1, ::-1]
            strips = strips.reshape(-1, *strips.shape[2:])
        recut = self.model.predict(strips[..., None]).reshape(len(RECUT_VARIANTS), *probs.shape)
        length, first = decoded
        lines = [vote_lines([first[k], *(decode_line(p, length) for p in recut[:, k])], length)
                 for k in range(len(probs))]
        if any(line is None for line in lines):
            return None
        return _parsed(lines, f", strips cut {len(RECUT_VARIANTS) + 1} ways")


class ZoneReading:
    """One grayscale image searched for a zone, as often as a reader asks, with or without expecting one: its
    reading scale, glyph map, text directions, levelled images and each block's read are made once (a card
    "front" is searched again without a side, which repeats the first search's work)."""

    def __init__(self, reader: MRZReader, gray: np.ndarray):
        self.reader = reader
        self.gray, self.zoom = _reading_scale(gray)
        self.glyphs = Labelled(glyph_map(self.gray))  # both direction measures work on it
        self.angle = text_angle(self.gray, glyphs=self.glyphs.binary, components=self.glyphs.components)
        # An image no larger than its glyph map is that map unreduced: the unturned search labels it once with them.
        unreduced = max(self.gray.shape) <= GLYPH_MAP_SIDE
        # the second pass and the welded direction reuse the first's images
        self.search = ZoneSearch(self.gray, labelled=self.glyphs if unreduced else None)
        self._welded: list = []  # the welded-run direction, once measured
        self._reads: dict = {}  # id(found) -> (found, its read): the search hands out the same blocks again

    def read(self, *, expected: bool) -> MRZRead | None:
        """:meth:`MRZReader.read` of the image (see there for ``expected``). Reads handed out share their
        :class:`MRZResult` with later calls' reads of the same block."""
        angle = self.angle
        read_blocks: list = []  # the blocks read: the second pass may find the first's again
        best: MRZRead | None = None
        # Second pass only when the first read nothing valid: with hair-lines cut, an MRZ printed over
        # guilloche comes apart into its lines (it costs a second line search, so not by default).
        for open_thin in (None, True) if expected else (None,):
            best = self._read_best(self.search.levelled(limit=2, open_thin=open_thin, axes=expected, angle=angle),
                                   best, read_blocks)
            if best is None or best.result.valid:
                break
        if expected and (best is None or not best.result.valid):
            # Glyphs welded into runs (motion blur) leave too few single glyphs to tell the direction of the
            # text, or it follows other text (a typed page beside the document): the runs' own axes tell it.
            if not self._welded:
                self._welded.append(welded_text_angle(self.gray, glyphs=self.glyphs.binary,
                                                      components=self.glyphs.components))
            welded = self._welded[0]
            tried = [angle] if angle is not None else [0.0, 90.0]
            # Runs of glyphs are long: a tilt the glyph chaining shrugs off (4 degrees) lifts a run's end by
            # more than its height, so a closer direction is searched again.
            if welded is not None and all(angle_apart(welded, a) > WELDED_SAME_DIRECTION for a in tried):
                best = self._read_best(self.search.at(welded, limit=2), best, read_blocks)
        if best is not None and self.zoom != 1.0:
            best = replace(best, found=_unzoomed(best.found, self.zoom))
        return best

    def _read_best(self, candidates: list[FoundMRZ], best: MRZRead | None, read_before: list) -> MRZRead | None:
        """The better of ``best`` and the candidates read in turn, up to the first valid one. A read the
        reader would drop as other text (:func:`credible`) never displaces one it would keep: its score
        is no measure against a zone's (a sharp zone with wrong check digits scores low too).

        ``read_before``: the blocks already weighed for ``best`` (the same block reads the same again,
        and a tie never displaces ``best``), skipped; those read now are added."""
        for found in candidates:
            if any(found is seen for seen in read_before):
                continue
            read_before.append(found)
            read = self._read_block(found)
            if best is None or _rank_kept_first(read) > _rank_kept_first(best):
                best = read
            if read.result.valid:
                break
        return best

    def _read_block(self, found: FoundMRZ) -> MRZRead:
        if id(found) not in self._reads:
            self._reads[id(found)] = (found, self.reader.read_block(found))
        return self._reads[id(found)][1]


def _parsed(reads: list, how: str = "") -> tuple[MRZResult, float]:
    """The MRZ the line reads spell, and the recogniser's confidence in them (geometric mean)."""
    confidence = float(np.exp(np.mean([np.log(max(r.confidence, 1e-9)) for r in reads])))
    result = parse_mrz([r.text for r in reads], alternatives=[r.alternatives for r in reads])
    result.warnings.append(f"recogniser confidence {confidence:.3f}{how}")
    return result, confidence


def _decoded(probs: np.ndarray) -> tuple[int | None, list]:
    """The length the block's lines must have, and each line decoded to it: two lines are 44 (TD3, MRV-A) or 36
    (TD2, MRV-B) characters, whichever the frames say; None for a line count no format has. A line decoded freely
    to that length already is that decode (:func:`decode_line` only searches when the length differs)."""
    lengths = LINE_LENGTHS.get(len(probs), (None,))
    if len(lengths) > 1:
        free = [decode_line(p) for p in probs]
        length = min(lengths, key=lambda n: abs(n - float(np.median([len(r.text) for r in free]))))
        return length, [r if len(r.text) == length else decode_line(p, length) for r, p in zip(free, probs)]
    return lengths[0], [decode_line(p, lengths[0]) for p in probs]


# Strip cuts (pad before/after, baseline shift, half height, in line heights) for reading a block again: within
# the variation the recogniser was trained on (docauth.training.line_model._jitter); the first read's cut is
# (0.7, 0.7), 0, 0.85.
RECUT_VARIANTS = (((0.7, 0.7), -0.1, 0.85), ((0.7, 0.7), 0.1, 0.85), ((0.7, 0.7), 0.0, 0.75),
                  ((0.7, 0.7), 0.0, 1.0), ((0.3, 0.3), 0.0, 0.85), ((1.2, 1.2), 0.0, 0.85))


def _mrz_like(result: MRZResult) -> bool:
    """Does a read look like an MRZ, valid or not: its structure, or a country code where the issuing state
    stands? Other text taken for a zone (a card front's fields, a header) mostly has neither."""
    return result.structure_ok or bool(result.lines and is_known_code(result.lines[0][2:5]))


# A block read as an MRZ with a low score (see MRZResult.score) that the recogniser was also unsure of is
# most likely other text taken for one (a card front's printed fields), and is dropped ("no MRZ read"). A sharp
# MRZ whose check digits fail is kept whatever its score: "fails its checks" is what a forged MRZ looks like.
# A read without an MRZ's structure (letters where its dates are, no dates at all) whose issuing state is no
# country code either is dropped however confident the recogniser was: card headers and label rows read as a
# zone that way. A real zone half lost under glare keeps its code and is kept: reported invalid, with the
# fields its own check digits vouch for.
MIN_CREDIBLE_MRZ_SCORE = 50
MIN_CREDIBLE_MRZ_CONFIDENCE = 0.8


def credible(read: "MRZRead | None") -> "MRZRead | None":
    if read is None or read.result.valid:
        return read
    result = read.result
    if not _mrz_like(result):
        return None
    if result.score >= MIN_CREDIBLE_MRZ_SCORE or read.confidence >= MIN_CREDIBLE_MRZ_CONFIDENCE:
        return read
    return None


def zone_like(read: "MRZRead | None") -> bool:
    """Does a read look like a zone (its structure, or a country code where the issuing state stands), however
    unsure the recogniser was of it? Not what :func:`credible` keeps: where to look again."""
    return read is not None and _mrz_like(read.result)


# The recogniser was trained on upright lines only: a block read the wrong way up is nonsense to it, so its
# confidence drops. When neither way passes every check, a clear confidence gap settles which way is up
# before the scores do: a sharp MRZ with wrong check digits scores lower than its own upside-down nonsense.
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


def rank(read: MRZRead) -> tuple:
    return _rank_parts(read.result, read.confidence)


def _rank_kept_first(read: MRZRead) -> tuple:
    return (credible(read) is not None, *rank(read))


def better_in_black_ink(read: "MRZRead | None", inked: "MRZRead | None") -> "MRZRead | None":
    """The read in black ink where it is valid, or where luminance gave no credible read: one invalid read is
    no surer than another, and removing colour can take glyph strokes with it."""
    if inked is not None and (inked.result.valid or credible(read) is None) and (
            read is None or _rank_kept_first(inked) > _rank_kept_first(read)):
        return inked
    return read


def black_ink(rgb: np.ndarray) -> np.ndarray:
    """How far each pixel is from black ink: its brightest channel plus its colourfulness (brightest less
    darkest channel). Black print stays dark; coloured print (a security background, a SPECIMEN overprint,
    a stamp across the zone) turns as light as the paper. ICAO 9303 prints the MRZ in ink that absorbs in the
    near infrared, black: where coloured print crosses its glyphs, luminance welds them to it.

    >>> px = np.array([[[20, 20, 20], [200, 30, 160], [230, 230, 230], [120, 110, 130]]], np.uint8)
    >>> black_ink(px).tolist()             # black, magenta, paper, a gray glyph edge
    [[20, 255, 230, 150]]
    """
    red, green, blue = cv2.split(rgb)  # OpenCV per channel: numpy's reduction over the channel axis costs many
    top = cv2.max(cv2.max(red, green), blue)  # times as much on a photo
    # 2 * top - darkest, at most 255: top plus its colourfulness (never negative), the sum saturated
    return cv2.add(top, cv2.subtract(top, cv2.min(cv2.min(red, green), blue)))


# Mean spread between an image's brightest and darkest channel (0-255) under which it is taken for gray: a
# scan or photo in gray levels has nothing for black_ink to remove.
MIN_COLOUR_SPREAD = 4.0


def _coloured(rgb: np.ndarray) -> bool:
    step = max(1, max(rgb.shape[:2]) // 200)  # a sample of the pixels says it
    sample = rgb[::step, ::step].astype(np.int16)
    return float((sample.max(axis=2) - sample.min(axis=2)).mean()) >= MIN_COLOUR_SPREAD


# The long side an image is searched at: smaller scans are enlarged (their glyphs come apart under
# thresholding), huge photos reduced (the search's cost grows with the pixels, not its findings).
READ_MIN_SIDE, READ_MAX_SIDE = 1000, 2000
# Degrees: a welded-run direction this close to one already searched would find the same blocks again.
WELDED_SAME_DIRECTION = 1.5


def reading_zoom(shape) -> float:
    """The scale an image of ``shape`` is searched for a zone at (see READ_MIN_SIDE, READ_MAX_SIDE)."""
    long_side = max(shape[:2])
    return READ_MIN_SIDE / long_side if long_side < READ_MIN_SIDE else min(1.0, READ_MAX_SIDE / long_side)


def _reading_scale(gray: np.ndarray) -> tuple[np.ndarray, float]:
    """Small scans are enlarged (glyphs come apart under thresholding), huge photos reduced."""
    zoom = reading_zoom(gray.shape)
    if zoom == 1.0:
        return gray, 1.0
    size = (round(gray.shape[1] * zoom), round(gray.shape[0] * zoom))
    return cv2.resize(gray, size, interpolation=cv2.INTER_CUBIC if zoom > 1 else cv2.INTER_AREA), zoom


def _unzoomed(found: FoundMRZ, zoom: float) -> FoundMRZ:
    """The same block, with ``to_level`` taking original input coordinates."""
    to_level = found.to_level @ np.diag([zoom, zoom, 1.0])
    return FoundMRZ(found.gray, found.block, found.angle, to_level)
