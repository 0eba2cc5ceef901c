"""Tight crops: a flat document cut out close to its edges.

This is how specimen galleries, user-cropped flatbed scans and document-scanner apps (auto-crop and
rectify) deliver a document: the document fills the image, with at most a thin margin of paper or
table, no perspective to speak of, and a quarter turn when it was scanned sideways. The phone and
scanner captures of :mod:`docauth.synth.capture` always show the surroundings; these do not.

Two looks:

* ``scan`` (60 %): clean, even light, slight blur and noise, JPEG or none (lossless sources);
* ``app`` (40 %): a rectified phone photo: residual perspective of up to ~1 % of the short side, then
  the phone sensor model of :func:`docauth.synth.capture.sensor` (uneven light, glare, blur, noise, JPEG).

Only the categories added with this module use it (``doc_crop``, ``card_crop``); the older categories
keep their captures and random streams.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.synth.capture import CaptureResult, capture_rotation, composite, jpeg_roundtrip, sensor

SCAN_SHARE = 0.6


def _rotated_rect(w: float, h: float, angle_deg: float) -> np.ndarray:
    """Corners (tl, tr, br, bl) of a w x h rectangle centred at 0, rotated counter-clockwise (y down)."""
    th = np.deg2rad(angle_deg)
    c, s = np.cos(th), np.sin(th)
    rect = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float64)
    return np.stack([rect[:, 0] * c + rect[:, 1] * s, -rect[:, 0] * s + rect[:, 1] * c], 1)


def crop_capture(image: np.ndarray, rng: np.random.Generator, mask: np.ndarray | None = None,
                 rotation: int | None = None) -> CaptureResult:
    """Tight crop of a flat RGB ``image`` (optional uint8 alpha ``mask``): the document fills the output.

    The output's long side is 480-1100 px; the document's corners stay inside the image.
    """
    rotation = capture_rotation(rng, rotation)
    h, w = image.shape[:2]
    variant = "scan" if rng.random() < SCAN_SHARE else "app"
    margin = 0.0 if rng.random() < 0.3 else float(rng.uniform(0.005, 0.05))
    rot_w, rot_h = (w, h) if rotation in (0, 180) else (h, w)
    long_side = int(rng.integers(480, 1101))
    scale = long_side / (max(rot_w, rot_h) * (1 + 2 * margin))
    fw = max(8, int(round(rot_w * scale * (1 + 2 * margin))))
    fh = max(8, int(round(rot_h * scale * (1 + 2 * margin))))
    tilt = float(rng.normal(0, 0.4)) if margin >= 0.01 else 0.0
    jitter = float(rng.uniform(0, 0.01)) if (variant == "app" and margin >= 0.015) else 0.0
    quad = _rotated_rect(w * scale, h * scale, rotation + tilt)
    quad += rng.normal(0, jitter * min(w, h) * scale, size=(4, 2)) if jitter else 0.0
    # a tilted or jittered quad may poke out of the frame: shrink it about the centre until it fits
    half = np.array([fw / 2, fh / 2])
    reach = np.abs(quad).max(0)
    quad *= min(1.0, float(np.min((half - 0.5) / np.maximum(reach, 1e-6))))
    quad += half
    tone = rng.random()
    if tone < 0.75:  # paper / scanner lid
        paper = rng.uniform(228, 256) * rng.uniform(0.985, 1.015, size=3)
    elif tone < 0.9:  # grey gallery or table
        paper = rng.uniform(110, 200) * np.ones(3)
    else:  # dark table or scanner without lid
        paper = rng.uniform(15, 60) * np.ones(3)
    bg = np.empty((fh, fw, 3), np.uint8)
    bg[:] = np.clip(paper, 0, 255).astype(np.uint8)
    # shrink the flat document first (INTER_AREA) so the warp does not alias
    sw_, sh_ = max(2, int(w * scale * 1.1)), max(2, int(h * scale * 1.1))
    if sw_ < w:
        small = cv2.resize(image, (sw_, sh_), interpolation=cv2.INTER_AREA)
        m_small = None if mask is None else cv2.resize(mask, (sw_, sh_), interpolation=cv2.INTER_AREA)
    else:
        small, m_small, sw_, sh_ = image, mask, w, h
    src = np.float32([[0, 0], [sw_, 0], [sw_, sh_], [0, sh_]])
    H_small = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    out = composite(bg, small, m_small, H_small, quad, 0.0, rng)
    info: dict = {"style": "crop", "variant": variant, "rotation": rotation}
    if variant == "app":
        out = sensor(out, rng, "phone", info)
    else:
        gain = rng.uniform(0.9, 1.08)
        out = cv2.convertScaleAbs(out, alpha=gain, beta=float(rng.uniform(-6, 6)))
        blur = float(rng.uniform(0, 0.8))
        if blur > 0.25:
            out = cv2.GaussianBlur(out, (0, 0), blur)
        noise = float(rng.uniform(0.3, 2.5))
        n = rng.standard_normal((fh, fw), dtype=np.float32) * noise
        out = cv2.add(out, cv2.cvtColor(n, cv2.COLOR_GRAY2RGB), dtype=cv2.CV_8U)
        grey = rng.random() < 0.1
        if grey:
            out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
        quality = int(rng.integers(60, 96)) if rng.random() < 0.7 else None  # None: a lossless (PNG) source
        if quality is not None:
            out = jpeg_roundtrip(out, quality)
        info.update({"greyscale": bool(grey), "blur_sigma": round(blur, 2), "noise_sigma": round(noise, 2),
                     "jpeg_quality": quality})
    to_small = np.diag([sw_ / w, sh_ / h, 1.0])
    H = H_small.astype(np.float64) @ to_small
    info["tilt_deg"] = round(tilt, 2)
    info["margin"] = round(margin, 4)
    area = 0.5 * abs(np.dot(quad[:, 0], np.roll(quad[:, 1], 1)) - np.dot(quad[:, 1], np.roll(quad[:, 0], 1)))
    info["document_area_fraction"] = round(float(area / (fw * fh)), 3)
    corners = [[round(float(x), 1), round(float(y), 1)] for x, y in quad]
    return CaptureResult(np.ascontiguousarray(out), corners, H, info)
