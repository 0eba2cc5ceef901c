"""MRV-A and MRV-B visa stickers."""

from __future__ import annotations

from dataclasses import field

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d
from docauth.synth.document_parts import (
    TD3_SIZE,
    RenderedDocument,
    Style,
    draw_mrz_block,
    draw_security_extras,
    draw_specimen,
    finish_document,
    fitted_portrait,
    formatted_date,
    plain_or_patterned,
)
from docauth.synth.identity import label_fields
from docauth.synth.mrz_compose import mrva_lines, mrvb_lines
from docauth.synth.passports import facing_page

MRVA_SIZE = (1000, 667)  # MRV-A sticker 120 x 80 mm

MRVB_SIZE = (1000, 705)  # MRV-B sticker 105 x 74 mm (the TD2 size)

# visa field labels: English, optionally with the issuer's language first
VISA_LABELS = {
    "en": ("VALID FOR", "FROM", "UNTIL", "TYPE OF VISA", "NUMBER OF ENTRIES", "DURATION OF STAY", "ISSUED IN", "ON",
           "PASSPORT NUMBER", "SURNAME, NAME", "REMARKS", "VISA"),
    "fr": ("VALABLE POUR", "DU", "AU", "TYPE DE VISA", "NOMBRE D'ENTRÉES", "DURÉE DU SÉJOUR", "DÉLIVRÉ À", "LE",
           "NUMÉRO DU PASSEPORT", "NOM, PRÉNOM", "REMARQUES", "VISA"),
    "de": ("GÜLTIG FÜR", "VOM", "BIS", "ART DES VISUMS", "ANZAHL DER EINREISEN", "DAUER DES AUFENTHALTS",
           "AUSGESTELLT IN", "AM", "NUMMER DES REISEPASSES", "NAME, VORNAME", "ANMERKUNGEN", "VISUM"),
    "es": ("VÁLIDO PARA", "DEL", "AL", "TIPO DE VISADO", "NÚMERO DE ENTRADAS", "DURACIÓN DE LA ESTANCIA",
           "EXPEDIDO EN", "EL", "NÚMERO DE PASAPORTE", "APELLIDOS, NOMBRE", "OBSERVACIONES", "VISADO"),
    "it": ("VALIDO PER", "DAL", "AL", "TIPO DI VISTO", "NUMERO DI INGRESSI", "DURATA DEL SOGGIORNO", "RILASCIATO A",
           "IL", "NUMERO DEL PASSAPORTO", "COGNOME, NOME", "ANNOTAZIONI", "VISTO"),
}

VISA_VALID_FOR = ("SCHENGEN STATES", "ÉTATS SCHENGEN", "SCHENGENER STAATEN", "ESTADOS SCHENGEN")


