"""The printed-field recogniser: one printed value (a document number, a date) read from its text box.

Tesseract's ``eng`` model reads words of a language; a document number is a random run of letters and
digits, where it confuses 8/B, 5/S, 0/O and 9/0, and it glues a date's day to its month ('6 OCT' read
'(SOCT'). On generated card fronts whose outline was found well, the printed number was wrong on about
one in seven. This model reads a value as the MRZ line recogniser reads a line: the same network
(:func:`docauth.ocr.mrzlines.build_model`, CTC, no segmentation) at 32 x 320, with the characters
printed values use.

It learns the crops it will see: training cuts the text boxes with the printed-zone reader's own code
(:func:`docauth.ocr.viz.text_boxes`, :func:`docauth.ocr.viz.box_crop`) from synthetic captures
(TRAIN seeds) warped flat from their corners (moved by up to 1.5 %, as the locator leaves them), and
labels each with the value the generator printed there (``label["value_boxes"]``).

>>> fold("Müller-Øst"), fold("09 AUG/AOÛT 50"), fold("ΑΘΗΝΑ") is None
('MULLER-OEST', '09 AUG/AOUT 50', True)
"""

from __future__ import annotations

import time
import unicodedata
from pathlib import Path

import numpy as np

from docauth.ocr.mrzlines import BLANK, LINE_H, LineRead, decode_line

MODEL_NAME = "viz_lines"
FIELD_H = LINE_H
FIELD_W = 320
CHARS = " 0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ/.-,'"
LABELS = [BLANK, *CHARS]
MAX_LENGTH = 30  # characters of one value; frames (80) must leave room for CTC's blanks between repeats
# Documents print value boxes of every field; these are the kinds whose generator boxes are kept for
# training (names as well as numbers and dates: the model must not take every box for a number).
_CAPTURE_CATEGORIES = ("td1_front", "td1_front", "td1_back")
# Letters Unicode does not decompose, spelled as ICAO 9303 transliterates them (Ø is OE: the MRZ and the
# person's record spell ÆRØBØ as AEROEBOE; dropping its stroke would give a name no one has).
_LETTERS_WITHOUT_DECOMPOSITION = str.maketrans({"ß": "SS", "ẞ": "SS", "Æ": "AE", "Ø": "OE", "Œ": "OE",
                                                "Ł": "L", "Đ": "D", "Þ": "TH", "Ð": "D", "Ħ": "H", "ı": "I"})
_UNDECOMPOSED = frozenset(map(chr, _LETTERS_WITHOUT_DECOMPOSITION))
# Crops of values with such a letter are few (a name or two in a hundred): each is kept this many times over.
RARE_LETTER_REPEATS = 6


def fold(text: str) -> str | None:
    """``text`` as the recogniser spells it (upper case, accents dropped), or None when it has other characters."""
    t = text.upper().translate(_LETTERS_WITHOUT_DECOMPOSITION)
    t = "".join(c for c in unicodedata.normalize("NFKD", t) if not unicodedata.combining(c))
    t = t.translate(_LETTERS_WITHOUT_DECOMPOSITION)
    return t if t and all(c in CHARS for c in t) else None


def field_strip(gray: np.ndarray, box) -> np.ndarray:
    """The (FIELD_H, FIELD_W) uint8 strip of a text box (x0, y0, x1, y1), ink = 255, left-aligned; a box
    wider than the strip is squeezed into it."""
    import cv2

    from docauth.ocr.viz import box_crop

    ink = 255 - box_crop(gray, tuple(int(v) for v in box), FIELD_H)
    if ink.shape[1] > FIELD_W:
        ink = cv2.resize(ink, (FIELD_W, FIELD_H), interpolation=cv2.INTER_AREA)
    strip = np.zeros((FIELD_H, FIELD_W), np.uint8)
    strip[:, :ink.shape[1]] = ink
    return strip


class PrintedFieldReader:
    """Read text boxes of the printed zone with the ``viz_lines`` model (a :mod:`docauth.runtime` model)."""

    def __init__(self, model):
        self.model = model

    def read(self, gray: np.ndarray, boxes) -> list[LineRead]:
        if not boxes:
            return []
        strips = np.stack([field_strip(gray, box) for box in boxes]).astype(np.float32) / 255.0
        return [decode_line(p, None, LABELS) for p in self.model.predict(strips[..., None])]


