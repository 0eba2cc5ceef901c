"""A few real photographs bundled with scikit-image (read from its package folder, never downloaded).

They give the generator real camera statistics: textures under documents, real scenery and a real face
among the negatives, a real photo on some documents and a scanned book page. If a file is missing the
callers fall back to procedural content.
"""

from __future__ import annotations

import functools
import os

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

SCENES = ("coffee.png", "chelsea.png", "rocket.jpg", "hubble_deep_field.jpg", "motorcycle_left.png",
          "astronaut.png", "camera.png", "coins.png", "moon.png", "ihc.png", "retina.jpg",
          "clock_motion.png")
TEXTURES = ("brick.png", "grass.png", "gravel.png")
FACES = ("astronaut.png",)  # the real face photo; the face-matching tests use it as a known person
PAGES = ("page.png", "text.png")


@functools.lru_cache(maxsize=1)
def _data_dir() -> str | None:
    try:
        import skimage.data
    except ImportError:
        return None
    return os.path.dirname(skimage.data.__file__)


@functools.lru_cache(maxsize=32)
def load(name: str) -> np.ndarray | None:
    """RGB uint8 of a bundled photo, or None when unavailable."""
    root = _data_dir()
    if root is None:
        return None
    path = os.path.join(root, name)
    if not os.path.exists(path):
        alt = os.path.join(root, name.replace(".png", ".jpg"))
        if not os.path.exists(alt):
            return None
        path = alt

    try:
        with Image.open(path) as im:
            img = np.asarray(im.convert("RGB")).copy()
    except (OSError, UnidentifiedImageError):
        return None
    img.setflags(write=False)
    return img


def channel_gain(img: np.ndarray, gain) -> np.ndarray:
    """Per-channel gain with saturation (colour jitter), uint8 in and out."""
    return cv2.transform(img, np.diag(np.asarray(gain, np.float32)))


def face_view(rng, h: int, w: int) -> np.ndarray | None:
    """A head-and-shoulders crop of the real face photo (astronaut.png: face around x 150-300, y 30-230)."""
    src = load("astronaut.png")
    if src is None:
        return None
    cx, cy = 225 + rng.uniform(-20, 20), 140 + rng.uniform(-15, 15)
    ch = rng.uniform(260, 420)
    cw = ch * w / h
    x0, y0 = int(max(0, cx - cw / 2)), int(max(0, cy - ch * 0.45))
    crop = src[y0:int(min(512, y0 + ch)), x0:int(min(512, x0 + cw))]
    out = cv2.resize(np.ascontiguousarray(crop), (w, h), interpolation=cv2.INTER_AREA)
    return channel_gain(out, rng.uniform(0.85, 1.15, size=3))


REAL_FACE_IDENTITY = "skimage:astronaut"


def available(names) -> list[str]:
    return [n for n in names if load(n) is not None]


def random_view(rng, names, h: int, w: int, min_crop: float = 0.35) -> tuple[np.ndarray, str] | None:
    """A random crop of one of ``names`` resized to (h, w), flipped and colour-jittered."""
    names = available(names)
    if not names:
        return None
    name = names[int(rng.integers(len(names)))]
    src = load(name)
    sh, sw = src.shape[:2]
    scale = rng.uniform(min_crop, 1.0)
    target = w / h
    ch = int(sh * scale)
    cw = int(min(sw, ch * target))
    ch = int(min(ch, cw / target))
    y0 = int(rng.integers(0, max(1, sh - ch + 1)))
    x0 = int(rng.integers(0, max(1, sw - cw + 1)))
    crop = src[y0:y0 + ch, x0:x0 + cw]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    out = cv2.resize(np.ascontiguousarray(crop), (w, h), interpolation=cv2.INTER_AREA)
    return channel_gain(out, rng.uniform(0.75, 1.2, size=3)), name


@functools.lru_cache(maxsize=1)
def lfw_faces() -> np.ndarray:
    """scikit-image's bundled LFW subset: the first 100 of its 200 25x25 grey crops are faces (uint8)."""
    root = _data_dir()
    path = os.path.join(root, "lfw_subset.npy") if root else None
    if path is None or not os.path.exists(path):
        return np.zeros((0, 25, 25), np.uint8)
    faces = np.load(path, allow_pickle=False)[:100]
    out = (np.clip(faces, 0, 1) * 255).astype(np.uint8)
    out.setflags(write=False)
    return out
