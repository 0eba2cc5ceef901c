"""The image a freshly loaded pipeline is run on once, so the first real request pays no start-up cost."""

from __future__ import annotations

import numpy as np


def warmup_image() -> np.ndarray:
    """A card-sized image with text-like strokes, so each stage runs its full path once."""
    rng = np.random.default_rng(0)
    img = np.full((540, 856, 3), 235, np.uint8)
    img[300:330, 40:800] = rng.integers(0, 80, (30, 760, 3), dtype=np.uint8)
    img[400:430, 40:800] = rng.integers(0, 80, (30, 760, 3), dtype=np.uint8)
    return img
