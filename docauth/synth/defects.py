"""Captures a customer should be asked to take again: blurred, glared, cut off, too small, too dark.

Each defect is applied to a generated document capture (a phone photo of :mod:`docauth.synth.capture`)
and is strong enough that a clerk would ask for a new photo; the sizes are relative to the document's
own size in the photo, so they do not depend on the capture's resolution.

    sample = defective_sample(seed, index, "glare")      # a Sample whose label["defect"] says which
    image, corners, info = apply_defect(image, corners, "blur", rng)

These captures fit and test the capture-quality thresholds of :mod:`docauth.pipeline.quality`
(``bench/bench_retake.py``); real images are never used for that.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.synth.capture import capture_document, jpeg_roundtrip
from docauth.synth.documents import render_document

DEFECTS = ("blur", "glare", "cut_off", "small", "dark")
# The documents a customer photographs: card fronts and backs, passport data pages.
DEFECT_KINDS = ("td1_front", "td1_back", "td3_open")
# The random-stream key of the defect captures (apart from every sample category's key in synth.sample).
STREAM_KEY = 101


def _long_side(corners: np.ndarray) -> float:
    sides = np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1)
    return float(max((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))


def blur(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Out of focus (Gaussian) or shaken (a line of motion), at 0.4-0.8 % of the document's long side."""
    size = _long_side(corners)
    if rng.random() < 0.5:
        sigma = float(rng.uniform(0.004, 0.008)) * size
        return cv2.GaussianBlur(image, (0, 0), sigma), {"blur_sigma_px": round(sigma, 1)}
    length = max(3, int(round(float(rng.uniform(0.012, 0.025)) * size)))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2] = 1.0
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6)), {"motion_blur_px": length}


