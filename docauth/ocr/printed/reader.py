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
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

from docauth.errors import ModelError
from docauth.ocr.printed.assign import (FIELDS, FieldRead, PrintedLine, assign_by_captions, assign_dates_by_order,
                                        find_in_print, with_labels)
from docauth.ocr.printed.detection import DETECTOR_MODEL, TextBox, TextDetector
from docauth.ocr.printed.recognition import RECOGNIZER_MODEL, TextRecognizer

CROP_MARGIN = 0.12  # of the line's height, around each cut: the detector's box hugs the glyphs
MIN_LINE_ASPECT = 1.2  # width over height (margins included) of the narrowest line read: three glyphs
VALUE_HEIGHT = 0.8  # of the taller lines' height (75th percentile): a line this tall may hold a value


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
    def load(cls, models_dir: str | Path | None = None, backend: str = "auto", mode: str = "realtime"
             ) -> "PrintedReader":
        from docauth.runtime import load_model

        detector = load_model(DETECTOR_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        recognizer = load_model(RECOGNIZER_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        if recognizer.input_shape[0] != 48 or len(recognizer.labels) < 40:
            raise ModelError(f"{RECOGNIZER_MODEL}: expected a 48 px high CTC line model over a character set")
        return cls(TextDetector(detector), TextRecognizer(recognizer))

    def __call__(self, upright_rgb: np.ndarray, *, mrz_top: float | None = None, mrz_fields: dict | None = None,
                 today: date | None = None) -> PrintedRead:
        return self.forward(upright_rgb, mrz_top=mrz_top, mrz_fields=mrz_fields or {}, today=today)

    def forward(self, page: np.ndarray, *, mrz_top: float | None, mrz_fields: dict, today: date | None
                ) -> PrintedRead:
        timings: dict = {}
        t = time.perf_counter()
        boxes = self.preprocess(self.detector(page), page.shape, mrz_top)
        timings["detect_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        wanted = [name for name in FIELDS if mrz_fields.get(name)]
        if wanted:
            # The cheapest read that can confirm the MRZ: the value-sized lines first; the captions only for
            # a field whose value was not found among them.
            first, rest = value_sized(boxes)
            lines = self._read(page, first)
            fields = self.postprocess(lines, mrz_fields, today)
            if rest and any(fields.get(name) is None or fields[name].how != "mrz" for name in wanted):
                lines = sorted(lines + self._read(page, rest), key=lambda line: (line.y0, line.x0))
                fields = self.postprocess(lines, mrz_fields, today)
        else:
            lines = self._read(page, boxes)
            fields = self.postprocess(lines, mrz_fields, today)
        timings["recognise_ms"] = (time.perf_counter() - t) * 1000
        timings["lines"] = len(lines)
        return PrintedRead(fields, lines, timings)

    def _read(self, page: np.ndarray, boxes: list[TextBox]) -> list[PrintedLine]:
        reads = self.recognizer([cut(page, b) for b in boxes])
        return with_labels([PrintedLine(r.text, b.x0, b.y0, b.x1, b.y1, r.confidence, r.glyph_confidences)
                            for b, r in zip(boxes, reads) if r.text])

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
        for name in FIELDS:
            if mrz_fields.get(name):
                found = find_in_print(name, mrz_fields[name], lines, today)
                if found is not None:
                    fields[name] = found
        return fields


def value_sized(boxes: list[TextBox]) -> tuple[list[TextBox], list[TextBox]]:
    """(lines as tall as printed values, the rest): documents print captions smaller than the data under them
    (ICAO 9303 part 3), so the tall lines hold the values and a few headings."""
    if len(boxes) < 4:
        return boxes, []
    tall = VALUE_HEIGHT * float(np.percentile([b.height for b in boxes], 75))
    return [b for b in boxes if b.height >= tall], [b for b in boxes if b.height < tall]


def cut(page: np.ndarray, box: TextBox) -> np.ndarray:
    margin = CROP_MARGIN * box.height
    h, w = page.shape[:2]
    x0, y0 = int(max(0, box.x0 - margin)), int(max(0, box.y0 - margin))
    x1, y1 = int(min(w, box.x1 + margin)), int(min(h, box.y1 + margin))
    return page[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)]
