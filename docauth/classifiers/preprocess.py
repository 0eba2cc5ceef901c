"""The one definition of classifier preprocessing, shared by training and inference.

Two steps, split so that training can cache the expensive half:

1. :func:`resize_uint8` — any RGB ``uint8`` image (H, W, 3) to the model's
   input size with OpenCV ``INTER_AREA`` (anti-aliased downscale). The aspect
   ratio is *not* kept: letterboxing would spend a third of a landscape card's
   pixels on padding, and the squash is the same at training and inference.
   Training caches this ``uint8`` result (4x smaller than float32).
2. :func:`scale` — ``float32`` in [0, 1] (divide by 255). No mean/std
   normalisation: the first BatchNorm layer does that.

:data:`PREPROCESSING` describes both steps in words; it is written into each
model's metadata JSON so a reader knows what the numbers mean.

>>> import numpy as np
>>> img = np.full((300, 500, 3), 255, np.uint8)
>>> x = preprocess_batch([img, img[:, :, :1].repeat(3, axis=2)])
>>> x.shape, x.dtype, float(x.max())
((2, 128, 128, 3), dtype('float32'), 1.0)
"""

from __future__ import annotations

from typing import Iterable

import cv2
import numpy as np

INPUT_HEIGHT = 128
INPUT_WIDTH = 128
CHANNELS = 3

PREPROCESSING = (
    "RGB uint8 (decoded by docauth.imageio, EXIF-oriented) -> cv2.resize to {w}x{h} "
    "(INTER_AREA, aspect ratio not kept) -> float32 / 255 (range [0, 1]); "
    "defined in docauth.classifiers.preprocess"
)


def describe(height: int = INPUT_HEIGHT, width: int = INPUT_WIDTH) -> str:
    return PREPROCESSING.format(h=height, w=width)


def resize_uint8(image: np.ndarray, height: int = INPUT_HEIGHT, width: int = INPUT_WIDTH) -> np.ndarray:
    """RGB ``uint8`` (H, W, 3) -> (height, width, 3) ``uint8``."""
    image = np.asarray(image)
    if image.ndim == 2:  # grayscale given by a caller that skipped imageio
        image = np.stack([image] * 3, axis=-1)
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected an RGB image (H, W, 3), got shape {image.shape}")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    h, w = image.shape[:2]
    if (h, w) == (height, width):
        return np.ascontiguousarray(image)
    # INTER_AREA averages when shrinking; when enlarging (tiny images) it acts like bilinear.
    interpolation = cv2.INTER_AREA if (h >= height and w >= width) else cv2.INTER_LINEAR
    return cv2.resize(np.ascontiguousarray(image), (width, height), interpolation=interpolation)


def scale(batch_uint8: np.ndarray) -> np.ndarray:
    """``uint8`` -> ``float32`` in [0, 1]. The tf.data training pipeline does the same (``/ 255``)."""
    return np.asarray(batch_uint8, dtype=np.float32) * np.float32(1.0 / 255.0)


def preprocess_image(image: np.ndarray, height: int = INPUT_HEIGHT, width: int = INPUT_WIDTH) -> np.ndarray:
    """One image -> (height, width, 3) float32 model input."""
    return scale(resize_uint8(image, height, width))


def preprocess_batch(
    images: Iterable[np.ndarray], height: int = INPUT_HEIGHT, width: int = INPUT_WIDTH
) -> np.ndarray:
    """Images of any sizes -> (N, height, width, 3) float32 model input."""
    resized = [resize_uint8(im, height, width) for im in images]
    if not resized:
        return np.zeros((0, height, width, CHANNELS), np.float32)
    return scale(np.stack(resized))
