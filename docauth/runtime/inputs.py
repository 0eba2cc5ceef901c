"""Image-like inputs for measuring and comparing backends, on the scale a model's metadata states.

The tuner, the ONNX export's parity check and the benchmarks feed every backend the same inputs;
none of them may depend on a stage's preprocessing (the runtime layer knows no stage).
"""

from __future__ import annotations

import cv2
import numpy as np

GLYPHS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<"


def sample_inputs(shape: tuple[int, int, int], count: int, seed: int = 0, text_lines: int = 0) -> np.ndarray:
    """Image-like float32 inputs in 0..255: smooth gradients plus noise and blocks, and ``text_lines`` lines
    of dark glyphs (random letters and digits, each line its own size).

    Pure uniform noise makes every class score alike; structured inputs give
    the spread of probabilities real images give, so argmax checks mean something;
    glyphs give a text model something to find.
    """
    rng = np.random.default_rng(seed)
    h, w, c = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    out = np.empty((count, h, w, c), np.float32)
    for i in range(count):
        base = np.zeros((h, w, c), np.float32)
        for ch in range(c):
            a, b, p = rng.uniform(-1, 1, 3)
            base[..., ch] = 127 + 100 * np.sin(a * xx / 7 + b * yy / 5 + p * 6)
        y0, x0 = rng.integers(0, h // 2), rng.integers(0, w // 2)
        base[y0:y0 + h // 3, x0:x0 + w // 3] = rng.uniform(0, 255, c)
        if text_lines:
            ink = np.zeros((h, w), np.uint8)  # OpenCV draws text on 8-bit images only
            for line in range(text_lines):
                size = float(rng.uniform(0.3, 1.0)) * min(h / 40, w / 200, 2.0) + 0.2
                text = "".join(rng.choice(list(GLYPHS), int(rng.integers(4, 24))))
                origin = (int(rng.integers(0, max(w // 3, 1))), int((line + 0.7) * h / text_lines))
                cv2.putText(ink, text, origin, cv2.FONT_HERSHEY_SIMPLEX, size, 255, max(1, int(round(size * 2))),
                            cv2.LINE_AA)
            alpha = ink[..., None].astype(np.float32) / 255
            base = base * (1 - alpha) + alpha * np.float32(rng.uniform(0, 60))
        base += rng.normal(0, 12, base.shape)
        out[i] = np.clip(base, 0, 255)
    return out


def scaled_for(metadata: dict, images_0_255: np.ndarray) -> np.ndarray:
    """Put 0..255 NHWC inputs on the scale and layout the model's metadata states: ``input.range``
    (e.g. [0, 1] or [-1, 1]; a model that states none takes 0..255) and ``input.layout`` (NHWC or NCHW).
    The free-text ``preprocessing`` note is for people and is never read here."""
    inp = metadata.get("input", {})
    if inp.get("layout") == "NCHW":
        images_0_255 = np.ascontiguousarray(images_0_255.transpose(0, 3, 1, 2))
    low, high = (float(v) for v in inp.get("range", (0.0, 255.0)))
    if (low, high) == (0.0, 255.0):
        return images_0_255
    return (low + images_0_255 * np.float32((high - low) / 255.0)).astype(np.float32)