def glare(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """A lamp's reflection: a burnt-out ellipse over 6-20 % of the document, with a soft halo."""
    h, w = image.shape[:2]
    area = 0.5 * abs(np.dot(corners[:, 0], np.roll(corners[:, 1], 1)) - np.dot(corners[:, 1], np.roll(corners[:, 0], 1)))
    share = float(rng.uniform(0.06, 0.2))
    ratio = float(rng.uniform(0.4, 1.0))
    a = np.sqrt(share * area / (np.pi * ratio))  # the burnt-out core's semi-axes a, a * ratio
    # centred inside the document: a convex mix of its corners, away from the edges
    weights = rng.dirichlet(np.full(4, 4.0))
    cx, cy = weights @ corners
    angle = float(rng.uniform(0, np.pi))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = xx - cx, yy - cy
    u = (dx * np.cos(angle) + dy * np.sin(angle)) / a
    v = (-dx * np.sin(angle) + dy * np.cos(angle)) / (a * ratio)
    r = np.sqrt(u * u + v * v)
    # 1 inside the core, falling off over half a radius outside it
    light = np.clip(1.0 - (r - 1.0) / 0.5, 0.0, 1.0) ** 2
    out = image.astype(np.float32) + light[..., None] * 300.0
    return np.clip(out, 0, 255).astype(np.uint8), {"glare_share": round(share, 3)}


def cut_off(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray, dict]:
    """The frame cuts through the document: one or two of its corners 4-15 % of its size outside."""
    h, w = image.shape[:2]
    size = _long_side(corners)
    depth = float(rng.uniform(0.04, 0.15)) * size
    edges = ["left", "right", "top", "bottom"]
    chosen = [edges[int(rng.integers(4))]]
    if rng.random() < 0.3:  # a corner cut on two sides
        chosen.append(("top", "bottom")[int(rng.integers(2))] if chosen[0] in ("left", "right")
                      else ("left", "right")[int(rng.integers(2))])
    x0, y0, x1, y1 = 0, 0, w, h
    xs, ys = corners[:, 0], corners[:, 1]
    # The frame moves to ``depth`` inside the document's outermost corner on that side, wherever in the photo the
    # document lies, so that it always cuts it; the rest of the document stays in (depth is under its short side).
    for edge in chosen:
        if edge == "left":
            x0 = int(max(0, xs.min() + depth))
        elif edge == "right":
            x1 = int(min(w, xs.max() - depth))
        elif edge == "top":
            y0 = int(max(0, ys.min() + depth))
        else:
            y1 = int(min(h, ys.max() - depth))
    out = np.ascontiguousarray(image[y0:y1, x0:x1])
    return out, corners - np.array([x0, y0], np.float64), {"cut_edges": chosen, "cut_depth_px": round(depth, 1)}


def small(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator
          ) -> tuple[np.ndarray, np.ndarray, dict]:
    """Far from the camera, or a thumbnail: the document's long side 120-240 px."""
    target = float(rng.uniform(120, 240))
    scale = min(1.0, target / _long_side(corners))
    h, w = image.shape[:2]
    size = (max(16, int(round(w * scale))), max(16, int(round(h * scale))))
    out = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return out, corners * scale, {"document_long_side_px": round(target, 1)}


def dark(image: np.ndarray, corners: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Too little light: 10-25 % of the exposure, with the sensor noise that comes with it."""
    gain = float(rng.uniform(0.1, 0.25))
    noise = rng.normal(0.0, float(rng.uniform(1.0, 3.0)), image.shape[:2]).astype(np.float32)
    out = image.astype(np.float32) * gain + noise[..., None]
    return jpeg_roundtrip(np.clip(out, 0, 255).astype(np.uint8), int(rng.integers(60, 90))), {"exposure": round(gain, 3)}


def apply_defect(image: np.ndarray, corners, defect: str, rng: np.random.Generator
                 ) -> tuple[np.ndarray, list, dict]:
    """(degraded RGB image, the document's corners in it, what was done)."""
    corners = np.asarray(corners, np.float64).reshape(4, 2)
    if defect in ("cut_off", "small"):
        out, corners, info = (cut_off if defect == "cut_off" else small)(image, corners, rng)
    elif defect in ("blur", "glare", "dark"):
        out, info = {"blur": blur, "glare": glare, "dark": dark}[defect](image, corners, rng)
    else:
        raise ValueError(f"unknown defect {defect!r}; expected one of {', '.join(DEFECTS)}")
    return out, [[round(float(x), 1), round(float(y), 1)] for x, y in corners], {"defect": defect, **info}


def clean_capture(seed: int, index: int, kind: str | None = None):
    """A sharp, evenly lit phone photo of a generated document (no sensor blur, glare or dark corner):
    (Sample-like image, corners, label). The control the defects are measured against."""
    rng = np.random.default_rng([seed, index, STREAM_KEY])
    kind = kind or DEFECT_KINDS[index % len(DEFECT_KINDS)]
    doc = render_document(kind, rng)
    cap = capture_document(doc.image, rng, style="phone", mask=doc.mask, fill_range=(0.55, 0.85), clean=True)
    page = doc.page_box
    corners = cap.project([[page[0], page[1]], [page[2], page[1]], [page[2], page[3]], [page[0], page[3]]])
    return cap.image, corners, {"kind": kind, "side": doc.side, "fields": dict(doc.fields),
                                "mrz": list(doc.mrz) if doc.mrz else None, "capture": dict(cap.info)}


def defective_sample(seed: int, index: int, defect: str | None, kind: str | None = None):
    """(image, label) of capture ``index``: the clean capture with ``defect`` applied (None: left clean)."""
    image, corners, label = clean_capture(seed, index, kind)
    label = {**label, "seed": int(seed), "index": int(index), "defect": defect, "corners": corners}
    if defect is not None:
        rng = np.random.default_rng([seed, index, STREAM_KEY, 1 + DEFECTS.index(defect)])
        image, label["corners"], label["defect_info"] = apply_defect(image, corners, defect, rng)
    return image, label
