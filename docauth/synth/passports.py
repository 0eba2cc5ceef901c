"""Passport data pages: the opened booklet (data page and its facing page) and the page alone."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d
from docauth.synth.document_parts import (
    LABELS,
    TD3_SIZE,
    RenderedDocument,
    Style,
    draw_background,
    draw_field,
    draw_ghost,
    draw_mrz_block,
    draw_security_extras,
    draw_specimen,
    finish_document,
    fitted_portrait,
    formatted_date,
)
from docauth.synth.identity import country as country_info, label_fields
from docauth.synth.mrz_compose import td3_lines

def _td3_page(rng, identity: dict, portrait) -> tuple[np.ndarray, list[str], tuple, tuple]:
    w, h = TD3_SIZE
    style = Style(rng, identity["issuing_state"])
    img = draw_background(rng, style, w, h)
    dr = ImageDraw.Draw(img)
    code, en_name, local_name, adjective = style.country
    mrz_top = h * rng.uniform(0.74, 0.78)
    # header
    pp = style.label("passport")
    if style.lang2:
        pp = LABELS[style.lang2]["passport"] + " / " + LABELS["en"]["passport"]
    dr.text((w * 0.04, h * 0.03), pp, font=d.fit_font(style.bold, pp, w * 0.3, int(h * 0.035)), fill=style.accent)
    cname = local_name if (local_name and rng.random() < 0.5) else en_name
    f = d.fit_font(style.bold, cname, w * 0.5, int(h * 0.05))
    dr.text((w * 0.62 - f.getlength(cname) / 2, h * 0.025), cname, font=f, fill=style.accent)
    ph_w, ph_h = int(w * rng.uniform(0.25, 0.29)), 0
    ph_h = int(ph_w * 1.28)
    px, py = int(w * 0.035), int(h * 0.14)
    pimg = fitted_portrait(identity, portrait, ph_w, ph_h)
    img.paste(Image.fromarray(pimg), (px, py))
    portrait_box = (px, py, px + ph_w, py + ph_h)
    fx = px + ph_w + w * 0.04
    fw = w * 0.96 - fx
    ls, vs = int(h * 0.022), int(h * 0.036)
    y = h * 0.1
    doc_code = d.pick(rng, ["P<", "P<", "P<", "PP", "PD"])
    draw_field(dr, style, fx, y, "type", doc_code.rstrip("<"), ls, vs, fw * 0.15)
    draw_field(dr, style, fx + fw * 0.18, y, "code", identity["issuing_state"], ls, vs, fw * 0.2)
    y = draw_field(dr, style, fx + fw * 0.55, y, "ppno", identity["document_number"], ls, vs, fw * 0.45)
    y = draw_field(dr, style, fx, y, "surname", identity["surname"], ls, vs, fw)
    y = draw_field(dr, style, fx, y, "given", identity["given_names"], ls, vs, fw)
    nat_text = country_info(identity["nationality"])[3] if rng.random() < 0.6 else identity["nationality"]
    y = draw_field(dr, style, fx, y, "nat", nat_text, ls, vs, fw * 0.6)
    draw_field(dr, style, fx, y, "dob", formatted_date(identity, "date_of_birth", style), ls, vs, fw * 0.45)
    y = draw_field(dr, style, fx + fw * 0.5, y, "pob", identity["place_of_birth"], ls, vs, fw * 0.5)
    draw_field(dr, style, fx, y, "sex", identity["sex"], ls, vs, fw * 0.2)
    y = draw_field(dr, style, fx + fw * 0.5, y, "issue", formatted_date(identity, "date_of_issue", style), ls, vs, fw * 0.5)
    draw_field(dr, style, fx, y, "exp", formatted_date(identity, "expiry", style), ls, vs, fw * 0.45)
    if y + vs * 2 < mrz_top:
        d.signature(dr, rng, (fx + fw * 0.5, y, fx + fw * 0.95, min(mrz_top - 4, y + vs * 2.2)))
    elif rng.random() < 0.7:
        d.signature(dr, rng, (px, py + ph_h + 4, px + ph_w, mrz_top - 4))
    draw_security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    if rng.random() < 0.4:
        gw = int(w * 0.09)
        draw_ghost(img, identity, style, (w * 0.88, mrz_top - gw * 1.4, w * 0.88 + gw, mrz_top - gw * 0.12),
               photo=portrait)
    opt = identity["personal_number"] if rng.random() < 0.5 else ""
    mrz = td3_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                    identity["document_number"], identity["nationality"], identity["date_of_birth"],
                    identity["sex"], identity["expiry"], doc_code=doc_code,
                    optional=opt)
    if rng.random() < 0.8:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.5, 0.9)))
    mrz_box = draw_mrz_block(dr, mrz, (w * 0.05, mrz_top + h * 0.025, w * 0.95, h * 0.97))
    if style.specimen:
        draw_specimen(img, rng, style)
    return finish_document(img, rng, style), mrz, portrait_box, mrz_box


def facing_page(rng, w: int, h: int) -> np.ndarray:
    """The other page of the open booklet: visa page with stamps, observations text, or the inside cover."""
    kind = rng.random()
    if kind < 0.15:  # inside cover
        col = d.pick(rng, [(110, 20, 30), (20, 40, 90), (20, 70, 40), (25, 25, 25)])
        img = Image.new("RGB", (w, h), d.mix(col, (255, 255, 255), 0.7))
        dr = ImageDraw.Draw(img)
        d.guilloche(dr, rng, (0, 0, w, h), d.mix(col, (255, 255, 255), 0.5), n=30)
        return np.asarray(img)
    style_hue = rng.random()
    base = d.pastel(rng, style_hue)
    img = Image.fromarray(d.gradient(h, w, base, d.pastel(rng, style_hue + 0.1), rng.uniform(0, 6)))
    dr = ImageDraw.Draw(img)
    d.guilloche(dr, rng, (0, 0, w, h), d.darker(base, 0.85), n=int(rng.integers(10, 25)))
    d.rosette(dr, rng, (w / 2, h / 2), h * 0.4, d.darker(base, 0.88), n=10)
    fnt = d.font(d.FONT_DIR_DEJAVU + "DejaVuSans.ttf", int(h * 0.03))
    if kind < 0.6:
        dr.text((w * 0.42, h * 0.04), d.pick(rng, ["VISAS", "VISA", "VISAS / VISA", "OBSERVATIONS"]),
                font=d.font(d.FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf", int(h * 0.04)), fill=d.darker(base, 0.5))
        for _ in range(int(rng.integers(0, 5))):
            _stamp(img, rng)
    else:
        y = h * 0.1
        col = (40, 40, 60)
        for _ in range(int(rng.integers(4, 12))):
            words = " ".join(d.pick(rng, _WORDS) for _ in range(int(rng.integers(4, 10))))
            dr.text((w * 0.06, y), words.upper(), font=fnt, fill=col)
            y += h * 0.055
    dr.text((w * 0.92, h * 0.93), str(int(rng.integers(2, 40))), font=fnt, fill=(60, 60, 60))
    return np.asarray(img)


_WORDS = ["the", "holder", "of", "this", "passport", "is", "valid", "for", "all", "countries", "except", "where",
          "endorsed", "observations", "official", "no", "entry", "authority", "issued", "renewed", "until",
          "amendments", "page", "see"]


def _stamp(img: Image.Image, rng):
    w, h = img.size
    size = int(h * rng.uniform(0.2, 0.35))
    layer = Image.new("L", (size * 2, size), 0)
    ld = ImageDraw.Draw(layer)
    if rng.random() < 0.5:
        ld.rounded_rectangle([2, 2, size * 2 - 3, size - 3], radius=size // 8, outline=255, width=3)
    else:
        ld.ellipse([size // 2, 2, size * 3 // 2, size - 3], outline=255, width=3)
    f = d.font(d.FONT_DIR_DEJAVU + "DejaVuSans-Bold.ttf", max(8, size // 7))
    ld.text((size * 0.55, size * 0.3), d.pick(rng, ["ENTRY", "EXIT", "ARRIVED", "DEPARTED", "ADMITTED"]), font=f,
            fill=255)
    ld.text((size * 0.55, size * 0.55), f"{int(rng.integers(1, 29)):02d} {d.pick(rng, ['JAN', 'MAR', 'JUL', 'OCT'])}"
            f" {int(rng.integers(2015, 2026))}", font=f, fill=255)
    layer = layer.rotate(rng.uniform(-35, 35), expand=True)
    ink = Image.new("RGB", layer.size, d.pick(rng, [(40, 60, 160), (170, 40, 50), (90, 40, 120), (30, 110, 60)]))
    alpha = layer.point(lambda v: int(v * 0.75))
    img.paste(ink, (int(rng.uniform(0, w - layer.size[0] * 0.7)), int(rng.uniform(0, h - layer.size[1] * 0.7))),
              alpha)


def render_td3_open(rng, identity: dict, portrait=None) -> RenderedDocument:
    page, mrz, portrait_box, mrz_box = _td3_page(rng, identity, portrait)
    w, h = TD3_SIZE
    layout = rng.random()
    extras = {"booklet": "page_only"}
    if layout < 0.5:  # the data page alone
        img, off = page, (0, 0)
    else:
        facing = facing_page(rng, w, h)
        if layout < 0.85:  # facing page above, fold between (common European layout)
            img = np.concatenate([facing, page], 0)
            off = (0, h)
            extras["booklet"] = "facing_above"
            fold_axis = 0
        else:
            img = np.concatenate([facing, page], 1)
            off = (w, 0)
            extras["booklet"] = "facing_left"
            fold_axis = 1
        img = fold_shadow(img, fold_axis, h if fold_axis == 0 else w, rng)
    ox, oy = off
    shift = lambda b: None if b is None else (b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy)  # noqa: E731
    return RenderedDocument(np.ascontiguousarray(img), label_fields(identity), mrz, "TD3", "open", "td3_passport",
                            shift(portrait_box), shift(mrz_box), identity["identity_id"],
                            page_box=(ox, oy, ox + w, oy + h), extras=extras)


def fold_shadow(img: np.ndarray, axis: int, at: int, rng) -> np.ndarray:
    """Darken a band around the booklet fold (only the band is touched)."""
    n = img.shape[axis]
    width = n * rng.uniform(0.015, 0.04)
    lo, hi = int(max(0, at - 3 * width)), int(min(n, at + 3 * width))
    pos = np.arange(lo, hi, dtype=np.float32)
    shade = 1 - rng.uniform(0.2, 0.45) * np.exp(-((pos - at) / width) ** 2)
    out = img.copy()
    if axis == 0:
        band = out[lo:hi]
        gain = np.repeat(shade[:, None], band.shape[1], 1)
        out[lo:hi] = cv2.multiply(band, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)
    else:
        band = np.ascontiguousarray(out[:, lo:hi])
        gain = np.repeat(shade[None, :], band.shape[0], 0)
        out[:, lo:hi] = cv2.multiply(band, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)
    return out


def render_td3_page(rng, identity: dict, portrait=None) -> RenderedDocument:
    """The passport data page alone (no facing page), as a tight crop or a laminated page is seen."""
    page, mrz, portrait_box, mrz_box = _td3_page(rng, identity, portrait)
    w, h = TD3_SIZE
    return RenderedDocument(np.ascontiguousarray(page), label_fields(identity), mrz, "TD3", "open", "td3_passport",
                            portrait_box, mrz_box, identity["identity_id"], page_box=(0, 0, w, h),
                            extras={"booklet": "data_page"})