def render_mrv_visa(rng, identity: dict, portrait=None) -> RenderedDocument:
    """A visa sticker, MRV-A (120 x 80 mm, 2 x 44 MRZ) or MRV-B (105 x 74 mm, 2 x 36): side ``front``.

    40 % are shown stuck on a passport visa page (``extras["placement"] = "on_page"``): ``page_box`` is the
    sticker, the rest of the image is the page. The MRZ document number is the visa number or the holder's
    passport number (issuers choose, ICAO 9303-7); ``fields["document_number"]`` is the one in the MRZ.
    """
    mrv_b = rng.random() < 0.5
    w, h = MRVB_SIZE if mrv_b else MRVA_SIZE
    style = Style(rng, identity["issuing_state"])
    img = plain_or_patterned(rng, style, w, h, plain_p=0.2)
    dr = ImageDraw.Draw(img)
    code, en_name, local_name, adjective = style.country
    lang = d.pick(rng, [lg for lg in VISA_LABELS if lg != "en"]) if rng.random() < 0.6 else None

    def label(i: int) -> str:
        return f"{VISA_LABELS[lang][i]} / {VISA_LABELS['en'][i]}" if lang else VISA_LABELS["en"][i]

    mrz_top = h * rng.uniform(0.76, 0.8)
    # header: the word VISA, the issuer, and the visa number in red
    visa_word = VISA_LABELS[lang][11] if lang else "VISA"
    big = d.font(style.bold, int(h * rng.uniform(0.07, 0.1)))
    word_left = rng.random() < 0.5
    dr.text((w * (0.3 if word_left else 0.72), h * 0.025), visa_word, font=big, fill=style.accent)
    issuer = local_name if (local_name and rng.random() < 0.5) else en_name
    dr.text((w * 0.04, h * 0.03), issuer, font=d.fit_font(style.bold, issuer, w * 0.24, int(h * 0.05)),
            fill=style.accent)
    other_number = d.pick(rng, "ABCDFLMRVX") + "".join(str(int(v)) for v in rng.integers(0, 10, 8))
    if rng.random() < 0.5:  # the MRZ carries the visa number (printed top right) ...
        visa_number, passport_number = identity["document_number"], other_number
    else:  # ... or the holder's passport number
        visa_number, passport_number = other_number, identity["document_number"]
    nf = d.font(style.bold, int(h * 0.05))
    dr.text((w * 0.96 - nf.getlength(visa_number), h * 0.12 if not word_left else h * 0.035), visa_number, font=nf,
            fill=(190, 30, 40) if rng.random() < 0.7 else style.value_color)
    # portrait (or, on older stickers, a kinegram emblem where the photo would be)
    with_photo = rng.random() < 0.85
    ph_h = int(h * rng.uniform(0.48, 0.58))
    ph_w = int(ph_h * 0.78)
    px, py = int(w * 0.03), int(h * 0.16)
    portrait_box = None
    if with_photo:
        pimg = fitted_portrait(identity, portrait, ph_w, ph_h)
        if rng.random() < 0.2:
            pimg = np.stack([cv2.cvtColor(pimg, cv2.COLOR_RGB2GRAY)] * 3, -1)
        img.paste(Image.fromarray(pimg), (px, py))
        portrait_box = (px, py, px + ph_w, py + ph_h)
    else:
        d.rosette(dr, rng, (px + ph_w / 2, py + ph_h / 2), ph_w * 0.5, d.darker(style.line, 0.7), n=14)
        d.emblem(dr, rng, (px + ph_w / 2, py + ph_h / 2), ph_w * 0.22, style.accent)
    # fields: a grid of small labels with values
    fx = px + ph_w + w * 0.035
    fw = w * 0.965 - fx
    ls, vs = int(h * rng.uniform(0.022, 0.027)), int(h * rng.uniform(0.036, 0.044))

    def field(x, y, i, value, width):
        text = label(i)
        dr.text((x, y), text, font=d.fit_font(style.regular, text, width, ls, min_size=6), fill=style.label_color)
        dr.text((x, y + ls * 1.15), value, font=d.fit_font(style.value_font, value, width, vs),
                fill=style.value_color)
        return y + ls * 1.15 + vs * 1.3

    y = h * 0.16
    y = field(fx, y, 0, d.pick(rng, VISA_VALID_FOR + (en_name,)), fw)
    field(fx, y, 1, formatted_date(identity, "date_of_issue", style), fw * 0.48)
    y = field(fx + fw * 0.5, y, 2, formatted_date(identity, "expiry", style), fw * 0.5)  # the MRZ expiry
    field(fx, y, 3, d.pick(rng, ["C", "D", "A", "B-1/B-2", "F-1", "TRANSIT", "WORK"]), fw * 0.3)
    field(fx + fw * 0.33, y, 4, d.pick(rng, ["MULT", "01", "02", "M", "1"]), fw * 0.3)
    y = field(fx + fw * 0.66, y, 5, str(int(rng.integers(5, 181))), fw * 0.34)
    field(fx, y, 6, identity["place_of_birth"], fw * 0.48)
    y = field(fx + fw * 0.5, y, 7, formatted_date(identity, "date_of_issue", style), fw * 0.5)
    full_name = f"{identity['surname']}, {identity['given_names']}" if rng.random() < 0.6 else \
        f"{identity['surname']} {identity['given_names']}"
    full_name = d.printable(style.value_font, full_name)
    if y + (ls + vs) * 1.3 < mrz_top:
        field(fx, y, 8, passport_number, fw * 0.48)
        y = field(fx + fw * 0.5, y, 10, d.pick(rng, ["", "EMPLOYMENT", "STUDIES", "TOURISM"]), fw * 0.5)
    if y + (ls + vs) * 1.3 < mrz_top:
        field(fx, y, 9, full_name, fw)
    else:  # no room: the name sits just above the MRZ, across the sticker
        nf2 = d.fit_font(style.value_font, full_name, w * 0.9, vs)
        dr.text((w * 0.05, mrz_top - vs * 1.25), full_name, font=nf2, fill=style.value_color)
    if rng.random() < 0.5:  # the consular officer's signature / stamp
        d.signature(dr, rng, (w * 0.7, mrz_top - h * 0.12, w * 0.95, mrz_top - h * 0.02))
    draw_security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    doc_code = d.pick(rng, ["V<", "VC", "VD", "VN", "VI", "VB"])
    compose = mrvb_lines if mrv_b else mrva_lines
    optional = "" if rng.random() < 0.5 else "".join(d.pick(rng, "ABCDEFGHJKLMNPRSTUVWXYZ0123456789")
                                                    for _ in range(int(rng.integers(4, 9))))
    mrz = compose(identity["issuing_state"], identity["surname"], identity["given_names"],
                  identity["document_number"], identity["nationality"], identity["date_of_birth"],
                  identity["sex"], identity["expiry"], doc_code=doc_code, optional=optional)
    if rng.random() < 0.8:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.6, 0.95)))
    mrz_box = draw_mrz_block(dr, mrz, (w * 0.04, mrz_top + h * 0.03, w * 0.96, h * 0.96))
    if style.specimen:
        draw_specimen(img, rng, style)
    if rng.random() < 0.5:  # thin frame line, as on printed stickers
        dr.rounded_rectangle([3, 3, w - 4, h - 4], radius=int(h * 0.03), outline=d.darker(style.line, 0.5), width=3)
    sticker = finish_document(img, rng, style)
    mask = d.rounded_mask(h, w, int(h * 0.03))
    extras = {"layout": "mrv_b" if mrv_b else "mrv_a", "placement": "sticker"}
    if rng.random() < 0.4:  # stuck on a passport visa page, which shows around it
        page_w, page_h = TD3_SIZE
        page = facing_page(rng, page_w, page_h).copy()
        scale = (105 if mrv_b else 120) / 125 * page_w / w  # sticker mm -> page pixels (the page is 125 mm wide)
        sw, sh = int(w * scale), int(h * scale)
        ox = int(rng.uniform(0.01, 0.99) * (page_w - sw))
        oy = int(rng.uniform(0.02, 0.98) * (page_h - sh))
        small = cv2.resize(sticker, (sw, sh), interpolation=cv2.INTER_AREA)
        a = cv2.resize(mask, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)[..., None] / 255.0
        roi = page[oy:oy + sh, ox:ox + sw].astype(np.float32)
        page[oy:oy + sh, ox:ox + sw] = (small * a + roi * (1 - a)).astype(np.uint8)

        def shift(b):
            return None if b is None else (int(b[0] * scale) + ox, int(b[1] * scale) + oy,
                                           int(b[2] * scale) + ox, int(b[3] * scale) + oy)

        extras["placement"] = "on_page"
        return RenderedDocument(page, label_fields(identity), mrz, "MRVB" if mrv_b else "MRVA", "front", "visa",
                                shift(portrait_box), shift(mrz_box), identity["identity_id"],
                                page_box=(ox, oy, ox + sw, oy + sh), extras=extras)
    return RenderedDocument(sticker, label_fields(identity), mrz, "MRVB" if mrv_b else "MRVA", "front", "visa",
                            portrait_box, mrz_box, identity["identity_id"], page_box=(0, 0, w, h), mask=mask,
                            extras=extras)
