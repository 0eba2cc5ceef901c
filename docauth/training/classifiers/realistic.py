"""Supplementary documents drawn the way real ones look, for the side model.

Public specimens, flatbed scans and phone photos of real documents differ from the generator's captures in
ways that decide their side at 128 x 128 pixels:

* the print is pale: near-white paper with a light pastel tint and fine guilloche, dark text, a white MRZ band
  (:func:`real_look` lightens the generator's tints and whitens the band, leaving the text dark);
* passport data pages carry a large faded secondary portrait beside the fields, and current ID card backs a
  small one (often greyscale, laser-engraved) beside the chip, a barcode or 2D code and the three-line zone;
* a passport is shown as its data page alone or as the open booklet, the page above the fold included;
* card fronts carry no MRZ (ICAO 9303 prints the TD1 zone on the back; TD2 designs differ);
* they come as clean digital renders (specimen galleries), as flat scans on white paper with a margin, or as
  phone photos with perspective and glare.

Documents are the generator's own renders (:func:`docauth.synth.render_document`), kinds drawn with the
weights of real uploads (passports and ID cards; TD2 cards and visa stickers are rare). Labels keep the side.
Deterministic by ``(seed, index)``; the cache key of these samples includes this file's hash.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d, photos
from docauth.synth.capture import SKIN_TONES, capture_document, jpeg_roundtrip
from docauth.synth.cards import render_td1_front
from docauth.synth.documents import render_document
from docauth.synth.identity import random_identity
from docauth.synth.passports import facing_page, fold_shadow
from docauth.synth.portrait import fit_photo, portrait_image
from docauth.training.classifiers import layouts
from docauth.training.classifiers.photographs import face_photographs

# What is drawn, and how often: passports and ID cards are what customers upload; a TD2 card or a visa is rare.
KINDS = {"td3_page": 0.28, "td3_spread": 0.16, "td1_back": 0.26, "td1_front": 0.22, "td2_front": 0.04,
         "mrv_visa": 0.04}
SIDES = {"td3_page": "open", "td3_spread": "open", "td1_back": "back", "td1_front": "front", "td2_front": "front",
         "mrv_visa": "front"}
# How it reaches us: a digital render, a flat scan on white, a phone photo.
CAPTURES = {"render": 0.35, "scan": 0.3, "photo": 0.35}
# The holder's picture: a photograph (faces bundled with scikit-image: the LFW crops in a head-and-shoulders
# frame, or the astronaut) more often than the generator's drawing, as on real documents.
PORTRAITS = {"lfw": 0.55, "astronaut": 0.15, "drawn": 0.3}
SPECIMEN_SHARE = 0.35  # specimen galleries print SPECIMEN across the document
# Every side in layouts drawn afresh (docauth.training.classifiers.layouts) rather than the generator's template, most often.
FRESH_LAYOUT = {"td3_page": 0.7, "td3_spread": 0.7, "td1_back": 0.6, "td1_front": 0.7}
SECONDARY_PORTRAIT = {"td3_page": 0.6, "td3_spread": 0.6, "td1_back": 0.75}
STREAM = 79  # this module's random-stream key


def realistic_sample(seed: int, index: int) -> tuple[np.ndarray, dict]:
    """(RGB uint8 image, label dict like the generator's) for sample ``index``."""
    rng = np.random.default_rng([seed, index, STREAM])
    kind = _draw(rng, KINDS)
    capture = _draw(rng, CAPTURES)
    portrait = _portrait(rng)
    page, mask, mrz_top, ghost_of = _render(kind, rng, portrait)
    page = real_look(page, rng, mrz_top=mrz_top)
    if rng.random() < SPECIMEN_SHARE:
        page = specimen_stamp(page, rng)
    if ghost_of is not None and rng.random() < SECONDARY_PORTRAIT.get(kind, 0.0):
        page = secondary_portrait(page, rng, ghost_of, card=kind == "td1_back", mrz_top=mrz_top)
    if kind == "td3_spread":
        page, mask = _spread(page, rng)
    image = _capture(page, mask, rng, capture)
    return image, {"is_document": True, "side": SIDES[kind], "category": f"realistic_{kind}",
                   "capture": capture}


def _draw(rng: np.random.Generator, weights: dict) -> str:
    names = list(weights)
    p = np.array([weights[n] for n in names], np.float64)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _portrait(rng: np.random.Generator) -> np.ndarray | None:
    """The holder's picture, or None for the generator's drawing."""
    source = _draw(rng, PORTRAITS)
    if source == "lfw":
        return photo_portrait(rng, 280, 360)
    if source == "astronaut":
        return photos.face_view(rng, 450, 350)
    return None


def photo_portrait(rng: np.random.Generator, w: int, h: int) -> np.ndarray | None:
    """An ID photograph: one of the LFW face crops bundled with scikit-image, tinted to a skin tone, framed by
    hair and shoulders on a plain light background (None when the crops are not installed)."""
    faces = face_photographs()
    if not len(faces):
        return None
    face = faces[int(rng.integers(len(faces)))].astype(np.float32) / 255.0
    background = rng.uniform(170, 250) * rng.uniform(0.93, 1.03, size=3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = background
    clothing = tuple(float(v) for v in rng.uniform(10, 120, size=3))
    hair = tuple(float(v) for v in (rng.uniform(10, 60, size=3) if rng.random() < 0.75 else rng.uniform(90, 190, 3)))
    cx, cy = w // 2 + int(rng.normal(0, w * 0.02)), int(h * rng.uniform(0.4, 0.46))
    fw, fh = int(w * rng.uniform(0.5, 0.62)), int(h * rng.uniform(0.46, 0.56))
    cv2.ellipse(img, (cx, int(h * 1.08)), (int(w * 0.56), int(h * 0.4)), 0, 180, 360, clothing, -1)
    cv2.ellipse(img, (cx, cy - fh // 8), (int(fw * 0.6), int(fh * 0.62)), 0, 0, 360, hair, -1)
    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32)
    tinted = cv2.resize(face, (fw, fh), interpolation=cv2.INTER_CUBIC)[..., None] * skin * 1.3
    mask = np.zeros((h, w), np.float32)
    cv2.ellipse(mask, (cx, cy), (fw // 2, fh // 2), 0, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, fw * 0.04))[..., None]
    placed = np.zeros_like(img)
    x0, y0 = cx - fw // 2, cy - fh // 2
    xs, ys = slice(max(0, x0), min(w, x0 + fw)), slice(max(0, y0), min(h, y0 + fh))
    placed[ys, xs] = tinted[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0]
    img = img * (1 - mask) + placed * mask
    img += rng.normal(0, rng.uniform(1, 5), img.shape)
    return cv2.GaussianBlur(img.clip(0, 255).astype(np.uint8), (0, 0), float(rng.uniform(0.5, 1.5)))


def specimen_stamp(page: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """SPECIMEN (or the issuer's word for it) printed across the document, as specimen galleries show it."""
    h, w = page.shape[:2]
    word = d.pick(rng, ["SPECIMEN", "SPECIMEN", "MUSTER", "SPÉCIMEN", "UZORAK", "VZOR", "SAMPLE"])
    layer = Image.new("L", (w, h), 0)
    size = int(h * rng.uniform(0.08, 0.18))
    font = d.fit_font(d.FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf", word, w * 0.8, size)
    ImageDraw.Draw(layer).text((w * rng.uniform(0.1, 0.4), h * rng.uniform(0.25, 0.6)), word, font=font,
                               fill=int(rng.uniform(90, 200)))
    layer = layer.rotate(float(rng.uniform(-35, 35)), center=(w / 2, h / 2))
    ink = d.pick(rng, [(200, 40, 50), (220, 60, 60), (120, 120, 130), (40, 60, 150)])
    a = np.asarray(layer, np.float32)[..., None] / 255.0
    return (page * (1 - a) + np.array(ink, np.float32) * a).clip(0, 255).astype(np.uint8)


def _render(kind: str, rng: np.random.Generator, portrait):
    """(flat page cropped to the document, alpha mask or None, the MRZ band's top as a fraction of the page
    height or None, the portrait to repeat as a secondary image or None)."""
    if rng.random() < FRESH_LAYOUT.get(kind, 0.0):
        identity = random_identity(rng)
        face = portrait if portrait is not None else portrait_image(identity["identity_id"], 280, 360)
        if kind == "td1_back":
            page, _, mrz_top = layouts.card_back(rng, identity)
            mask = _card_mask(page.shape[:2])
        elif kind == "td1_front":
            page = layouts.card_front(rng, identity, face)
            return page, _card_mask(page.shape[:2]), None, None
        else:
            page, _, mrz_top = layouts.data_page(rng, identity, face)
            mask = None
        return page, mask, max(0.0, mrz_top - 0.01), face

    if kind == "td1_front":  # a card front without a zone (the TD1 zone is on the back)
        doc = render_td1_front(rng, random_identity(rng), portrait, allow_mrz=False)
    else:
        doc = render_document("td3_page" if kind == "td3_spread" else kind, rng, portrait=portrait)
    x0, y0, x1, y1 = (int(round(v)) for v in doc.page_box)
    page = np.ascontiguousarray(doc.image[max(0, y0):y1, max(0, x0):x1])
    mask = None if doc.mask is None else doc.mask[max(0, y0):y1, max(0, x0):x1]
    mrz_top = None
    if doc.mrz_box is not None:
        # a little above the zone's text: the band real documents leave white around it
        mrz_top = max(0.0, (doc.mrz_box[1] - y0) / page.shape[0] - 0.04)
    ghost = None
    if kind in SECONDARY_PORTRAIT:
        h, w = page.shape[:2]
        ghost = (np.asarray(portrait) if portrait is not None
                 else portrait_image(doc.identity or "realistic", int(w * 0.3), int(w * 0.38)))
    return page, mask, mrz_top, ghost


def _card_mask(shape) -> np.ndarray:
    h, w = shape
    return d.rounded_mask(h, w, int(h * 0.05))


def real_look(page: np.ndarray, rng: np.random.Generator, *, mrz_top: float | None = None) -> np.ndarray:
    """Lighter tints and a whiter MRZ band, dark print kept: the pale look of real security paper.

    Each pixel's distance to white shrinks by a factor that is ``keep`` for light pixels and 1 for dark ones
    (text, portrait shadows), so the tint fades and the print stays legible.
    """
    keep = float(rng.uniform(0.25, 0.8))
    out = _lighten(page, keep, np.ones(page.shape[:2], np.float32))
    if mrz_top is not None and rng.random() < 0.85:
        h = page.shape[0]
        band = np.zeros(page.shape[:2], np.float32)
        band[int(h * mrz_top):] = 1.0
        out = _lighten(out, float(rng.uniform(0.05, 0.35)), band)
    if rng.random() < 0.5:  # real tints are less saturated than the generator's pastels
        hsv = cv2.cvtColor(out, cv2.COLOR_RGB2HSV)
        hsv[..., 1] = (hsv[..., 1].astype(np.float32) * rng.uniform(0.4, 0.9)).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)
    return out


def _lighten(img: np.ndarray, keep: float, where: np.ndarray) -> np.ndarray:
    lum = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    t = np.clip((0.72 - lum) / 0.4, 0.0, 1.0)  # 0 for light pixels, 1 for dark print
    t = t * t * (3 - 2 * t)
    factor = 1.0 - where * (1.0 - (keep + (1.0 - keep) * t))
    return (255.0 - (255.0 - img.astype(np.float32)) * factor[..., None]).clip(0, 255).astype(np.uint8)


def secondary_portrait(page: np.ndarray, rng: np.random.Generator, portrait: np.ndarray, *, card: bool,
                       mrz_top: float | None) -> np.ndarray:
    """A faded copy of the holder's portrait: large beside a data page's fields, small on a card back."""
    h, w = page.shape[:2]
    bottom = (mrz_top or 0.95) * h
    gh = int(h * (rng.uniform(0.2, 0.42) if card else rng.uniform(0.25, 0.45)))
    gh = max(12, min(gh, int(bottom - h * 0.04)))
    gw = int(gh * rng.uniform(0.72, 0.85))
    if card:  # a corner of the top half, or beside the chip
        x0 = int(rng.uniform(0.03, 0.2) * w) if rng.random() < 0.5 else int(w * rng.uniform(0.75, 0.95) - gw)
        y0 = int(rng.uniform(0.04, 0.2) * h)
    else:  # right of the fields, above the zone
        x0 = int(w * rng.uniform(0.68, 0.93) - gw)
        y0 = int(max(h * 0.1, bottom - gh - rng.uniform(0.01, 0.2) * h))
    x0, y0 = max(0, x0), max(0, y0)
    gw, gh = min(gw, w - x0), min(gh, h - y0)
    if gw < 8 or gh < 8:
        return page
    face = fit_photo(portrait, gw, gh).astype(np.float32)
    if rng.random() < 0.7:  # laser-engraved or printed in one tint
        face = np.repeat(cv2.cvtColor(face.astype(np.uint8), cv2.COLOR_RGB2GRAY)[..., None], 3, -1).astype(np.float32)
    alpha = float(rng.uniform(0.25, 0.6) if not card else rng.uniform(0.35, 0.9))
    # soft edges: real secondary images fade into the background
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    edge = np.minimum.reduce([xx, yy, gw - 1 - xx, gh - 1 - yy]) / (0.12 * min(gw, gh) + 1e-6)
    a = (alpha * np.clip(edge, 0, 1))[..., None] if rng.random() < 0.6 else alpha
    out = page.copy()
    roi = out[y0:y0 + gh, x0:x0 + gw].astype(np.float32)
    # multiply-blend: the portrait darkens the print under it, as ink on paper does
    out[y0:y0 + gh, x0:x0 + gw] = (roi * (1 - a) + roi * face / 255.0 * a).clip(0, 255).astype(np.uint8)
    return out


def _spread(page: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, None]:
    """The open booklet: the data page with the page across the fold (most often above it)."""
    h, w = page.shape[:2]
    facing = real_look(np.ascontiguousarray(facing_page(rng, w, h)), rng)
    if rng.random() < 0.35:  # a nearly blank inner page (real spreads often show one)
        facing = _lighten(facing, float(rng.uniform(0.1, 0.4)), np.ones(facing.shape[:2], np.float32))
    above = rng.random() < 0.85
    spread = np.concatenate([facing, page] if above else [page, facing], 0)
    return fold_shadow(spread, 0, h, rng), None


def _capture(page: np.ndarray, mask, rng: np.random.Generator, capture: str) -> np.ndarray:
    if mask is not None and capture != "photo":  # rounded card corners show white paper
        a = mask.astype(np.float32)[..., None] / 255.0
        page = (page * a + 255.0 * (1 - a)).astype(np.uint8)
    if capture == "photo":
        cap = capture_document(page, rng, style="phone", mask=mask, thumb_p=0.1)
        image = cap.image
        if rng.random() < 0.3:  # a laminate's specular glare, larger than the sensor model's
            image = _glare(image, rng)
        return image
    long_side = int(rng.integers(420, 1500))
    if capture == "scan":
        margin = rng.uniform(0.02, 0.25)
        ph, pw = page.shape[:2]
        paper = int(rng.uniform(232, 256))
        m = int(max(ph, pw) * margin)
        sheet = cv2.copyMakeBorder(page, m, m, m, m, cv2.BORDER_CONSTANT, value=(paper,) * 3)
        angle = float(rng.normal(0, 1.2))
        rot = cv2.getRotationMatrix2D((sheet.shape[1] / 2, sheet.shape[0] / 2), angle, 1.0)
        sheet = cv2.warpAffine(sheet, rot, sheet.shape[1::-1], flags=cv2.INTER_LINEAR, borderValue=(paper,) * 3)
        page = sheet
    scale = long_side / max(page.shape[:2])
    image = cv2.resize(page, (max(8, int(page.shape[1] * scale)), max(8, int(page.shape[0] * scale))),
                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
    if capture == "scan":
        image = cv2.convertScaleAbs(image, alpha=float(rng.uniform(0.92, 1.06)), beta=float(rng.uniform(-5, 5)))
        sigma = float(rng.uniform(0, 0.9))
        if sigma > 0.3:
            image = cv2.GaussianBlur(image, (0, 0), sigma)
        noise = rng.standard_normal(image.shape[:2], dtype=np.float32) * float(rng.uniform(0.5, 3))
        image = cv2.add(image, cv2.cvtColor(noise, cv2.COLOR_GRAY2RGB), dtype=cv2.CV_8U)
    if rng.random() < (0.8 if capture == "scan" else 0.5):  # renders are often lossless PNGs
        image = jpeg_roundtrip(image, int(rng.integers(65, 97)))
    return np.ascontiguousarray(image)


def _glare(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A bright, soft-edged streak of reflected light."""
    h, w = image.shape[:2]
    sh, sw = max(4, h // 8), max(4, w // 8)
    layer = np.zeros((sh, sw), np.float32)
    centre = (int(rng.uniform(0.1, 0.9) * sw), int(rng.uniform(0.1, 0.9) * sh))
    axes = (int(rng.uniform(0.1, 0.45) * sw), int(rng.uniform(0.03, 0.15) * sh))
    cv2.ellipse(layer, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    k = int(min(sh, sw) * 0.15) | 1
    layer = cv2.GaussianBlur(layer, (k, k), 0) * float(rng.uniform(120, 230))
    add = cv2.resize(layer, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.uint8)
    return cv2.add(image, cv2.cvtColor(add, cv2.COLOR_GRAY2RGB))
