"""The printed-field reader: detect the lines, read them, assign fields (a doctr-style predictor).

    reader = PrintedReader.load()
    read = reader(upright_rgb, mrz_top=0.72, mrz_fields={"surname": "ERIKSSON", ...})
    read.fields["surname"].value, read.fields["surname"].sure, read.lines

``forward`` reads top to bottom: the lines above the MRZ are detected, cut out and recognised in width
batches; captions name fields; where the MRZ says what the page prints, that value is looked for among all
the lines.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import numpy as np

from docauth.errors import ModelError
from docauth.ocr.printed.assign import (BELOW_GAP, CAPTION_GAP, FIELDS, RIGHT_GAP, FieldRead, PrintedLine,
                                        assign_by_captions, assign_dates_by_order, assign_names_by_order,
                                        assign_number_by_shape, find_in_print, with_labels)
from docauth.ocr.printed.closer import box_of, closer_side, nearness, widened, widening
from docauth.ocr.printed.detection import DETECTOR_MODEL, TextBox, TextDetector
from docauth.ocr.printed.known import find_aligned, other_name
from docauth.ocr.printed.recognition import FINE_WIDTH_STEP, RECOGNIZER_MODEL, WIDTH_STEP, TextRecognizer
from docauth.ocr.printed.record import confirm_record, record_values, record_values_apart
from docauth.ocr.printed.rows import bridges
from docauth.runtime import load_model

CROP_MARGIN = 0.12  # of the line's height, around each cut: the detector's box hugs the glyphs
MIN_LINE_ASPECT = 1.2  # width over height (margins included) of the narrowest line read: three glyphs
GLYPH_WIDTH = 0.55  # a glyph's width over its detected line's height (margins included), upper and lower case
CAPTION_GLYPHS = 18
ANY_DATE = {"expiry_date": "2000-01-01"}  # a date's printed size is its format's, not its value's
# Value-sized lines of more glyphs than this are read last on a page without an MRZ: a name of two long words,
# a caption and its value on one line, or (most often) a heading.
LONG_LINE_GLYPHS = 24
# The bands of a page without an MRZ read after the lines between them, in page heights: a header that ends above
# HEADER_BAND (the state, the document's name) and lines that start below SIGNATURE_BAND (the signature, a card
# access number).
HEADER_BAND = 0.17
SIGNATURE_BAND = 0.72
VALUE_HEIGHT = 0.8  # of the taller lines' height (75th percentile): a line this tall may hold a value
# Lines read at most when only the MRZ's values are looked for: the best-fitting few of a card's dozen.
ZONE_VALUES_ONLY_LINES = 12
# Which way up a page is: its longest lines read again turned half round, and the turn taken when their mean
# glyph confidence rises by more than a misread's scatter.
TURN_PROBE_LINES = 4
# Rows read across a gap at most, when a zone value was found nowhere else: one small recognition batch.
BRIDGED_LINES = 6
TURN_MARGIN = 0.1
# Lines read at most on each closer look for a value still unfound: one small recognition batch.
CLOSER_LINES = 8


@dataclass
class PrintedRead:
    fields: dict[str, FieldRead]
    lines: list[PrintedLine]
    timings_ms: dict = field(default_factory=dict)

    @property
    def values(self) -> dict[str, str]:
        return {name: read.value for name, read in self.fields.items()}

    def export(self) -> dict:
        return {name: read.export() for name, read in self.fields.items()}


class PrintedReader:
    def __init__(self, detector: TextDetector, recognizer: TextRecognizer):
        self.detector = detector
        self.recognizer = recognizer

    @classmethod
    def load(cls, models_dir: str | Path | None = None, backend: str | None = None, mode: str = "realtime"
             ) -> "PrintedReader":
        """``backend=None``: ``DOCAUTH_BACKEND`` (default ``auto``: the measured choice)."""
        detector = load_model(DETECTOR_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        recognizer = load_model(RECOGNIZER_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        if recognizer.input_shape[0] != 48 or len(recognizer.labels) < 40:
            raise ModelError(f"{RECOGNIZER_MODEL}: expected a 48 px high CTC line model over a character set")
        return cls(TextDetector(detector), TextRecognizer(recognizer))

    def __call__(self, upright_rgb: np.ndarray, *, mrz_top: float | None = None, mrz_fields: dict | None = None,
                 today: date | None = None, zone_values_only: bool = False, record: dict | None = None,
                 zone_valid: bool = False, zone_side: bool = False) -> PrintedRead:
        """``zone_values_only``: look only for the MRZ's values, in the few lines whose size fits them (a page
        that may not be the document's at all is not read whole). ``record``: the person the document should
        belong to (a 1:1 check); where no zone gives values, print is searched for the record's first
        (:mod:`docauth.ocr.printed.record`) and read whole only when they are not all found. ``zone_valid``: the
        zone passed its check digits, so its values found in print are all its lines are read for (an invalid
        zone's names and number are also settled on the lines read). ``zone_side``: the page is one card with its
        TD1 zone (a back by its shape and the zone, whatever the side model saw): where its read finds none of the
        zone's values, they are not looked for closer."""
        return self.forward(upright_rgb, mrz_top=mrz_top, mrz_fields=mrz_fields or {}, today=today,
                            zone_values_only=zone_values_only, record=record, zone_valid=zone_valid,
                            zone_side=zone_side)

    def forward(self, page: np.ndarray, *, mrz_top: float | None, mrz_fields: dict, today: date | None,
                zone_values_only: bool = False, record: dict | None = None, zone_valid: bool = False,
                zone_side: bool = False) -> PrintedRead:
        timings: dict = {}
        t = time.perf_counter()
        boxes = self.preprocess(self.detector(page), page.shape, mrz_top)
        timings["detect_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        values, captions = value_sized(boxes)
        wanted = {name: mrz_fields[name] for name in FIELDS if mrz_fields.get(name)}
        if wanted:
            # The cheapest read that can confirm the MRZ: value-sized lines one at a time until each value is
            # found, first those that could print a value still missing, under a caption (likelier a value than
            # the caption itself, whatever their lengths) and whose length best fits it; the rest (captions
            # included) only for a field whose value was not found among them.
            fits = {b: (not under_caption(b, boxes), fit(b, wanted)) for b in values}
            first = sorted((b for b in values if fits[b][1] is not None), key=fits.get)
            if zone_values_only:
                first = first[:ZONE_VALUES_ONLY_LINES]
            lines: list[PrintedLine] = []
            missing = list(wanted)
            unread = list(first)
            # A valid zone's values are looked for in the finer steps: padding is much of a line's recognition time,
            # and they are found in print as at the coarser step. Lines read for more than that (a value missing:
            # captions assign, and a print that contradicts the zone is told by how surely it was read) are read
            # at the coarser step, as the rest of the page is.
            step = FINE_WIDTH_STEP if zone_valid else WIDTH_STEP
            read_first: dict[TextBox, list[PrintedLine]] = {}
            while unread and missing:
                # One line at a time, each one read may be the last needed: the one fitting best the value known
                # to be missing (the stop's search names it), so lines sized for values found already wait.
                looked_for = {missing[0]: wanted[missing[0]]}
                box = min(unread, key=lambda b: fit_first(b, looked_for, fits[b]))
                unread.remove(box)
                new = read_first[box] = self._read(page, [box], step=step)
                lines += new
                if new:
                    missing = zone_values_missing(lines, mrz_fields, today, missing)
            # One card's page with its valid zone, none of whose values any line that could print one does, is the
            # card's back, which prints none (a card printing its zone on its front prints its values there too): the
            # rest of it is not read for them, nor read across or closer.
            back = (zone_side and zone_valid and bool(missing) and bool(lines)
                    and all(zone_value_in(name, lines, mrz_fields, today) is None for name in wanted))
            if missing and not back:
                if not zone_values_only:
                    if step != WIDTH_STEP:
                        lines = [line for box, read in read_first.items()
                                 for line in self._read_again_at(page, box, read, step)]
                    rest = [b for b in boxes if b not in first]
                    lines = sorted(lines + self._read(page, rest, captions), key=lambda line: (line.y0, line.x0))
            fields = self.postprocess(lines, mrz_fields, today)
            unfound = {name: value for name, value in wanted.items()
                       if name not in fields or fields[name].how != "mrz"}
            if unfound and not back:
                fields.update(self._found_across(page, boxes, unfound, mrz_fields, today))
                unfound = {name: value for name, value in unfound.items()
                           if name not in fields or fields[name].how != "mrz"}
            # One card's page with its zone, on which the read found none of the zone's values, is the card's back,
            # which prints none: a card printing its zone on its front prints its values there too, some found.
            if unfound and not (zone_side and len(unfound) == len(wanted)):
                fields.update(self._found_closer(page, boxes, lines, unfound, mrz_top, mrz_fields, today))
            if zone_values_only:
                fields = {name: read for name, read in fields.items() if read.how == "mrz"}
        else:
            done: dict[TextBox, PrintedLine | None] = {}

            def read(some: list[TextBox]) -> dict[TextBox, PrintedLine | None]:
                """Each box read once (a caption by its end), whichever step asks for it first."""
                new = [b for b in some if b not in done]
                # A page without a zone is read whole, so padding is most of its recognition time: the finer step.
                for b, line in zip(new, self._read_each(page, new, captions, FINE_WIDTH_STEP)):
                    done[b] = line
                return {b: done[b] for b in some}

            expected = record_values(record)
            fields = None
            if expected:
                order = sorted((b for b in values if fit(b, expected) is not None),
                               key=lambda b: (not under_caption(b, boxes), fit(b, expected)))
                dated = sorted((b for b in values if fit(b, ANY_DATE) is not None), key=lambda b: fit(b, ANY_DATE))
                fields = confirm_record(read, done, boxes, order, dated, expected, today)
                lines = sorted((line for line in done.values() if line is not None), key=lambda ln: (ln.y0, ln.x0))
            if fields is None:
                # Lines longer than a value read last, and only when a field is still not read surely: a page's
                # widest lines are mostly its headings (the state, the document's name), which name no field.
                short = [b for b in values if glyphs_in(b) <= LONG_LINE_GLYPHS]
                long = [b for b in values if glyphs_in(b) > LONG_LINE_GLYPHS]
                # The bands of a card's header and signature are read only where the lines between them leave
                # the answer open (``settled``).
                read([b for b in short + captions if not in_margin_band(b, page.shape)])
                lines = sorted((done[b] for b in short + captions if done.get(b) is not None),
                               key=lambda line: (line.y0, line.x0))
                fields = self.postprocess(lines, mrz_fields, today)
                if not settled(fields, lines, [b for b in short + captions if b not in done]):
                    lines = sorted((ln for ln in read(short + captions).values() if ln is not None),
                                   key=lambda line: (line.y0, line.x0))
                    fields = self.postprocess(lines, mrz_fields, today)
                if long and not all(name in fields and fields[name].sure for name in FIELDS):
                    lines = sorted(lines + [ln for ln in read(long).values() if ln is not None],
                                   key=lambda line: (line.y0, line.x0))
                    fields = self.postprocess(lines, mrz_fields, today)
        timings["recognise_ms"] = (time.perf_counter() - t) * 1000
        timings["lines"] = len(lines)
        return PrintedRead(fields, lines, timings)

    @staticmethod
    def with_record(read: PrintedRead, record: dict | None, today: date | None = None) -> PrintedRead:
        """``read`` (of a page without a zone's values) with each of ``record``'s values its lines print, on its
        own (``how`` "record", :func:`docauth.ocr.printed.record.record_values_apart`): where the record was not
        confirmed whole, small print may have hidden one value and left the others legible. Asked once the
        caller has settled which read of the page it keeps: values found on a page read in a wrong outline must
        not make that read look good."""
        expected = record_values(record)
        if not expected or all(name in read.fields and read.fields[name].how == "record" for name in expected):
            return read
        found = record_values_apart(read.lines, expected, today)
        return PrintedRead({**read.fields, **found}, read.lines, read.timings_ms) if found else read

    def reads_better_turned(self, page: np.ndarray, lines: list[PrintedLine]) -> bool:
        """Do the page's longest lines read more surely half a turn round? Text upside down reads as unsure
        glyphs, so a few lines tell which way up a page is for one small recognition batch, where reading the
        whole page again would cost a detection and every line."""
        probe = sorted(lines, key=lambda line: line.x1 - line.x0, reverse=True)[:TURN_PROBE_LINES]
        if not probe:
            return False
        crops = [np.ascontiguousarray(cut(page, box_of(line))[::-1, ::-1])
                 for line in probe]
        turned = float(np.mean([read.confidence for read in self.recognizer(crops)]))
        return turned > float(np.mean([line.confidence for line in probe])) + TURN_MARGIN

    def _found_across(self, page: np.ndarray, boxes: list[TextBox], unfound: dict, mrz_fields: dict,
                      today: date | None) -> dict[str, FieldRead]:
        """The zone's ``unfound`` values read across the gaps the detector left in a row (a stamp over a name):
        the few nearest pairs of lines on one row (``rows.bridges``) read again as one line each, in one batch,
        and looked at for those values alone, so no caption's assignment changes."""
        spans = [TextBox(*span, 1.0) for span in bridges(boxes)[:BRIDGED_LINES]]
        across = self._read(page, spans)
        found = {name: zone_value_in(name, across, mrz_fields, today) for name in unfound}
        return {name: read for name, read in found.items() if read is not None}

    def _found_closer(self, page: np.ndarray, boxes: list[TextBox], lines: list[PrintedLine], unfound: dict,
                      mrz_top: float | None, mrz_fields: dict, today: date | None) -> dict[str, FieldRead]:
        """The zone's ``unfound`` values looked for closer (:mod:`docauth.ocr.printed.closer`): small print detected
        again larger, then the lines that could print a value and whose glyphs stand too close for a repeat read
        again widened; each new line looked at for those values alone, so no caption's assignment changes."""
        found: dict[str, FieldRead] = {}

        def look(new: list[PrintedLine]) -> None:
            for name in unfound:
                if name not in found:
                    read = zone_value_in(name, new, mrz_fields, today)
                    if read is not None:
                        found[name] = read

        side = closer_side([b.height for b in boxes], page.shape, self.detector.side)
        if side is not None:
            near = self.preprocess(TextDetector(self.detector.model, side=side)(page), page.shape, mrz_top)
            near = sorted((b for b in near if fit(b, unfound) is not None), key=lambda b: fit(b, unfound))
            new = self._read(page, near[:CLOSER_LINES])
            look(new)
            lines = lines + new
        left = {name: value for name, value in unfound.items() if name not in found}
        # Each value's nearest reads among the lines that could print it, a share of the batch each: a long name's
        # many fitting lines leave a number its own.
        widen = {id(line): widening(line.frames) for line in lines}
        tight: list[PrintedLine] = []
        for name, value in left.items():
            fitting = [line for line in lines if widen[id(line)] > 1.0 and fit(box_of(line), {name: value}) is not None
                       and line not in tight]
            fitting.sort(key=lambda line: -nearness(line.text, name, value))
            tight += fitting[:max(2, CLOSER_LINES // len(left))]
        if left and tight:
            reads = self.recognizer([widened(cut(page, box_of(line)), widen[id(line)]) for line in tight])
            new = [PrintedLine(r.text, line.x0, line.y0, line.x1, line.y1, r.confidence, r.glyph_confidences,
                               frames=r.frames) for line, r in zip(tight, reads) if r.text]
            with_labels(new)
            look(new)
        return found

    def _read_again_at(self, page: np.ndarray, box: TextBox, read: list[PrintedLine], step: int,
                       again: int = WIDTH_STEP) -> list[PrintedLine]:
        """``box``'s line at step ``again``, alone in its batch, where ``read`` is its line read alone at ``step``:
        a line padded to one width at both steps is the very same input to the model, so its read is kept."""
        if self.recognizer.pads_alike(cut(page, box), step, again):
            # Copies labelled afresh, as a new read would be: assigning captions since may have relabelled them.
            return with_labels([replace(line) for line in read])
        return self._read(page, [box], step=again)

    def _read(self, page: np.ndarray, boxes: list[TextBox], captions=(), step: int = WIDTH_STEP) -> list[PrintedLine]:
        """The lines' text; a long caption-sized line is read by its end alone (``caption_tail``)."""
        return [line for line in self._read_each(page, boxes, captions, step) if line is not None]

    def _read_each(self, page: np.ndarray, boxes: list[TextBox], captions=(), step: int = WIDTH_STEP
                   ) -> list[PrintedLine | None]:
        """Each box's line, None where it read as nothing."""
        if not boxes:
            return []
        captions = set(captions)
        reads = self.recognizer([cut(page, caption_tail(b) if b in captions else b) for b in boxes], step)
        lines = [PrintedLine(r.text, b.x0, b.y0, b.x1, b.y1, r.confidence, r.glyph_confidences, frames=r.frames)
                 if r.text else None
                 for b, r in zip(boxes, reads)]
        with_labels([line for line in lines if line is not None])
        return lines

    @staticmethod
    def preprocess(boxes: list[TextBox], shape, mrz_top: float | None) -> list[TextBox]:
        """The lines that can hold a printed field: above the MRZ (read already, by its own reader), and
        wider than a glyph or two (a sex or a type code is no field this reader reports)."""
        limit = shape[0] * mrz_top if mrz_top is not None else float("inf")
        return [b for b in boxes if b.cy < limit and b.width >= MIN_LINE_ASPECT * b.height]

    @staticmethod
    def postprocess(lines: list[PrintedLine], mrz_fields: dict, today: date | None) -> dict[str, FieldRead]:
        fields = assign_by_captions(lines, today)
        assign_dates_by_order(lines, fields, today)
        assign_names_by_order(lines, fields)
        if not mrz_fields.get("document_number"):  # a zone's number is looked for as the zone has it, below
            assign_number_by_shape(lines, fields, today)
        for name in FIELDS:
            if mrz_fields.get(name):
                found = zone_value_in(name, lines, mrz_fields, today)
                if found is not None:
                    fields[name] = found
        return fields


def off_zone(lines: list[PrintedLine]) -> list[PrintedLine]:
    """The lines but the MRZ's own, read with the print where the zone's place on the page is not known (a sheet
    taken whole): the zone spells every value it encodes, so its values are never looked for on its own lines.
    Its fillers run in twos and more, which no printed field does.

    >>> [line.text for line in off_zone([PrintedLine(t, 0, 0, 9, 9, 1.0) for t in
    ...  ("I<UTOD231458907<<<<<<<<<<<<<<<", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<", "<A> 12", "D23145890")])]
    ['<A> 12', 'D23145890']
    """
    return [line for line in lines if "<<" not in line.text]


def zone_values_missing(lines: list[PrintedLine], mrz_fields: dict, today: date | None, order: list[str]
                        ) -> list[str]:
    """The zone's values (``order``: their fields, the last missing first) that ``postprocess`` would not find
    in ``lines``: what it finds them by alone, looked for only up to the first missing one (the read goes on
    either way), and not caption by caption after each line read."""
    for k, name in enumerate(order):
        if zone_value_in(name, lines, mrz_fields, today) is None:
            return [name] + order[:k] + order[k + 1:]
    return []


def zone_value_in(name: str, lines: list[PrintedLine], mrz_fields: dict, today: date | None) -> FieldRead | None:
    """The zone's value of ``name`` printed in ``lines`` (the zone's own lines aside): as read, else (the greedy
    reads miss it) by the recogniser's probabilities."""
    lines = off_zone(lines)
    read = find_in_print(name, mrz_fields[name], lines, today)
    if read is None:
        read = find_aligned(name, mrz_fields[name], lines, others=other_name(name, mrz_fields))
    return read


def fit_first(box: TextBox, looked_for: dict[str, str], fits: tuple[bool, float]) -> tuple:
    """Sort key of a line while ``looked_for`` is missing: lines that could print it first, under a caption first,
    then by how well their length fits it; ``fits`` is the line's (not under a caption, fit to any zone value)."""
    near = fit(box, looked_for)
    return near is None, fits[0], fits[1] if near is None else near


def in_margin_band(box: TextBox, page_shape) -> bool:
    """Does the line stand in a card's header band (the issuing state and the document's name, ICAO 9303 part 5's
    zone I) or its signature band? Generated layouts print every field's caption and value between the two."""
    height = page_shape[0]
    return box.y1 <= HEADER_BAND * height or box.y0 >= SIGNATURE_BAND * height


def settled(fields: dict[str, FieldRead], lines: list[PrintedLine], unread: list[TextBox]) -> bool:
    """Can no line left ``unread`` change ``fields``? Every field was read surely under its caption, and no unread
    line stands where a caption's value or a value's continuation could (below a caption or value line, or on
    its row to its right, by the reach of :func:`docauth.ocr.printed.assign.assign_by_captions`). A caption
    printed again among the unread lines is not ruled out: a card names each field once."""
    if not all(name in fields and fields[name].sure and fields[name].how == "label" for name in FIELDS):
        return False
    taken = {read.box for read in fields.values()}
    anchors = [line for line in lines
               if line.box in taken or (line.label is not None and line.label.field in FIELDS)]
    for anchor in anchors:
        h = max(anchor.h, 1.0)
        for box in unread:
            below = box.cy > anchor.cy and box.y0 - anchor.y1 <= BELOW_GAP * h
            beside = (abs(box.cy - anchor.cy) <= 0.5 * max(h, box.height) and box.x1 > anchor.x0
                      and box.x0 - anchor.x1 <= RIGHT_GAP * max(h, box.height))
            if below or beside:
                return False
    return True


def value_sized(boxes: list[TextBox]) -> tuple[list[TextBox], list[TextBox]]:
    """(lines as tall as printed values, the rest): documents print captions smaller than the data under them
    (ICAO 9303 part 3), so the tall lines hold the values and a few headings."""
    if len(boxes) < 4:
        return boxes, []
    tall = VALUE_HEIGHT * float(np.percentile([b.height for b in boxes], 75))
    return [b for b in boxes if b.height >= tall], [b for b in boxes if b.height < tall]


def under_caption(box: TextBox, boxes: list[TextBox]) -> bool:
    """Does ``box`` stand closer under a line than over the next (ICAO 9303 part 3 prints each caption just
    above its value, and fields apart by more than that): a value under its caption rather than a caption?

    >>> caption, value = TextBox(10, 100, 120, 112, 1), TextBox(10, 114, 90, 130, 1)
    >>> under, nxt = TextBox(12, 150, 140, 162, 1), TextBox(12, 164, 80, 180, 1)
    >>> [under_caption(b, [caption, value, under, nxt]) for b in (caption, value, under, nxt)]
    [False, True, False, True]
    """
    def overlaps(other: TextBox) -> bool:
        return other is not box and min(other.x1, box.x1) > max(other.x0, box.x0)

    above = [box.y0 - b.y1 for b in boxes if overlaps(b) and b.cy < box.cy and b.y1 <= box.y0 + 0.5 * box.height]
    below = [b.y0 - box.y1 for b in boxes if overlaps(b) and b.cy > box.cy and b.y0 >= box.y1 - 0.5 * box.height]
    if not above or min(above) > CAPTION_GAP * box.height:
        return False
    return not below or min(above) < min(below)


def glyphs_in(box: TextBox) -> float:
    """About how many glyphs a line of this size holds."""
    return box.width / (GLYPH_WIDTH * max(box.height, 1.0))


def fit(box: TextBox, values: dict[str, str]) -> float | None:
    """How well the line's length fits the likeliest of ``values`` (field -> the MRZ's value): 0 for a line
    of just that many glyphs, larger the further off; None when it could print none of them."""
    n = glyphs_in(box)
    best = None
    for name, value in values.items():
        if name in ("date_of_birth", "expiry_date"):
            low, expected, high = 5, 11, 20  # 010195, 01.01.1995, "01 JAN/JANV 1995"
        else:
            expected = len(value)
            low, high = max(2.0, 0.5 * expected), 1.8 * expected + 4
        if low <= n <= high:
            off = abs(np.log(n / expected))
            best = off if best is None else min(best, off)
    return best


def caption_tail(box: TextBox) -> TextBox:
    """The last ``CAPTION_GLYPHS`` glyphs of a caption-sized line: a multilingual caption names its field in
    each language, so its end alone says which field it is."""
    width = CAPTION_GLYPHS * GLYPH_WIDTH * box.height
    if box.width <= width:
        return box
    return TextBox(box.x1 - width, box.y0, box.x1, box.y1, box.score)


def cut(page: np.ndarray, box: TextBox) -> np.ndarray:
    margin = CROP_MARGIN * box.height
    h, w = page.shape[:2]
    x0, y0 = int(max(0, box.x0 - margin)), int(max(0, box.y0 - margin))
    x1, y1 = int(min(w, box.x1 + margin)), int(min(h, box.y1 + margin))
    return page[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)]
