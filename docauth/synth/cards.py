"""Identity cards: TD1 (front, back, both on one sheet) and TD2 fronts."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d
from docauth.synth.document_parts import (
    LABELS,
    TD1_SIZE,
    TD2_SIZE,
    RenderedDocument,
    Style,
    draw_background,
    draw_field,
    draw_fingerprint,
    draw_ghost,
    draw_mrz_block,
    draw_security_extras,
    draw_specimen,
    finish_document,
    fitted_portrait,
    formatted_date,
    plain_or_patterned,
)
from docauth.synth.identity import country as country_info, label_fields
from docauth.synth.mrz_compose import td1_lines, td2_lines

def render_td1_front(rng, identity: dict, portrait=None, allow_mrz: bool = True) -> RenderedDocument:
    w, h = TD1_SIZE
    style = Style(rng, identity["issuing_state"])
    img = draw_background(rng, style, w, h)
    dr = ImageDraw.Draw(img)
    code, en_name, local_name, adjective = style.country
    with_mrz = rng.random() < 0.25 and allow_mrz
    top_h = h * (0.62 if with_mrz else 1.0)
    # header
    header_band = rng.random() < 0.35
    hy = h * 0.035
    if header_band:
        dr.rectangle([0, 0, w, h * 0.15], fill=style.accent)
    hcol = (255, 255, 255) if header_band else style.accent
    name = local_name if (local_name and rng.random() < 0.6) else en_name
    title = name + (" / " + en_name if name != en_name and rng.random() < 0.4 else "")
    number_on_top = rng.random() < 0.4
    emblem_on_top = rng.random() < 0.15
    title_room = w * (0.64 if number_on_top else 0.84 if emblem_on_top else 0.9)
    f1 = d.fit_font(style.bold, title, title_room, int(h * 0.055))
    dr.text((w * 0.04, hy), title, font=f1, fill=hcol)
    card_title = style.label("card") + (" / " + LABELS[style.lang2]["card"] if style.lang2 else "")
    f2 = d.fit_font(style.regular, card_title, w * 0.75, int(h * 0.038))
    dr.text((w * 0.04, hy + h * 0.065), card_title, font=f2, fill=hcol)
    # portrait
    photo_left = rng.random() < 0.75
    ph_h = int(top_h * rng.uniform(0.5, 0.62)) if with_mrz else int(h * rng.uniform(0.52, 0.62))
    ph_w = int(ph_h * 0.78)
    px = int(w * 0.04) if photo_left else int(w * 0.96 - ph_w)
    py = int(h * 0.2)
    pimg = fitted_portrait(identity, portrait, ph_w, ph_h)
    if rng.random() < 0.3:  # laser-engraved greyscale photo
        g = cv2.cvtColor(pimg, cv2.COLOR_RGB2GRAY)
        pimg = np.stack([g] * 3, -1)
    img.paste(Image.fromarray(pimg), (px, py))
    portrait_box = (px, py, px + ph_w, py + ph_h)
    # fields column
    fx = px + ph_w + w * 0.04 if photo_left else w * 0.04
    fw = (w * 0.96 - fx) if photo_left else (px - w * 0.04 - fx)
    ls, vs = int(h * rng.uniform(0.024, 0.03)), int(h * rng.uniform(0.04, 0.05))
    if with_mrz:
        ls, vs = int(ls * 0.85), int(vs * 0.8)
    y = h * 0.19
    y = draw_field(dr, style, fx, y, "surname", identity["surname"], ls, vs, fw)
    y = draw_field(dr, style, fx, y, "given", identity["given_names"], ls, vs, fw)
    nat_text = identity["nationality"] if rng.random() < 0.6 else country_info(identity["nationality"])[3]
    draw_field(dr, style, fx, y, "sex", identity["sex"], ls, vs, fw * 0.3)
    y = draw_field(dr, style, fx + fw * 0.35, y, "nat", nat_text, ls, vs, fw * 0.65)
    draw_field(dr, style, fx, y, "dob", formatted_date(identity, "date_of_birth", style), ls, vs, fw * 0.5)
    y = draw_field(dr, style, fx + fw * 0.52, y, "docno", identity["document_number"], ls, vs, fw * 0.48)
    if y < top_h - vs * 2.2:
        y = draw_field(dr, style, fx, y, "exp", formatted_date(identity, "expiry", style), ls, vs, fw * 0.5)
    else:  # no room: expiry beside the photo bottom
        draw_field(dr, style, fx + fw * 0.52, y - vs * 2.6 - ls, "exp", formatted_date(identity, "expiry", style), ls, vs,
               fw * 0.48)
    fields_bottom = y
    # signature, and a card access number in the corner
    if not with_mrz:
        with_can = rng.random() < 0.5
        sx0 = fx + fw * rng.uniform(0.35, 0.55)
        sx1 = min(w * (0.8 if with_can else 0.96), sx0 + w * 0.3)
        sy0 = h * 0.84
        if sy0 > y and sx1 - sx0 > w * 0.1:
            dr.text((sx0, sy0 - ls * 1.3), style.label("sig"), font=d.font(style.regular, int(ls * 0.8)),
                    fill=style.label_color)
            d.signature(dr, rng, (sx0, sy0, sx1, h * 0.97))
        if with_can:
            can = "".join(str(int(v)) for v in rng.integers(0, 10, 6))
            dr.text((w * 0.83, h * 0.88), can, font=d.font(style.bold, int(h * 0.05)), fill=style.value_color)
    if number_on_top:
        nf = d.fit_font(style.bold, identity["document_number"], w * 0.26, int(h * 0.045))
        corner = (w * 0.96 - nf.getlength(identity["document_number"]), h * 0.04)
        dr.text(corner, identity["document_number"],
                font=nf, fill=hcol if header_band else (170, 40, 40) if rng.random() < 0.5 else style.value_color)
        style.value_boxes.append(("docno", identity["document_number"],
                                  *dr.textbbox(corner, identity["document_number"], font=nf)))
    elif emblem_on_top:
        d.emblem(dr, rng, (w * 0.92, h * 0.08), h * 0.05, hcol)
    draw_security_extras(img, rng, style, avoid_bottom=top_h / h)
    gw, gh = int(w * 0.08), int(h * 0.16)
    gy = max(fields_bottom + h * 0.02, h * 0.6)
    if rng.random() < 0.35 and not with_mrz and photo_left and gy + gh < h * 0.86:
        draw_ghost(img, identity, style, (w * 0.94 - gw, gy, w * 0.94, gy + gh), photo=portrait)
    mrz = mrz_box = mrz_type = None
    if with_mrz:
        mrz, mrz_type = _td1_mrz(identity, rng), "TD1"
        dr.rectangle([0, top_h, w, h], fill=d.mix(style.base, (255, 255, 255), 0.6))
        mrz_box = draw_mrz_block(dr, mrz, (w * 0.055, top_h + h * 0.04, w * 0.055 + w * 0.89, h * 0.96))
    if style.specimen:
        draw_specimen(img, rng, style)
    arr = finish_document(img, rng, style)
    return RenderedDocument(arr, label_fields(identity), mrz, mrz_type, "front", "td1_card", portrait_box, mrz_box,
                            identity["identity_id"], page_box=(0, 0, w, h), mask=d.rounded_mask(h, w, int(h * 0.06)),
                            extras={"mrz_on_front": with_mrz, "value_boxes": style.value_boxes})


def _td1_mrz(identity, rng) -> list[str]:
    doc_code = d.pick(rng, ["ID", "I<", "IR", "AR", "IP"])
    opt = identity["personal_number"][:15] if rng.random() < 0.5 else ""
    return td1_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                     identity["document_number"], identity["nationality"], identity["date_of_birth"],
                     identity["sex"], identity["expiry"], doc_code=doc_code, optional1=opt)


def render_td1_back(rng, identity: dict, portrait=None) -> RenderedDocument:
    w, h = TD1_SIZE
    style = Style(rng, identity["issuing_state"])
    img = draw_background(rng, style, w, h)
    dr = ImageDraw.Draw(img)
    mrz_top = h * rng.uniform(0.6, 0.66)
    ls, vs = int(h * 0.026), int(h * 0.042)
    # chip, codes, ghost image
    chip_left = rng.random() < 0.6
    if rng.random() < 0.8:
        cw, chh = w * 0.12, h * 0.15
        cx = w * 0.05 if chip_left else w * 0.8
        d.chip(dr, rng, (cx, h * 0.2, cx + cw, h * 0.2 + chh))
    fx = w * (0.22 if chip_left else 0.05)
    y = h * 0.06
    y = draw_field(dr, style, fx, y, "addr", identity["address"], ls, vs, w * 0.55)
    dr.text((fx, y - vs * 0.2), identity["city"], font=d.fit_font(style.bold, identity["city"], w * 0.5, vs),
            fill=style.value_color)
    y += vs * 1.3
    draw_field(dr, style, fx, y, "pob", identity["place_of_birth"], ls, vs, w * 0.3)
    y = draw_field(dr, style, fx + w * 0.32, y, "height", identity["height"], ls, vs, w * 0.2)
    draw_field(dr, style, fx, y, "issue", formatted_date(identity, "date_of_issue", style), ls, vs, w * 0.3)
    y = draw_field(dr, style, fx + w * 0.32, y, "auth", d.pick(rng, ["MUNICIPALITY", "POLICE", "MINISTRY OF INTERIOR",
                                                                "CITY HALL", identity["place_of_birth"]]),
               ls, vs, w * 0.35)
    # right-hand column: ghost portrait or fingerprint on top, a 2D code lower down; or a barcode strip
    right_free = True  # the chip sits left, or right but above the code
    if rng.random() < 0.35 and chip_left:  # small ghost portrait
        draw_ghost(img, identity, style, (w * 0.86, h * 0.05, w * 0.95, h * 0.23), photo=portrait)
    elif chip_left and rng.random() < 0.3:
        draw_fingerprint(dr, rng, (w * 0.8, h * 0.05, w * 0.97, h * 0.4), d.darker(style.line, 0.6))
        right_free = False
    code_kind = rng.random()
    if code_kind < 0.4 or not right_free and code_kind < 0.75:
        d.barcode(dr, rng, (w * 0.22, mrz_top - h * 0.1, w * 0.7, mrz_top - h * 0.03))
    elif code_kind < 0.75:
        s = h * 0.22
        d.matrix_code(dr, rng, (w * 0.8, mrz_top - s - h * 0.04, w * 0.8 + s, mrz_top - h * 0.04))
    draw_security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    mrz = _td1_mrz(identity, rng)
    band = rng.random() < 0.7
    if band:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.5, 0.9)))
    mrz_box = draw_mrz_block(dr, mrz, (w * 0.055, mrz_top + h * 0.03, w * 0.945, h * 0.965))
    if style.specimen:
        draw_specimen(img, rng, style)
    arr = finish_document(img, rng, style)
    return RenderedDocument(arr, label_fields(identity), mrz, "TD1", "back", "td1_card", None, mrz_box,
                            identity["identity_id"], page_box=(0, 0, w, h), mask=d.rounded_mask(h, w, int(h * 0.06)),
                            extras={"value_boxes": style.value_boxes})


def render_td1_both(rng, identity: dict, portrait=None) -> RenderedDocument:
    """Front and back of one card on a sheet (a photocopy / scan of both sides, as specimens often show).

    ``page_box`` is the front card, ``extras["back_box"]`` the back card; the MRZ comes from the back.
    """
    front = render_td1_front(rng, identity, portrait, allow_mrz=False)  # one MRZ per card: on the back
    back = render_td1_back(rng, identity, portrait)
    ch, cw = front.image.shape[:2]
    gap = int(ch * rng.uniform(0.03, 0.12))
    margin = int(ch * rng.uniform(0.03, 0.1))
    stacked = rng.random() < 0.7
    if stacked:
        size = (cw + 2 * margin, 2 * ch + gap + 2 * margin)
        fpos, bpos = (margin, margin), (margin, margin + ch + gap)
    else:
        size = (2 * cw + gap + 2 * margin, ch + 2 * margin)
        fpos, bpos = (margin, margin), (margin + cw + gap, margin)
    if rng.random() < 0.5:
        fpos, bpos = (fpos, bpos) if rng.random() < 0.8 else (bpos, fpos)
    paper = tuple(int(v) for v in rng.uniform(235, 256, 3))
    sheet = Image.new("RGB", size, paper)
    sheet.paste(Image.fromarray(front.image), fpos, Image.fromarray(front.mask))
    sheet.paste(Image.fromarray(back.image), bpos, Image.fromarray(back.mask))
    if rng.random() < 0.5:  # thin card outlines, as photocopies show them
        dr = ImageDraw.Draw(sheet)
        for (x, y) in (fpos, bpos):
            dr.rounded_rectangle([x, y, x + cw - 1, y + ch - 1], radius=int(ch * 0.06), outline=(120, 120, 120))

    def shift(b, pos):
        return None if b is None else (b[0] + pos[0], b[1] + pos[1], b[2] + pos[0], b[3] + pos[1])

    return RenderedDocument(np.asarray(sheet).copy(), front.fields, back.mrz, back.mrz_type, "both", "td1_card",
                            shift(front.portrait_box, fpos), shift(back.mrz_box, bpos), front.identity,
                            page_box=shift((0, 0, cw, ch), fpos),
                            extras={"back_box": shift((0, 0, cw, ch), bpos),
                                    "layout": "stacked" if stacked else "side_by_side"})


TD2_TITLES = ("IDENTITY CARD", "RESIDENCE PERMIT", "OFFICIAL TRAVEL DOCUMENT", "TRAVEL DOCUMENT", "CREW MEMBER",
              "PERMANENT RESIDENT CARD")


def render_td2_front(rng, identity: dict, portrait=None) -> RenderedDocument:
    """TD2 card (105 x 74 mm) front: header, portrait, VIZ fields, and the 2 x 36 MRZ at the bottom."""
    w, h = TD2_SIZE
    style = Style(rng, identity["issuing_state"])
    img = plain_or_patterned(rng, style, w, h, plain_p=0.3)
    dr = ImageDraw.Draw(img)
    code, en_name, local_name, adjective = style.country
    mrz_top = h * rng.uniform(0.74, 0.78)
    name = local_name if (local_name and rng.random() < 0.5) else en_name
    title = d.pick(rng, TD2_TITLES)
    f1 = d.fit_font(style.bold, name, w * 0.45, int(h * 0.06))
    dr.text((w * 0.05, h * 0.05), name, font=f1, fill=style.accent)
    f2 = d.fit_font(style.regular, title, w * 0.45, int(h * 0.045))
    dr.text((w * 0.5, h * 0.04), title, font=f2, fill=style.accent)
    photo_left = rng.random() < 0.85
    ph_h = int(h * rng.uniform(0.46, 0.55))
    ph_w = int(ph_h * 0.78)
    px = int(w * 0.04) if photo_left else int(w * 0.96 - ph_w)
    py = int(h * 0.17)
    pimg = fitted_portrait(identity, portrait, ph_w, ph_h)
    if rng.random() < 0.25:  # laser-engraved greyscale photo
        pimg = np.stack([cv2.cvtColor(pimg, cv2.COLOR_RGB2GRAY)] * 3, -1)
    img.paste(Image.fromarray(pimg), (px, py))
    portrait_box = (px, py, px + ph_w, py + ph_h)
    fx = px + ph_w + w * 0.04 if photo_left else w * 0.05
    fw = (w * 0.96 - fx) if photo_left else (px - w * 0.04 - fx)
    ls, vs = int(h * rng.uniform(0.025, 0.03)), int(h * rng.uniform(0.038, 0.046))
    y = h * 0.15
    draw_field(dr, style, fx, y, "surname", identity["surname"], ls, vs, fw * 0.48)
    y = draw_field(dr, style, fx + fw * 0.5, y, "given", identity["given_names"], ls, vs, fw * 0.5)
    nat_text = identity["nationality"] if rng.random() < 0.6 else country_info(identity["nationality"])[3]
    draw_field(dr, style, fx, y, "nat", nat_text, ls, vs, fw * 0.48)
    y = draw_field(dr, style, fx + fw * 0.5, y, "dob", formatted_date(identity, "date_of_birth", style), ls, vs, fw * 0.5)
    draw_field(dr, style, fx, y, "sex", identity["sex"], ls, vs, fw * 0.2)
    y = draw_field(dr, style, fx + fw * 0.5, y, "exp", formatted_date(identity, "expiry", style), ls, vs, fw * 0.5)
    y = draw_field(dr, style, fx, y, "docno", identity["document_number"], ls, vs, fw * 0.6)
    if y + vs * 1.5 < mrz_top:
        d.signature(dr, rng, (fx, y, fx + fw * 0.55, min(mrz_top - 6, y + vs * 2)))
    if rng.random() < 0.35:
        draw_fingerprint(dr, rng, (w * 0.8, y - vs * 2.5, w * 0.94, mrz_top - 8), d.darker(style.line, 0.55))
    elif rng.random() < 0.4 and photo_left:
        gw = int(w * 0.08)
        draw_ghost(img, identity, style, (w * 0.86, mrz_top - gw * 1.45, w * 0.86 + gw, mrz_top - gw * 0.2),
               photo=portrait)
    draw_security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    mrz = td2_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                    identity["document_number"], identity["nationality"], identity["date_of_birth"],
                    identity["sex"], identity["expiry"], doc_code=d.pick(rng, ["I<", "ID", "IR", "AC", "IP"]))
    if rng.random() < 0.7:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.5, 0.9)))
    mrz_box = draw_mrz_block(dr, mrz, (w * 0.05, mrz_top + h * 0.03, w * 0.95, h * 0.96))
    if style.specimen:
        draw_specimen(img, rng, style)
    return RenderedDocument(finish_document(img, rng, style), label_fields(identity), mrz, "TD2", "front", "td2_card",
                            portrait_box, mrz_box, identity["identity_id"], page_box=(0, 0, w, h),
                            mask=d.rounded_mask(h, w, int(h * 0.05)))