# --- training data ---------------------------------------------------------------------
def _iou_and_cover(a, b) -> tuple[float, float]:
    """(intersection over union, share of ``a`` inside ``b``) of boxes (x0, y0, x1, y1)."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    return inter / max(1e-6, area_a + area_b - inter), inter / max(1e-6, area_a)


def crops_of_capture(sample, rng) -> list[tuple[np.ndarray, str]]:
    """(strip, text) of each printed value of a generated capture whose text box the reader cuts whole (and
    only it), plus, for half of them, the value's own box moved a little (boxes the reader cuts otherwise)."""
    import cv2

    from docauth.ocr.locate import warp
    from docauth.ocr.viz import at_reading_width, text_boxes

    values = sample.label.get("value_boxes")
    if not values or sample.label.get("corners") is None:
        return []
    gray = cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY)
    corners = np.array(sample.label["corners"], np.float64)
    size = np.linalg.norm(corners[2] - corners[0])
    page, homography = warp(gray, corners + rng.uniform(-0.015, 0.015, corners.shape) * size)
    page, s = at_reading_width(page)  # as docauth.ocr.viz.read_printed reads it
    found = text_boxes(page)
    out = []
    for value in values:
        text = fold(value["text"])
        if text is None or len(text) > MAX_LENGTH:
            continue
        q = cv2.perspectiveTransform(np.float32(value["corners"]).reshape(-1, 1, 2), homography).reshape(-1, 2) * s
        box = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
        h = box[3] - box[1]
        if h < 4 or box[0] < 0 or box[1] < 0 or box[2] > page.shape[1] or box[3] > page.shape[0]:
            continue
        scored = [(_iou_and_cover(box, b), b) for b in found]
        if scored:
            (iou, cover), best = max(scored, key=lambda t: t[0][0])
            if iou >= 0.5 and cover >= 0.85 and best[0] >= box[0] - 0.6 * h and best[2] <= box[2] + 0.6 * h:
                out.append((field_strip(page, best), text))
        rare = bool(_UNDECOMPOSED & set(value["text"].upper()))
        for _ in range(RARE_LETTER_REPEATS if rare else 1):
            if rare or rng.random() < 0.5:
                jitter = rng.uniform(-0.12, 0.12, 4) * h
                moved = (box[0] + jitter[0], box[1] + jitter[1], box[2] + jitter[2], box[3] + jitter[3])
                out.append((field_strip(page, tuple(int(round(v)) for v in moved)), text))
    return out


