"""Recogniser output made by hand for the printed reader's tests: a line's per-frame glyph probabilities."""

from __future__ import annotations

import numpy as np

from docauth.ocr.printed.alignment import COLUMN, COLUMNS, DIGITS, LETTERS, LineFrames


def frames_of(glyphs: list[dict[str, float]]) -> LineFrames:
    """One frame per glyph, a blank frame after each: ``{"I": 0.35}`` gives I that share (the blank the rest)."""
    probs = np.zeros((2 * len(glyphs), len(COLUMNS)), np.float32)
    for t, glyph in enumerate(glyphs):
        for ch, p in glyph.items():
            probs[2 * t, COLUMN[ch]] = p
        probs[2 * t, 0] = 1.0 - probs[2 * t].sum()
        probs[2 * t + 1, 0] = 1.0
    return LineFrames.from_columns(probs, letters=LETTERS, digits=DIGITS)
