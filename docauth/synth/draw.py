"""Drawing primitives shared by the document and non-document renderers (PIL + numpy, no global state)."""

from __future__ import annotations

import colorsys
import functools

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR_DEJAVU = "/usr/share/fonts/truetype/dejavu/"
FONT_DIR_LIBERATION = "/usr/share/fonts/truetype/liberation/"
OCRB = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"

# (regular, bold) pairs used for the visual inspection zone and printed pages
VIZ_FAMILIES = [
    (FONT_DIR_DEJAVU + "DejaVuSans.ttf", FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf"),
    (FONT_DIR_DEJAVU + "DejaVuSansCondensed.ttf", FONT_DIR_DEJAVU + "DejaVuSansCondensed-Bold.ttf"),
    (FONT_DIR_DEJAVU + "DejaVuSerif.ttf", FONT_DIR_DEJAVU + "DejaVuSerif-Bold.ttf"),
    (FONT_DIR_LIBERATION + "LiberationSans-Regular.ttf", FONT_DIR_LIBERATION + "LiberationSans-Bold.ttf"),
    (FONT_DIR_LIBERATION + "LiberationSansNarrow-Regular.ttf", FONT_DIR_LIBERATION + "LiberationSansNarrow-Bold.ttf"),
    (FONT_DIR_LIBERATION + "LiberationSerif-Regular.ttf", FONT_DIR_LIBERATION + "LiberationSerif-Bold.ttf"),
    (FONT_DIR_LIBERATION + "LiberationMono-Regular.ttf", FONT_DIR_LIBERATION + "LiberationMono-Bold.ttf"),
]
MONO = FONT_DIR_DEJAVU + "DejaVuSansMono.ttf"
MONO_BOLD = FONT_DIR_DEJAVU + "DejaVuSansMono-Bold.ttf"
ITALIC = FONT_DIR_DEJAVU + "DejaVuSerif-Italic.ttf"


@functools.lru_cache(maxsize=512)
def font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, max(4, int(size)))


# What a document spells a letter as when its typeface has no glyph for it (German orthography writes the
# capital sharp s as SS): a printed card never shows a missing-glyph box. The Liberation fonts lack only "ẞ".
SPELLING_WITHOUT_GLYPH = {"ẞ": "SS"}


@functools.lru_cache(maxsize=256)
def has_glyph(path: str, char: str) -> bool:
    """Does the typeface draw ``char`` (rather than its missing-glyph box)?"""
    f = font(path, 32)
    return not np.array_equal(np.asarray(f.getmask(char)), np.asarray(f.getmask("\U0010FFFD")))


def printable(path: str, text: str) -> str:
    """``text`` as printed in the typeface at ``path``: letters it has no glyph for are spelled out.

    >>> printable(FONT_DIR_LIBERATION + "LiberationSans-Bold.ttf", "STRAẞER"), printable(VIZ_FAMILIES[0][1], "STRAẞER")
    ('STRASSER', 'STRAẞER')
    """
    return "".join(SPELLING_WITHOUT_GLYPH[c] if c in SPELLING_WITHOUT_GLYPH and not has_glyph(path, c) else c
                   for c in text)


def pick(rng: np.random.Generator, seq):
    return seq[int(rng.integers(len(seq)))]


def hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0), 1), min(max(v, 0), 1))
    return int(r * 255), int(g * 255), int(b * 255)


def pastel(rng: np.random.Generator, hue: float | None = None) -> tuple[int, int, int]:
    hue = rng.random() if hue is None else hue
    return hsv(hue, rng.uniform(0.05, 0.22), rng.uniform(0.88, 0.98))


def darker(color, f: float) -> tuple[int, int, int]:
    return tuple(int(c * f) for c in color)


def mix(a, b, t: float) -> tuple[int, int, int]:
    return tuple(int(x * (1 - t) + y * t) for x, y in zip(a, b))


