"""Supplementary training samples for what the synthetic generator does not show.

Real uploads differ from the generator's output in two ways that matter for the
classifiers:

* ``photo``: the generator's non-documents are drawings (selfies are
  procedural heads); real uploads are *photographs*. Negatives here are random
  crops of the photographs bundled with scikit-image (astronaut, coffee, cat,
  rocket, ..., and the LFW face crops), re-scaled, colour-jittered, sometimes
  letterboxed in black (video stills), JPEG-compressed. Nothing is downloaded.
* ``stacked``: specimen scans often show the front *and* the back of a card
  in one image (stacked or side by side), often cropped to the cards' edges.
  These are documents with no single side, so they train the document model
  only (side = -1).

Real cards are printed in stronger colours than the generator's pastels:
:func:`vivid` recolours a rendered document for some samples here and in
:mod:`docauth.training.classifiers.flat_crops`.

Deterministic by ``(seed, index)`` like the generator. The cache key of these
samples includes this file's hash.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
import skimage.data

from docauth.synth import render_document

EXTRA_CATEGORIES = ("photo", "stacked")

_SKIMAGE_PHOTOS = ("astronaut", "coffee", "chelsea", "rocket", "camera", "hubble_deep_field", "coins", "moon",
                   "motorcycle_left", "grass", "gravel", "brick", "horse", "retina", "immunohistochemistry", "cat")


@functools.lru_cache(maxsize=1)
def _photos() -> tuple[np.ndarray, ...]:
    photos = []
    for name in _SKIMAGE_PHOTOS:
        loader = getattr(skimage.data, name, None)
        if loader is None:
            continue
        try:
            img = loader()
        except (OSError, ValueError, ImportError):  # a data file missing from this install: skip it
            continue
        if isinstance(img, tuple):
            img = img[0]
        photos.append(_rgb(img))
    return tuple(photos)


@functools.lru_cache(maxsize=1)
def face_photographs() -> np.ndarray:
    try:
        faces = skimage.data.lfw_subset()[:100]  # the first 100 are faces (25x25 grey, float)
    except (OSError, ValueError, ImportError):
        return np.zeros((0, 25, 25), np.uint8)
    return (np.clip(faces, 0, 1) * 255).astype(np.uint8)


def _rgb(img: np.ndarray) -> np.ndarray:
    img = np.asarray(img)
    if img.dtype != np.uint8:
        img = (np.clip(img, 0, 1) * 255).astype(np.uint8) if img.max() <= 1.0 else np.clip(img, 0, 255).astype(
            np.uint8)
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    return np.ascontiguousarray(img[..., :3])


def extra_sample(seed: int, index: int) -> tuple[np.ndarray, dict]:
    """(RGB uint8 image, label dict like the generator's) for supplementary sample ``index``."""
    rng = np.random.default_rng([seed, index, 77])
    category = "photo" if rng.random() < 0.55 else "stacked"
    if category == "photo":
        image = photo_negative(rng)
        return image, {"is_document": False, "side": None, "category": "extra_photo"}
    return stacked_card(rng), {"is_document": True, "side": None, "category": "extra_stacked"}


def photo_negative(rng: np.random.Generator) -> np.ndarray:
    faces = face_photographs()
    if len(faces) and rng.random() < 0.3:
        src = _rgb(faces[int(rng.integers(len(faces)))])
        if rng.random() < 0.5:  # sepia / colour cast over the grey face
            src = np.clip(src * rng.uniform(0.7, 1.2, size=3), 0, 255).astype(np.uint8)
    else:
        photos = _photos()
        src = photos[int(rng.integers(len(photos)))]
    h, w = src.shape[:2]
    ch, cw = int(h * rng.uniform(0.45, 1.0)), int(w * rng.uniform(0.45, 1.0))
    y, x = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    crop = src[y:y + ch, x:x + cw]
    out_long = int(rng.integers(240, 1100))
    aspect = rng.choice([0.75, 1.0, 4 / 3, 16 / 9, 9 / 16]) * rng.uniform(0.9, 1.1)
    ow, oh = (out_long, int(out_long / aspect)) if aspect >= 1 else (int(out_long * aspect), out_long)
    img = cv2.resize(crop, (max(ow, 8), max(oh, 8)), interpolation=cv2.INTER_AREA if ow < cw else cv2.INTER_CUBIC)
    img = img.astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-25, 25, size=3)
    img = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:  # video still letterboxed in black
        bar = int(img.shape[1] * rng.uniform(0.1, 0.25))
        img = cv2.copyMakeBorder(img, 0, 0, bar, bar, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))
    return _jpeg(img, int(rng.integers(60, 96)))


def stacked_card(rng: np.random.Generator) -> np.ndarray:
    """Front and back of one TD1 card in one flat scan, stacked (70 %) or side by side."""
    front = render_document("td1_front", rng).image
    back = render_document("td1_back", rng).image
    if rng.random() < 0.5:  # one card: both sides in the same colours
        hue, strength = rng.uniform(0, 180), rng.uniform(0.3, 1.0)
        front, back = vivid(front, rng, hue, strength), vivid(back, rng, hue, strength)
    width = int(rng.integers(300, 800))
    front = cv2.resize(front, (width, int(front.shape[0] * width / front.shape[1])), interpolation=cv2.INTER_AREA)
    back = cv2.resize(back, (width, front.shape[0]), interpolation=cv2.INTER_AREA)  # same card size
    gap = int(width * rng.uniform(0.0, 0.12))
    paper = int(rng.uniform(225, 256))
    if rng.random() < 0.7:
        canvas = np.full((front.shape[0] + back.shape[0] + gap, width, 3), paper, np.uint8)
        canvas[:front.shape[0]] = front
        canvas[front.shape[0] + gap:] = back
    else:
        canvas = np.full((front.shape[0], 2 * width + gap, 3), paper, np.uint8)
        canvas[:, :width] = front
        canvas[:, width + gap:] = back
    margin = 0 if rng.random() < 0.4 else int(width * rng.uniform(0.0, 0.08))  # 40 %: cropped to the cards
    img = cv2.copyMakeBorder(canvas, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=(paper,) * 3)
    k = int(rng.integers(0, 4))
    img = np.ascontiguousarray(np.rot90(img, k)) if rng.random() < 0.3 else img
    img = np.clip(img.astype(np.float32) * rng.uniform(0.85, 1.1) + rng.normal(0, rng.uniform(0.5, 4), img.shape),
                  0, 255).astype(np.uint8)
    return _jpeg(img, int(rng.integers(60, 96)))


def vivid(img: np.ndarray, rng: np.random.Generator, hue: float | None = None,
          strength: float | None = None) -> np.ndarray:
    """The document in stronger colours: its light background (the print stays dark) turned towards ``hue``
    (OpenCV degrees, 0-180) and saturated by ``strength`` (0-1)."""
    hue = rng.uniform(0, 180) if hue is None else hue
    strength = rng.uniform(0.3, 1.0) if strength is None else strength
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV).astype(np.float32)
    light = np.clip((hsv[..., 2] - 90.0) / 80.0, 0.0, 1.0)  # print (dark) keeps its colour
    hsv[..., 0] = (hsv[..., 0] * (1 - 0.8 * light) + hue * 0.8 * light) % 180
    hsv[..., 1] = np.clip(hsv[..., 1] + light * strength * 170.0, 0, 255)
    hsv[..., 2] = np.clip(hsv[..., 2] * (1 - 0.15 * strength * light), 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2RGB)


def _jpeg(img: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB) if ok else img
