"""Random well-formed MRZ text and degraded renderings of it, to train the MRZ line recogniser.

Whole MRZ blocks are rendered with OCR-B (and, for robustness to other
printers, a few other monospaced fonts), degraded like a phone photo or a
poor scan. The recogniser's training (:mod:`docauth.training.line_model`) then cuts
them into line strips with the *same* code the reader uses.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from docauth.ocr.mrz.checkdigit import check_digit
from docauth.ocr.mrz import FORMATS

OCRB = "/usr/share/fonts/opentype/ocr-b/OCRB.otf"
OTHER_FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Bold.ttf",
]
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIGITS = "0123456789"


# --- random but well-formed MRZ text ------------------------------------------
def _word(rng, lo=2, hi=10) -> str:
    return "".join(rng.choice(list(LETTERS), size=int(rng.integers(lo, hi + 1))))


def _name_field(rng, width: int) -> str:
    parts = [_word(rng) for _ in range(int(rng.integers(1, 3)))]
    given = [_word(rng, 1, 9) for _ in range(int(rng.integers(0, 4)))]
    text = "<".join(parts) + ("<<" + "<".join(given) if given else "")
    return (text + "<" * width)[:width]


def _alnum(rng, n: int, p_digit=0.7) -> str:
    return "".join(rng.choice(list(DIGITS)) if rng.random() < p_digit else rng.choice(list(LETTERS)) for _ in range(n))


def _date(rng) -> str:
    return f"{int(rng.integers(0, 100)):02d}{int(rng.integers(1, 13)):02d}{int(rng.integers(1, 29)):02d}"


def _optional(rng, n: int) -> str:
    k = int(rng.integers(0, n + 1)) if rng.random() < 0.5 else 0
    return (_alnum(rng, k) + "<" * n)[:n]


def random_mrz(rng: np.random.Generator, type_: str) -> list[str]:
    """Lines of a random MRZ of ``type_`` with correct check digits."""
    state = _word(rng, 3, 3) if rng.random() < 0.9 else _word(rng, 1, 1) + "<<"
    nat = _word(rng, 3, 3)
    number = (_alnum(rng, int(rng.integers(6, 10))) + "<<<")[:9]
    dob, exp = _date(rng), _date(rng)
    sex = str(rng.choice(list("MFX<"), p=[0.45, 0.45, 0.05, 0.05]))
    if type_ == "TD1":
        code = str(rng.choice(["I<", "ID", "IR", "A<", "C<", "AC", "IT"]))
        opt1, opt2 = _optional(rng, 15), _optional(rng, 11)
        l1 = code + state + number + check_digit(number) + opt1
        l2 = dob + check_digit(dob) + sex + exp + check_digit(exp) + nat + opt2
        l2 += check_digit(l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29])
        return [l1, l2, _name_field(rng, 30)]
    length = FORMATS[type_][1]
    code = {"TD2": ["I<", "ID", "AC"], "TD3": ["P<", "PA", "PD"], "MRVA": ["V<", "VN", "VI"],
            "MRVB": ["V<", "VC", "VD"]}[type_]
    l1 = str(rng.choice(code)) + state + _name_field(rng, length - 5)
    head = number + check_digit(number) + nat + dob + check_digit(dob) + sex + exp + check_digit(exp)
    if type_ == "TD3":
        pn = _optional(rng, 14)
        tail = pn + (check_digit(pn) if pn.strip("<") else "<")
        l2 = head + tail
        l2 += check_digit(l2[0:10] + l2[13:20] + l2[21:43])
    elif type_ == "TD2":
        l2 = head + _optional(rng, 7)
        l2 += check_digit(l2[0:10] + l2[13:20] + l2[21:35])
    else:
        l2 = head + _optional(rng, length - 28)
    return [l1, l2]


# --- rendering -------------------------------------------------------------
_FONT_CACHE: dict = {}


def _font(path: str, size: int):
    key = (path, size)
    if key not in _FONT_CACHE:
        _FONT_CACHE[key] = ImageFont.truetype(path, size)
    return _FONT_CACHE[key]


def render_block(rng: np.random.Generator, lines: list[str], *, pitch_px: float | None = None) -> np.ndarray:
    """A degraded grayscale image holding the MRZ ``lines`` with some margin and clutter."""
    font_path = OCRB if rng.random() < 0.85 else str(rng.choice(OTHER_FONTS))
    size = 44
    font = _font(font_path, size)
    advance = font.getlength("0")
    r = rng.random()
    tracking = 1.0 + (rng.uniform(0.0, 0.25) if r < 0.25 else rng.uniform(-0.14, 0.0) if r < 0.45
                      else rng.uniform(-0.03, 0.05))
    pitch = advance * tracking
    cap = size * 0.72
    line_gap = cap * rng.uniform(1.45, 2.3)
    n = max(len(ln) for ln in lines)
    margin_x, margin_top, margin_bottom = int(rng.uniform(0.5, 6) * pitch), int(rng.uniform(0.6, 4) * cap), int(rng.uniform(0.6, 3) * cap)
    width = int(n * pitch + 2 * margin_x)
    height = int(margin_top + line_gap * (len(lines) - 1) + cap * 1.4 + margin_bottom)
    paper = int(rng.integers(150, 256))
    ink = int(rng.integers(0, max(1, min(110, paper - 60))))
    img = Image.new("L", (width, height), paper)
    draw = ImageDraw.Draw(img)
    # Background clutter: guilloche curves, faint text, a stamp stroke.
    for _ in range(int(rng.integers(0, 6))):
        amp, freq, phase = rng.uniform(3, 25), rng.uniform(0.005, 0.05), rng.uniform(0, 6.3)
        y0 = rng.uniform(0, height)
        xs = np.arange(0, width, 4)
        pts = [(float(x), float(y0 + amp * np.sin(freq * x + phase))) for x in xs]
        tone = int(np.clip(paper - rng.integers(10, 70), 0, 255))
        draw.line(pts, fill=tone, width=int(rng.integers(1, 3)))
    if rng.random() < 0.5:
        small = _font(str(rng.choice([OCRB] + OTHER_FONTS)), int(rng.integers(16, 30)))
        txt = " ".join(_word(rng, 2, 8) for _ in range(6))
        draw.text((rng.uniform(0, width / 2), rng.uniform(0, max(1, margin_top - 30))), txt, fill=ink, font=small)
    y = margin_top
    for ln in lines:
        for i, ch in enumerate(ln):
            draw.text((margin_x + i * pitch, y), ch, fill=ink, font=font, anchor="la")
        y += line_gap
    if rng.random() < 0.15:  # a stamp or signature stroke across the text
        pts = [(float(rng.uniform(0, width)), float(rng.uniform(0, height))) for _ in range(3)]
        draw.line(pts, fill=int(rng.integers(0, paper)), width=int(rng.integers(2, 6)))
    arr = np.asarray(img, np.uint8)
    # Stroke thickness (printer, focus).
    r = rng.random()
    if r < 0.2:
        arr = cv2.erode(arr, np.ones((3, 3), np.uint8))  # darker ink spreads: thicker
    elif r < 0.35:
        arr = cv2.dilate(arr, np.ones((2, 2), np.uint8))
    # Printers and scans stretch the zone: glyphs wider or narrower than OCR-B's own proportions.
    if rng.random() < 0.35:
        sx = rng.uniform(0.8, 1.25)
        arr = cv2.resize(arr, (max(8, int(width * sx)), height), interpolation=cv2.INTER_AREA)
        width = arr.shape[1]
    # Slight rotation.
    angle = rng.normal(0, 0.6)
    m = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    arr = cv2.warpAffine(arr, m, (width, height), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_LINEAR)
    # Down to the target pitch (specimen scans: 8-12 px; phone photos: 12-30 px).
    r = rng.random()
    target = pitch_px or float(rng.uniform(5.0, 7.5) if r < 0.2 else rng.uniform(7.5, 12) if r < 0.55
                               else rng.uniform(12, 24))
    s = target / (pitch * (width / max(1, int(n * pitch + 2 * margin_x))))
    arr = cv2.resize(arr, (max(8, int(width * s)), max(8, int(height * s))), interpolation=cv2.INTER_AREA)
    # Lighting gradient, blur, noise, JPEG.
    hh, ww = arr.shape
    gx = np.linspace(rng.uniform(-30, 10), rng.uniform(-30, 10), ww)[None, :]
    gy = np.linspace(rng.uniform(-20, 10), rng.uniform(-20, 10), hh)[:, None]
    f = arr.astype(np.float32) + gx + gy
    if rng.random() < 0.6:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.1))
    f += rng.normal(0, rng.uniform(0, 9), f.shape)
    arr = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, enc = cv2.imencode(".jpg", arr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        arr = cv2.imdecode(enc, cv2.IMREAD_GRAYSCALE)
    if target < 9 and rng.random() < 0.8:
        # The reader upsamples small documents (cubic) before reading: so does training.
        f = rng.uniform(1.5, 2.6)
        arr = cv2.resize(arr, (int(arr.shape[1] * f), int(arr.shape[0] * f)), interpolation=cv2.INTER_CUBIC)
    return arr
