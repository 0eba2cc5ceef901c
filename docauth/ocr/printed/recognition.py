"""What a printed line says: a CTC line recogniser (PP-OCRv4) over crops of the page, batched by width.

    recognizer = TextRecognizer(load_model("text_recognizer"))
    reads = recognizer([crop, ...])        # list[LineText]: text, confidence, per-glyph confidences

The model knows several thousand characters, most of them Chinese; identity documents print Latin letters
(with their diacritics), digits and punctuation, so decoding keeps only those (``allowed``): a blurred Latin
glyph then reads as its nearest Latin letter, never as an ideogram.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

import numpy as np

from docauth.imageio import bounded_resize
from docauth.ocr.printed.alignment import Folding, LineFrames
from docauth.ocr.printed.model_input import to_model_input

RECOGNIZER_MODEL = "text_recognizer"
LINE_HEIGHT = 48
MIN_LINE_WIDTH = 160  # narrower crops are padded: the model reads short words best with room after them
MAX_LINE_WIDTH = 1600  # longer lines are cut off there (no field is that long at 48 px high)
BATCH_WIDTH = 1600  # pixels of line width per model call
# Each crop is padded to its own width rounded up to this step, and only crops padded alike share a batch: the
# model mixes the whole width, so a crop padded to its batch's widest read differently with other company, and
# the padding cost model time. Whole steps also keep the shapes an engine compiles for (OpenVINO) few.
WIDTH_STEP = 160
# The model's time grows with the padded width; a finer step pays less padding, but changes how some short lines
# read (they see less blank after them), so a caller takes it only where it was measured to read as well.
FINE_WIDTH_STEP = 80


@dataclass(frozen=True)
class LineText:
    text: str
    confidence: float  # mean of the glyphs' probabilities (0 for an empty read)
    glyph_confidences: tuple[float, ...] = ()
    frames: LineFrames | None = field(default=None, repr=False, compare=False)  # what a known value is scored on


def allowed(labels: list[str]) -> np.ndarray:
    """Which of the model's classes a Latin-script document prints: blank, ASCII, Latin letters with
    diacritics (to U+024F), and the space."""
    keep = np.zeros(len(labels), bool)
    for i, ch in enumerate(labels):
        if i == 0 or ch == " ":
            keep[i] = True
        elif len(ch) == 1 and (ch.isascii() and ch.isprintable()
                               or ord(ch) <= 0x24F and unicodedata.category(ch).startswith("L")):
            keep[i] = True
    return keep


# Two letters this many times further apart (in frames) than the line's median letter pitch have a space
# between them: the recogniser was trained mostly on Chinese text, which has none, and often drops it.
SPACE_PITCH = 2.0


def _spaces_from_gaps(text: list[str], confidences: list[float], at: list[int]) -> tuple[list[str], list[float]]:
    letters = [i for i, ch in enumerate(text) if ch.isalpha()]
    pitches = [at[j] - at[i] for i, j in zip(letters, letters[1:]) if j == i + 1]
    if len(pitches) < 3:
        return text, confidences
    wide = SPACE_PITCH * float(np.median(pitches))
    out_text, out_conf = [text[0]], [confidences[0]]
    for i in range(1, len(text)):
        if (text[i].isalpha() and text[i - 1].isalpha() and at[i] - at[i - 1] > wide):
            out_text.append(" ")
            out_conf.append(min(confidences[i - 1], confidences[i]))
        out_text.append(text[i])
        out_conf.append(confidences[i])
    return out_text, out_conf


class TextRecognizer:
    def __init__(self, model, labels: list[str] | None = None):
        self.model = model
        self.labels = list(labels if labels is not None else model.labels)
        self.keep = allowed(self.labels)
        self.kept = np.flatnonzero(self.keep)  # the allowed classes' indices, in order (blank first)
        self.folding = Folding(self.labels, self.kept)

    @staticmethod
    def line_width(crop: np.ndarray) -> int:
        h, w = crop.shape[:2]
        return int(min(MAX_LINE_WIDTH, max(1, round(w * LINE_HEIGHT / max(h, 1)))))

    @staticmethod
    def padded_width(width: int, step: int = WIDTH_STEP) -> int:
        """The width a crop is padded to: at least ``MIN_LINE_WIDTH``, then whole steps.

        >>> TextRecognizer.padded_width(90), TextRecognizer.padded_width(161), TextRecognizer.padded_width(161, 80)
        (160, 320, 240)
        """
        return -(-max(MIN_LINE_WIDTH, width) // step) * step

    @classmethod
    def pads_alike(cls, crop: np.ndarray, step: int, other: int) -> bool:
        """Is ``crop`` padded to one width at both steps (so read alone, it is the same input at either)?

        >>> crop = np.zeros((48, 300, 3), np.uint8)
        >>> TextRecognizer.pads_alike(crop, 80, 160), TextRecognizer.pads_alike(crop[:, :200], 80, 160)
        (True, False)
        """
        width = cls.line_width(crop)
        return cls.padded_width(width, step) == cls.padded_width(width, other)

    def preprocess(self, crops: list[np.ndarray], step: int = WIDTH_STEP) -> list[tuple[list[int], np.ndarray]]:
        """Batches of (crop indices, NCHW array): crops of one padded width together, each resized once."""
        widths = [self.line_width(c) for c in crops]
        buckets: dict[int, list[int]] = {}
        for i, w in enumerate(widths):
            buckets.setdefault(self.padded_width(w, step), []).append(i)
        out = []
        for width, members in sorted(buckets.items()):
            per_batch = max(1, BATCH_WIDTH // width)
            for start in range(0, len(members), per_batch):
                idx = members[start:start + per_batch]
                x = np.zeros((len(idx), 3, LINE_HEIGHT, width), np.float32)
                for k, i in enumerate(idx):
                    line = bounded_resize(crops[i], (widths[i], LINE_HEIGHT))
                    to_model_input(line, out=x[k, :, :, :widths[i]])
                out.append((idx, x))
        return out

    def __call__(self, crops: list[np.ndarray], step: int = WIDTH_STEP) -> list[LineText]:
        """Each crop's text; ``step``: the padding's (``FINE_WIDTH_STEP`` where it reads as well)."""
        reads: list[LineText | None] = [None] * len(crops)
        for idx, batch in self.preprocess(crops, step):
            probabilities = self.model.predict(batch)
            for k, i in enumerate(idx):
                reads[i] = self.postprocess(probabilities[k])
        return [r if r is not None else LineText("", 0.0) for r in reads]

    def postprocess(self, frames: np.ndarray) -> LineText:
        """Greedy CTC decoding over the allowed classes: repeats merged, blanks dropped; a space the model
        left out between two letters set wider apart than the line's other letters is put back."""
        # Only the allowed classes' columns are looked at (a few hundred of the thousands): the same argmax as over
        # all of them with the others zeroed, the blank (class 0) winning where every allowed one is 0.
        allowed_frames = frames[:, self.kept]
        at_best = allowed_frames.argmax(1)
        best = self.kept[at_best]
        prob = allowed_frames[np.arange(len(best)), at_best]
        text, confidences, at, previous = [], [], [], 0
        for t, (cls, p) in enumerate(zip(best, prob)):
            if cls != 0 and cls != previous:
                text.append(self.labels[cls])
                confidences.append(float(p))
                at.append(t)
            previous = cls
        text, confidences = _spaces_from_gaps(text, confidences, at)
        while text and text[0] == " ":  # the glyphs stay aligned with the text's characters
            text, confidences = text[1:], confidences[1:]
        while text and text[-1] == " ":
            text, confidences = text[:-1], confidences[:-1]
        return LineText("".join(text), float(np.mean(confidences)) if confidences else 0.0, tuple(confidences),
                        self.folding(allowed_frames, at_best))
