"""Procedural head-and-shoulders drawings.

A face is a pure function of its identity id (``p`` + 8 hex digits), so the same
holder looks the same on a card front, a passport page and a selfie.
"""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth.draw import darker, hsv, mix, pick

SKIN = [(255, 224, 196), (241, 194, 167), (224, 172, 138), (198, 134, 99), (161, 102, 70), (120, 74, 50),
        (92, 56, 40), (232, 190, 160), (250, 210, 180)]
HAIR = [(20, 16, 14), (45, 30, 22), (80, 50, 30), (120, 80, 45), (170, 130, 80), (215, 185, 130),
        (150, 60, 30), (140, 140, 140), (220, 220, 215), (60, 40, 35)]
PHOTO_BG = [(235, 238, 242), (214, 224, 236), (200, 215, 230), (245, 245, 245), (222, 222, 222),
            (190, 205, 225), (230, 235, 228)]


def identity_rng(identity_id: str) -> np.random.Generator:
    digest = hashlib.sha256(identity_id.encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def face_params(identity_id: str) -> dict:
    r = identity_rng(identity_id)
    return {
        "skin": SKIN[int(r.integers(len(SKIN)))],
        "hair": HAIR[int(r.integers(len(HAIR)))],
        "hair_style": int(r.integers(6)),  # 0 short, 1 long, 2 bald, 3 bun, 4 curly, 5 side part
        "face_w": r.uniform(0.26, 0.34),
        "face_h": r.uniform(0.34, 0.42),
        "eye_gap": r.uniform(0.34, 0.44),
        "eye_size": r.uniform(0.07, 0.1),
        "mouth_w": r.uniform(0.28, 0.42),
        "nose_len": r.uniform(0.14, 0.22),
        "shirt": hsv(r.random(), r.uniform(0.1, 0.8), r.uniform(0.15, 0.85)),
        "collar": int(r.integers(3)),
        "glasses": bool(r.random() < 0.2),
        "beard": bool(r.random() < 0.15),
        "iris": pick(r, [(60, 40, 25), (40, 70, 110), (70, 100, 60), (30, 25, 20)]),
        "tilt": r.uniform(-0.04, 0.04),
    }


def draw_head_and_shoulders(draw: ImageDraw.ImageDraw, p: dict, box, smile: float = 0.0):
    """Draw the figure so the face is centred in ``box`` (x0, y0, x1, y1); shoulders reach the box bottom."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx = x0 + w * (0.5 + p["tilt"])
    fw, fh = w * p["face_w"], h * p["face_h"]
    cy = y0 + h * 0.42
    skin, hair = p["skin"], p["hair"]
    shade = darker(skin, 0.82)
    # shoulders and neck
    draw.ellipse([x0 - w * 0.05, y0 + h * 0.78, x1 + w * 0.05, y0 + h * 1.45], fill=p["shirt"])
    draw.rectangle([cx - fw * 0.38, cy + fh * 0.6, cx + fw * 0.38, y0 + h * 0.86], fill=shade)
    if p["collar"] == 1:
        draw.polygon([(cx - fw * 0.45, y0 + h * 0.82), (cx, y0 + h * 0.95), (cx + fw * 0.45, y0 + h * 0.82)],
                      fill=(240, 240, 240))
    elif p["collar"] == 2:
        draw.polygon([(cx - fw * 0.3, y0 + h * 0.84), (cx, y0 + h), (cx + fw * 0.3, y0 + h * 0.84)], fill=shade)
    # hair behind the head
    style = p["hair_style"]
    if style in (1, 3):
        draw.ellipse([cx - fw * 1.15, cy - fh * 1.1, cx + fw * 1.15, cy + fh * (1.3 if style == 1 else 0.5)],
                     fill=hair)
    if style == 4:
        for k in range(14):
            a = k / 14 * 2 * np.pi
            rx, ry = cx + np.cos(a) * fw * 0.95, cy - fh * 0.35 + np.sin(a) * fh * 0.75
            draw.ellipse([rx - fw * 0.35, ry - fw * 0.35, rx + fw * 0.35, ry + fw * 0.35], fill=hair)
    # ears and face
    draw.ellipse([cx - fw * 1.1, cy - fh * 0.15, cx - fw * 0.8, cy + fh * 0.3], fill=shade)
    draw.ellipse([cx + fw * 0.8, cy - fh * 0.15, cx + fw * 1.1, cy + fh * 0.3], fill=shade)
    # face: concentric ellipses from the shaded rim to the lit centre (cheap volume)
    for k, f in enumerate((1.0, 0.93, 0.86, 0.78)):
        tone = mix(shade, skin, min(1.0, 0.35 + 0.22 * k))
        draw.ellipse([cx - fw * f, cy - fh * f, cx + fw * f * (0.96 if k else 1.0), cy + fh * f], fill=tone)
    # hair on top
    if style in (0, 1, 3, 5):
        draw.chord([cx - fw * 1.05, cy - fh * 1.12, cx + fw * 1.05, cy + fh * 0.2], 180, 360, fill=hair)
        if style == 5:
            draw.polygon([(cx - fw, cy - fh * 0.45), (cx + fw * 0.2, cy - fh * 0.85), (cx - fw, cy - fh * 0.1)],
                         fill=hair)
        if style == 3:
            draw.ellipse([cx - fw * 0.45, cy - fh * 1.55, cx + fw * 0.45, cy - fh * 0.85], fill=hair)
    elif style == 2:
        draw.arc([cx - fw, cy - fh, cx + fw, cy + fh], 160, 200, fill=hair, width=max(2, int(fw * 0.12)))
        draw.arc([cx - fw, cy - fh, cx + fw, cy + fh], 340, 20, fill=hair, width=max(2, int(fw * 0.12)))
    # eyes, brows
    eg, es = fw * p["eye_gap"] * 2, fw * p["eye_size"] * 2
    ey = cy - fh * 0.08
    for sx in (-1, 1):
        ex = cx + sx * eg / 2
        draw.ellipse([ex - es * 1.3, ey - es * 0.65, ex + es * 1.3, ey + es * 0.65], fill=(250, 250, 250))
        draw.ellipse([ex - es * 0.6, ey - es * 0.6, ex + es * 0.6, ey + es * 0.6], fill=p["iris"])
        draw.ellipse([ex - es * 0.25, ey - es * 0.25, ex + es * 0.25, ey + es * 0.25], fill=(10, 10, 10))
        draw.line([(ex - es * 1.5, ey - es * 1.7), (ex + es * 1.4, ey - es * 1.9 - sx * 0.0)],
                  fill=darker(hair, 0.8), width=max(2, int(es * 0.45)))
        if p["glasses"]:
            draw.ellipse([ex - es * 2.1, ey - es * 1.5, ex + es * 2.1, ey + es * 1.5], outline=(30, 30, 30),
                         width=max(1, int(es * 0.25)))
    if p["glasses"]:
        draw.line([(cx - eg / 2 + es * 2.1, ey), (cx + eg / 2 - es * 2.1, ey)], fill=(30, 30, 30),
                  width=max(1, int(es * 0.25)))
    # nose, mouth, beard
    nl = fh * p["nose_len"] * 2
    draw.line([(cx, ey + es), (cx - fw * 0.08, ey + nl), (cx + fw * 0.05, ey + nl)], fill=darker(skin, 0.7),
              width=max(1, int(fw * 0.03)))
    mw = fw * p["mouth_w"] * 2
    my = cy + fh * 0.5
    lip = mix(skin, (170, 60, 60), 0.5)
    if p["beard"]:
        draw.chord([cx - fw * 0.95, cy - fh * 0.2, cx + fw * 0.95, cy + fh * 1.02], 10, 170, fill=darker(hair, 0.9))
    draw.arc([cx - mw / 2, my - fh * (0.05 + 0.12 * smile), cx + mw / 2, my + fh * (0.05 + 0.12 * smile)],
             15, 165, fill=lip, width=max(2, int(fh * 0.04)))


def portrait_image(identity_id: str, width: int, height: int, background=None, smile: float = 0.0) -> np.ndarray:
    """An ID-photo style head-and-shoulders picture (RGB uint8) of ``identity_id``."""
    p = face_params(identity_id)
    if background is None:
        background = PHOTO_BG[int(identity_rng(identity_id + "bg").integers(len(PHOTO_BG)))]
    scale = 2  # draw larger and shrink: anti-aliased edges
    img = Image.new("RGB", (width * scale, height * scale), background)
    draw_head_and_shoulders(ImageDraw.Draw(img), p, (0, 0, width * scale, height * scale), smile=smile)
    arr = cv2.resize(np.asarray(img), (width, height), interpolation=cv2.INTER_AREA)
    # soften the flat-shaded drawing: a photo has no hard ellipse edges
    arr = cv2.GaussianBlur(arr, (0, 0), max(0.5, 0.006 * width))
    # studio light from one side, so the drawing reads more like a photo
    r = identity_rng(identity_id + "light")
    light = np.linspace(r.uniform(0.8, 0.95), r.uniform(1.0, 1.12), width, dtype=np.float32)
    if r.random() < 0.5:
        light = light[::-1].copy()
    gain = np.repeat(light[None, :], height, 0)
    arr = cv2.multiply(arr, cv2.cvtColor(gain, cv2.COLOR_GRAY2RGB), dtype=cv2.CV_8U)
    return arr


def fit_photo(photo: np.ndarray, width: int, height: int) -> np.ndarray:
    """Centre-crop a caller's photo to the box aspect and resize it (the face stays roughly centred)."""
    photo = np.asarray(photo)
    if photo.dtype != np.uint8:  # float images in [0, 1] (scikit-image style) or wider integer types
        scale = 255.0 if photo.dtype.kind == "f" and float(photo.max(initial=0)) <= 1.0 else 1.0
        photo = np.clip(photo.astype(np.float64) * scale, 0, 255).astype(np.uint8)
    ph, pw = photo.shape[:2]
    target = width / height
    if pw / ph > target:
        nw = int(ph * target)
        x = (pw - nw) // 2
        crop = photo[:, x:x + nw]
    else:
        nh = int(pw / target)
        y = max(0, min((ph - nh) // 3, ph - nh))  # keep the top: heads sit in the upper part
        crop = photo[y:y + nh]
    if crop.ndim == 2:
        crop = np.stack([crop] * 3, -1)
    return cv2.resize(np.ascontiguousarray(crop[..., :3]), (width, height), interpolation=cv2.INTER_AREA)