def gradient(h: int, w: int, c0, c1, angle: float) -> np.ndarray:
    """Linear gradient between two colours, uint8 RGB (computed on a small grid, then resized)."""
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    t = (xx / sw) * np.cos(angle) + (yy / sh) * np.sin(angle)
    t = (t - t.min()) / max(1e-6, float(t.max() - t.min()))
    a, b = np.asarray(c0, np.float32)[None, None], np.asarray(c1, np.float32)[None, None]
    g = a * (1 - t[..., None]) + b * t[..., None]
    return cv2.resize(np.clip(g, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)


def guilloche(draw: ImageDraw.ImageDraw, rng: np.random.Generator, box, color, n: int = 14, width: int = 1):
    """Interleaved sine waves across ``box`` (the fine line background of security documents)."""
    x0, y0, x1, y1 = box
    xs = np.linspace(x0, x1, 220)
    amp = rng.uniform(0.03, 0.12) * (y1 - y0)
    lam = rng.uniform(0.15, 0.5) * (x1 - x0)
    lam2 = lam * rng.uniform(1.7, 3.3)
    for i in range(n):
        yc = y0 + (i + 0.5) * (y1 - y0) / n
        ph = rng.uniform(0, 6.3)
        ys = yc + amp * np.sin(2 * np.pi * xs / lam + ph) + 0.4 * amp * np.sin(2 * np.pi * xs / lam2 + i * 0.7)
        draw.line(list(zip(xs.tolist(), ys.tolist())), fill=color, width=width)


def rosette(draw: ImageDraw.ImageDraw, rng: np.random.Generator, center, radius: float, color, n: int = 10, width=1):
    """A guilloche rosette: r(t) = R (1 + a sin(k t + phase))."""
    cx, cy = center
    t = np.linspace(0, 2 * np.pi, 360)
    k = int(rng.integers(5, 16))
    a = rng.uniform(0.08, 0.3)
    for i in range(n):
        r = radius * (1 - 0.5 * i / n) * (1 + a * np.sin(k * t + i * np.pi / n))
        pts = list(zip((cx + r * np.cos(t)).tolist(), (cy + r * np.sin(t)).tolist()))
        draw.line(pts, fill=color, width=width)


def microtext_band(draw, rng, y: float, x0: float, x1: float, text: str, color, size: int = 9):
    f = font(FONT_DIR_DEJAVU + "DejaVuSansCondensed.ttf", size)
    s = (text.replace(" ", "") + " ") * 60
    draw.text((x0, y), s[: int((x1 - x0) / max(1, size * 0.45))], font=f, fill=color)


def hologram(img: np.ndarray, rng: np.random.Generator, strength: float = 0.15) -> np.ndarray:
    """Rainbow tint in a soft elliptical patch (holographic overlay); blended only inside the patch."""
    h, w = img.shape[:2]
    rx, ry = rng.uniform(0.15, 0.4) * w, rng.uniform(0.2, 0.5) * h
    cx, cy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
    x0, x1 = int(max(0, cx - rx * 1.1)), int(min(w, cx + rx * 1.1))
    y0, y1 = int(max(0, cy - ry * 1.1)), int(min(h, cy + ry * 1.1))
    pw, ph = x1 - x0, y1 - y0
    if pw < 8 or ph < 8:
        return img
    sh, sw = max(2, ph // 8), max(2, pw // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    ex, ey = (xx * pw / sw + x0 - cx) / rx, (yy * ph / sh + y0 - cy) / ry
    mask = np.clip(1.2 - ex ** 2 - ey ** 2, 0, 1) * strength
    hue = ((xx * pw / sw + yy * ph / sh) / (w + h) * rng.uniform(2, 5)) % 1.0
    hsvimg = np.stack([hue * 180, np.full_like(hue, 120), np.full_like(hue, 255)], -1).astype(np.uint8)
    rainbow = cv2.resize(cv2.cvtColor(hsvimg, cv2.COLOR_HSV2RGB), (pw, ph))
    mask = cv2.resize(mask, (pw, ph))
    out = img.copy()
    out[y0:y1, x0:x1] = cv2.blendLinear(rainbow, np.ascontiguousarray(img[y0:y1, x0:x1]), mask, 1.0 - mask)
    return out


def signature(draw, rng, box, color=(20, 30, 90), width: int = 2):
    """A scribble: a few loops along a baseline (smooth random walk)."""
    x0, y0, x1, y1 = box
    n = 120
    t = np.linspace(0, 1, n)
    loops = rng.uniform(3, 9)
    xs = x0 + (x1 - x0) * (t + 0.04 * np.sin(2 * np.pi * loops * t + rng.uniform(0, 6)))
    ys = (y0 + y1) / 2 + (y1 - y0) * 0.35 * (np.sin(2 * np.pi * loops * t * rng.uniform(0.8, 1.3))
                                             * np.exp(-((t - rng.uniform(0.1, 0.4)) ** 2) * rng.uniform(2, 8)))
    ys += (y1 - y0) * 0.1 * np.cumsum(rng.normal(0, 0.15, n)) / np.sqrt(n)
    draw.line(list(zip(xs.tolist(), ys.tolist())), fill=color, width=width, joint="curve")
    if rng.random() < 0.6:  # underline flourish
        xa = x0 + (x1 - x0) * rng.uniform(0.0, 0.3)
        xb = x0 + (x1 - x0) * rng.uniform(0.6, 1.0)
        yb = y0 + (y1 - y0) * rng.uniform(0.7, 0.95)
        draw.line([(xa, yb), ((xa + xb) / 2, yb + rng.uniform(-4, 4)), (xb, yb - rng.uniform(0, 8))],
                  fill=color, width=width)


def barcode(draw, rng, box, color=(0, 0, 0)):
    x0, y0, x1, y1 = (int(v) for v in box)
    x = x0
    while x < x1 - 4:
        w = int(rng.integers(1, 5))
        if rng.random() < 0.55:
            draw.rectangle([x, y0, x + w - 1, y1], fill=color)
        x += w


def matrix_code(draw, rng, box, color=(0, 0, 0), cells: int | None = None):
    """A 2D code: random module grid with three finder squares (QR-like) or a data-matrix L border."""
    x0, y0, x1, y1 = box
    size = min(x1 - x0, y1 - y0)
    n = cells or int(rng.integers(17, 33))
    m = size / n
    grid = rng.random((n, n)) < 0.5
    qr = rng.random() < 0.6
    if not qr:
        grid[-1, :] = True
        grid[:, 0] = True
        grid[0, ::2] = True
        grid[::2, -1] = True
    for i, j in zip(*np.nonzero(grid)):
        draw.rectangle([x0 + j * m, y0 + i * m, x0 + (j + 1) * m - 1, y0 + (i + 1) * m - 1], fill=color)
    if qr:
        for (ci, cj) in ((0, 0), (0, n - 7), (n - 7, 0)):
            bx, by = x0 + cj * m, y0 + ci * m
            draw.rectangle([bx, by, bx + 7 * m - 1, by + 7 * m - 1], fill=(255, 255, 255))
            draw.rectangle([bx, by, bx + 7 * m - 1, by + 7 * m - 1], outline=color, width=max(1, int(m)))
            draw.rectangle([bx + 2 * m, by + 2 * m, bx + 5 * m - 1, by + 5 * m - 1], fill=color)


def chip(draw, rng, box):
    """Gold contact chip of a smart card."""
    x0, y0, x1, y1 = box
    gold = hsv(rng.uniform(0.1, 0.14), rng.uniform(0.35, 0.6), rng.uniform(0.7, 0.9))
    if rng.random() < 0.25:
        gold = (190, 190, 195)  # silver
    line = darker(gold, 0.6)
    r = (x1 - x0) * 0.15
    draw.rounded_rectangle(box, radius=r, fill=gold, outline=line, width=2)
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    draw.line([(x0, my), (x1, my)], fill=line, width=2)
    draw.line([(mx, y0 + (y1 - y0) * 0.25), (mx, y1 - (y1 - y0) * 0.25)], fill=line, width=2)
    for f in (0.33, 0.66):
        yy = y0 + (y1 - y0) * f
        draw.line([(x0, yy), (x0 + (x1 - x0) * 0.35, yy)], fill=line, width=2)
        draw.line([(x1 - (x1 - x0) * 0.35, yy), (x1, yy)], fill=line, width=2)
    draw.rounded_rectangle([x0 + (x1 - x0) * 0.35, y0 + (y1 - y0) * 0.25, x1 - (x1 - x0) * 0.35,
                            y1 - (y1 - y0) * 0.25], radius=r / 2, outline=line, width=2)


def emblem(draw, rng, center, radius: float, color):
    """A coat-of-arms-like emblem: shield, star or circle with a cross."""
    cx, cy = center
    kind = int(rng.integers(3))
    if kind == 0:
        pts = [(cx - radius, cy - radius), (cx + radius, cy - radius), (cx + radius, cy + radius * 0.2),
               (cx, cy + radius * 1.1), (cx - radius, cy + radius * 0.2)]
        draw.polygon(pts, outline=color, width=3)
        draw.line([(cx, cy - radius), (cx, cy + radius)], fill=color, width=2)
        draw.line([(cx - radius, cy - radius * 0.2), (cx + radius, cy - radius * 0.2)], fill=color, width=2)
    elif kind == 1:
        k = int(rng.integers(5, 9))
        ang = np.linspace(-np.pi / 2, 1.5 * np.pi, 2 * k + 1)[:-1]
        rr = np.where(np.arange(2 * k) % 2 == 0, radius, radius * 0.45)
        draw.polygon(list(zip((cx + rr * np.cos(ang)).tolist(), (cy + rr * np.sin(ang)).tolist())), fill=color)
    else:
        draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], outline=color, width=3)
        draw.ellipse([cx - radius * 0.7, cy - radius * 0.7, cx + radius * 0.7, cy + radius * 0.7], outline=color,
                     width=2)
        draw.line([(cx - radius * 0.5, cy), (cx + radius * 0.5, cy)], fill=color, width=3)
        draw.line([(cx, cy - radius * 0.5), (cx, cy + radius * 0.5)], fill=color, width=3)


def fit_font(path: str, text: str, max_width: float, size: int, min_size: int = 8):
    while size > min_size and font(path, size).getlength(text) > max_width:
        size -= 1
    return font(path, size)


def rounded_mask(h: int, w: int, radius: int) -> np.ndarray:
    """uint8 alpha (255 inside) of a rectangle with rounded corners."""
    m = Image.new("L", (w, h), 0)
    ImageDraw.Draw(m).rounded_rectangle([0, 0, w - 1, h - 1], radius=radius, fill=255)
    return np.asarray(m)