def capture_crops(count: int, seed: int, start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Strips (N, FIELD_H, FIELD_W) uint8 and labels (N, MAX_LENGTH) int32 (0 = padding) of captures
    ``start`` .. ``start + count - 1`` of ``seed``."""
    from docauth.synth import generate_sample

    rng = np.random.default_rng([seed, start, 11])
    pairs = []
    for i in range(start, start + count):
        sample = generate_sample(seed, i, category=_CAPTURE_CATEGORIES[i % len(_CAPTURE_CATEGORIES)])
        pairs += crops_of_capture(sample, rng)
    x = np.zeros((len(pairs), FIELD_H, FIELD_W), np.uint8)
    y = np.zeros((len(pairs), MAX_LENGTH), np.int32)
    for k, (strip, text) in enumerate(pairs):
        x[k] = strip
        y[k, :len(text)] = [LABELS.index(c) for c in text]
    return x, y


def build_crops(count: int, seed: int, workers: int = 1, log=None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`capture_crops` of ``count`` captures cut in ``workers`` processes (chunks of 250)."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    chunks = [(min(250, count - a), seed, a) for a in range(0, count, 250)]
    t0 = time.time()
    parts = []
    if workers <= 1:
        for chunk in chunks:
            parts.append(capture_crops(*chunk))
            if log:
                log(f"  captures {chunk[2] + chunk[0]}/{count} ({time.time() - t0:.0f}s)")
    else:
        # spawned, not forked: nothing of this process (a loaded framework, threads) is copied into the workers
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            for n, part in enumerate(pool.map(capture_crops, *zip(*chunks))):
                parts.append(part)
                if log:
                    log(f"  chunks {n + 1}/{len(chunks)} ({time.time() - t0:.0f}s)")
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


# --- training ---------------------------------------------------------------------------
def write_model(model, out_dir: Path, *, training: dict, metrics: dict) -> dict:
    """``<out_dir>/viz_lines.keras`` and its metadata (what the runtime layer and the reader check)."""
    from docauth.runtime.model import save_model_files

    return save_model_files(model, out_dir, {
        "name": MODEL_NAME,
        "version": 1,
        "input": {"height": FIELD_H, "width": FIELD_W, "channels": 1},
        "output": {"frames": FIELD_W // 4, "classes": len(LABELS), "blank": 0,
                   "decoding": "CTC, docauth.ocr.mrzlines.decode_line (free length)"},
        "labels": LABELS,
        "preprocessing": "one text box of the upright document at 1000 px wide, cut by "
                         "docauth.ocr.vizlines.field_strip: ink=1, paper=0, float32 in [0, 1], left-aligned",
        "training": training,
        "metrics": metrics,
    })


def train(out_dir: Path, *, captures: int = 6000, val_captures: int = 400, epochs: int = 10, seed: int = 9400,
          cache: str | Path | None = None, init: str | Path | None = None, batch_size: int = 32,
          augment_share: float = 0.3, learning_rate: float | None = None, workers: int = 1, log=print) -> dict:
    """Cut the crops (or load them from ``cache``), train with CTC, measure exact reads of held-out crops,
    write ``viz_lines.keras`` + ``.json``."""
    import keras

    from docauth.ocr.mrzlines import (build_model, fit_ctc, init_from, line_accuracy, load_strip_cache,
                                      save_strip_cache)
    from docauth.synth.seeds import TRAIN, VALIDATION

    keras.utils.set_random_seed(seed)
    cache_file = Path(cache) if cache else None
    info = {"captures": captures, "val_captures": val_captures, "train_seed": TRAIN.nth(seed),
            "val_seed": VALIDATION.nth(seed), "categories": list(_CAPTURE_CATEGORIES)}
    if cache_file is not None and cache_file.is_file():
        log(f"loading cached crops from {cache_file}")
        x, y, xv, yv, info = load_strip_cache(cache_file)
    else:
        log(f"cutting printed values from {captures} + {val_captures} synthetic captures ...")
        x, y = build_crops(captures, TRAIN.nth(seed), workers=workers, log=log)
        xv, yv = build_crops(val_captures, VALIDATION.nth(seed), workers=workers)
        if cache_file is not None:
            save_strip_cache(cache_file, x, y, xv, yv, info)
    log(f"train crops {len(y)}, validation crops {len(yv)}")
    if epochs == 0:
        return {"metrics": {"train_crops": int(len(y)), "val_crops": int(len(yv))}, "training": {"data": info}}
    train_model, model = build_model(FIELD_W, LABELS, MODEL_NAME)
    if init:
        init_from(model, keras.saving.load_model(init, compile=False), log)
    peak = learning_rate if learning_rate is not None else (2e-3 if not init else 1e-3)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)

    def save(history: list, seconds: float, accuracy: float) -> dict:
        training = {"seed": seed, "epochs": epochs, "epochs_run": len(history), "batch_size": batch_size,
                    "learning_rate": peak, "degraded_share": augment_share, "crops": int(len(y)),
                    "initialised_from": str(init) if init else None, "seconds": round(seconds, 1), "data": info,
                    "history": history,
                    "recipe": f"docauth train viz --captures {info['captures']} --val-captures {info['val_captures']}"
                              f" --epochs {epochs} --batch-size {batch_size} --lr {peak:g}"
                              f" --degraded-share {augment_share:g} --seed {seed}"
                              + (f" --init {init}" if init else "") + (f" --cache {cache}" if cache else "")}
        return write_model(model, out_dir, training=training,
                           metrics={"val_exact_reads": round(accuracy, 5), "val_crops": int(len(yv))})

    best, meta = fit_ctc(train_model, model, (x, y), (xv, yv), epochs=epochs, batch_size=batch_size, peak=peak,
                         augment_share=augment_share, seed=seed,
                         accuracy=lambda: line_accuracy(model, xv, yv, LABELS, known_length=False),
                         save=save, log=log)
    log(f"held-out exact reads {best:.4f}; wrote {out_dir / (MODEL_NAME + '.keras')}")
    return meta
