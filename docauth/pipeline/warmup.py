"""The images a freshly loaded pipeline is run on once, so the first real request pays no start-up cost."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from docauth.imageio import decode_image

# A generated passport data page of a made-up person (public-domain portrait), photographed phone-style: a check
# of it runs every stage's full path (the zone read and checked, the printed fields, the portrait found and
# encoded), which a synthetic pattern does not.
WARMUP_DOCUMENT = Path(__file__).with_name("warmup_document.jpg")


def warmup_image() -> np.ndarray:
    """A card-sized image with text-like strokes, so each stage runs its full path once."""
    rng = np.random.default_rng(0)
    img = np.full((540, 856, 3), 235, np.uint8)
    img[300:330, 40:800] = rng.integers(0, 80, (30, 760, 3), dtype=np.uint8)
    img[400:430, 40:800] = rng.integers(0, 80, (30, 760, 3), dtype=np.uint8)
    return img


def warmup_document() -> np.ndarray:
    """The stored document photo (RGB) a warm-up checks whole."""
    return decode_image(WARMUP_DOCUMENT.read_bytes()).pixels
