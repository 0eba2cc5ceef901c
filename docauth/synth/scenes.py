"""Backgrounds: what a document lies on when photographed, and what non-document photos show."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d

SURFACES = ("wood", "table", "fabric", "clutter", "keyboard", "papers", "carpet", "stone")


def _noise_field(rng, h: int, w: int, cells: int) -> np.ndarray:
    """Smooth value noise in [0, 1] (random grid upsampled)."""
    g = rng.random((max(2, h * cells // max(h, w)), max(2, w * cells // max(h, w)))).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def wood(rng, h, w):
    base = np.array(d.hsv(rng.uniform(0.05, 0.1), rng.uniform(0.35, 0.7), rng.uniform(0.35, 0.85)), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    warp = _noise_field(rng, h, w, 6) * rng.uniform(20, 60)
    freq = rng.uniform(0.05, 0.15)
    vertical = rng.random() < 0.5
    coord = (xx if vertical else yy) + warp
    grain = 0.5 + 0.5 * np.sin(coord * freq + 3 * np.sin(coord * freq * 0.13))
    shade = 0.75 + 0.25 * grain + 0.1 * (_noise_field(rng, h, w, 30) - 0.5)
    img = base[None, None] * shade[..., None]
    if rng.random() < 0.5:  # plank seams
        step = int(rng.uniform(0.15, 0.4) * (w if vertical else h))
        for s in range(step, (w if vertical else h), step):
            if vertical:
                img[:, s:s + 2] *= 0.55
            else:
                img[s:s + 2] *= 0.55
    return img


def table(rng, h, w):
    c = np.array(d.hsv(rng.random(), rng.uniform(0, 0.35), rng.uniform(0.2, 0.95)), np.float32)
    tex = 0.9 + 0.1 * _noise_field(rng, h, w, int(rng.integers(4, 40)))
    return c[None, None] * tex[..., None]


def fabric(rng, h, w):
    c = np.array(d.hsv(rng.random(), rng.uniform(0.2, 0.7), rng.uniform(0.3, 0.9)), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    p = rng.uniform(3, 9)
    weave = 0.85 + 0.08 * np.sin(xx * 2 * np.pi / p) * np.sin(yy * 2 * np.pi / p) + 0.07 * _noise_field(rng, h, w, 8)
    img = c[None, None] * weave[..., None]
    if rng.random() < 0.4:  # checks / stripes
        c2 = np.array(d.hsv(rng.random(), 0.5, 0.6), np.float32)
        if rng.random() < 0.5:
            band = ((xx // (p * 6)) % 2 == 0) | ((yy // (p * 6)) % 2 == 0)
        else:
            band = (xx // (p * 5)) % 2 == 0
        img[band] = img[band] * 0.6 + c2 * 0.4
    return img


def carpet(rng, h, w):
    c = np.array(d.hsv(rng.random(), rng.uniform(0.1, 0.5), rng.uniform(0.25, 0.7)), np.float32)
    n = rng.random((h // 2 + 1, w // 2 + 1)).astype(np.float32)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_NEAREST)
    return c[None, None] * (0.75 + 0.35 * n)[..., None]


def stone(rng, h, w):
    c = np.array(d.hsv(rng.random(), rng.uniform(0, 0.15), rng.uniform(0.45, 0.9)), np.float32)
    t = 0.5 * _noise_field(rng, h, w, 12) + 0.3 * _noise_field(rng, h, w, 50) + 0.2 * _noise_field(rng, h, w, 150)
    return c[None, None] * (0.7 + 0.5 * t)[..., None]


def _shapes_on(img: np.ndarray, rng, n: int) -> np.ndarray:
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    dr = ImageDraw.Draw(pil)
    h, w = img.shape[:2]
    for _ in range(n):
        col = d.hsv(rng.random(), rng.uniform(0, 0.9), rng.uniform(0.1, 1))
        x, y = rng.uniform(-0.1, 1) * w, rng.uniform(-0.1, 1) * h
        s = rng.uniform(0.05, 0.35) * min(h, w)
        k = rng.random()
        if k < 0.3:  # pen / cable
            ang = rng.uniform(0, np.pi)
            dr.line([(x, y), (x + np.cos(ang) * s * 2, y + np.sin(ang) * s * 2)], fill=col, width=int(s * 0.08) + 2)
        elif k < 0.6:  # mug / coin / lid
            dr.ellipse([x, y, x + s, y + s], fill=col, outline=d.darker(col, 0.6), width=2)
        elif k < 0.8:  # phone / notebook / box
            dr.rounded_rectangle([x, y, x + s * rng.uniform(0.6, 1.8), y + s], radius=int(s * 0.1), fill=col)
        else:  # irregular object
            pts = [(x + s * np.cos(a) * rng.uniform(0.5, 1), y + s * np.sin(a) * rng.uniform(0.5, 1))
                   for a in np.linspace(0, 2 * np.pi, 7)[:-1]]
            dr.polygon(pts, fill=col)
    return np.asarray(pil).astype(np.float32)


def clutter(rng, h, w):
    return _shapes_on(table(rng, h, w), rng, int(rng.integers(4, 14)))


def keyboard(rng, h, w):
    dark = rng.random() < 0.7
    body = np.array((35, 35, 38) if dark else (215, 215, 218), np.float32) * rng.uniform(0.8, 1.15)
    key = np.clip(body + (25 if dark else -20), 0, 255)
    pil = Image.new("RGB", (w, h), tuple(int(v) for v in body))
    dr = ImageDraw.Draw(pil)
    k = rng.uniform(0.06, 0.12) * min(h, w)
    f = d.font(d.FONT_DIR_DEJAVU + "DejaVuSans.ttf", int(k * 0.3))
    letters = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890"
    oy = rng.uniform(-k, 0)
    row = 0
    y = oy
    while y < h:
        x = rng.uniform(-k, 0) + row * k * 0.25
        while x < w:
            dr.rounded_rectangle([x, y, x + k * 0.9, y + k * 0.9], radius=int(k * 0.12),
                                 fill=tuple(int(v) for v in key))
            dr.text((x + k * 0.15, y + k * 0.1), d.pick(rng, letters), font=f,
                    fill=(200, 200, 200) if dark else (40, 40, 40))
            x += k
        y += k
        row += 1
    return np.asarray(pil).astype(np.float32)


def papers(rng, h, w):
    img = table(rng, h, w)
    pil = Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))
    dr = ImageDraw.Draw(pil)
    f = d.font(d.FONT_DIR_DEJAVU + "DejaVuSans.ttf", max(6, int(min(h, w) * 0.015)))
    for _ in range(int(rng.integers(1, 4))):
        x, y = rng.uniform(-0.3, 0.7) * w, rng.uniform(-0.3, 0.7) * h
        pw, ph = rng.uniform(0.4, 0.8) * w, rng.uniform(0.5, 0.9) * h
        dr.rectangle([x, y, x + pw, y + ph], fill=(int(rng.uniform(225, 250)),) * 3, outline=(190, 190, 190))
        for i in range(int(rng.integers(5, 25))):
            dr.text((x + pw * 0.08, y + ph * 0.08 + i * f.size * 1.6), "lorem ipsum dolor sit amet " * 3,
                    font=f, fill=(90, 90, 90))
    return np.asarray(pil).astype(np.float32)


_SURFACE_FUNCS = {"wood": wood, "table": table, "fabric": fabric, "clutter": clutter, "keyboard": keyboard,
                  "papers": papers, "carpet": carpet, "stone": stone}


def surface(rng, h: int, w: int, kind: str | None = None) -> tuple[np.ndarray, str]:
    """A uint8 RGB background (rendered at half size for speed, then resized)."""
    if kind is None and rng.random() < 0.15:  # a real photographed texture / scene under the document
        from docauth.synth import photos

        view = photos.random_view(rng, photos.TEXTURES + ("coffee.png", "motorcycle_left.png", "coins.png"), h, w)
        if view is not None:
            return view[0], "photo_" + view[1].split(".")[0]
    kind = kind or d.pick(rng, SURFACES)
    sh, sw = max(8, h // 2), max(8, w // 2)
    img = np.clip(_SURFACE_FUNCS[kind](rng, sh, sw), 0, 255).astype(np.uint8)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR), kind
