"""Flat, upright renderings of TD1 ID cards (front/back, both on a sheet), TD2 cards, TD3 passport data pages
(opened booklet or the page alone) and MRV-A/MRV-B visa stickers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d
from docauth.synth.identity import DATE_STYLES, format_date, label_fields, random_identity
from docauth.synth.identity import country as country_info
from docauth.synth.mrz_compose import mrva_lines, mrvb_lines, td1_lines, td2_lines, td3_lines
from docauth.synth.portrait import fit_photo, portrait_image

DOCUMENT_KINDS = ("td1_front", "td1_back", "td3_open")
EXTRA_KINDS = ("td1_both", "td2_front", "mrv_visa", "td3_page")  # added later; td1_both: front + back on a sheet
TD1_SIZE = (1012, 638)  # 85.6 x 54 mm at ~11.8 px/mm
TD3_SIZE = (1000, 704)  # 125 x 88 mm at 8 px/mm

# field label translations: (key -> text) per language
LABELS = {
    "en": {"surname": "Surname", "given": "Given names", "nat": "Nationality", "sex": "Sex", "dob": "Date of birth",
           "docno": "Document no.", "exp": "Date of expiry", "issue": "Date of issue", "pob": "Place of birth",
           "addr": "Address", "auth": "Authority", "height": "Height", "sig": "Holder's signature",
           "card": "IDENTITY CARD", "passport": "PASSPORT", "type": "Type", "code": "Code", "ppno": "Passport No.",
           "pers": "Personal No."},
    "fr": {"surname": "Nom", "given": "Prénoms", "nat": "Nationalité", "sex": "Sexe", "dob": "Date de naissance",
           "docno": "N° du document", "exp": "Date d'expiration", "issue": "Date de délivrance",
           "pob": "Lieu de naissance", "addr": "Adresse", "auth": "Autorité", "height": "Taille",
           "sig": "Signature du titulaire", "card": "CARTE D'IDENTITÉ", "passport": "PASSEPORT", "type": "Type",
           "code": "Code", "ppno": "N° du passeport", "pers": "N° personnel"},
    "de": {"surname": "Name", "given": "Vornamen", "nat": "Staatsangehörigkeit", "sex": "Geschlecht",
           "dob": "Geburtsdatum", "docno": "Ausweisnummer", "exp": "Gültig bis", "issue": "Ausstellungsdatum",
           "pob": "Geburtsort", "addr": "Anschrift", "auth": "Behörde", "height": "Größe",
           "sig": "Unterschrift", "card": "PERSONALAUSWEIS", "passport": "REISEPASS", "type": "Typ",
           "code": "Kode", "ppno": "Pass-Nr.", "pers": "Pers.-Nr."},
    "es": {"surname": "Apellidos", "given": "Nombre", "nat": "Nacionalidad", "sex": "Sexo",
           "dob": "Fecha de nacimiento", "docno": "Núm. soporte", "exp": "Válido hasta", "issue": "Expedición",
           "pob": "Lugar de nacimiento", "addr": "Domicilio", "auth": "Autoridad", "height": "Estatura",
           "sig": "Firma del titular", "card": "DOCUMENTO NACIONAL DE IDENTIDAD", "passport": "PASAPORTE",
           "type": "Tipo", "code": "Código", "ppno": "N° de pasaporte", "pers": "N° personal"},
    "it": {"surname": "Cognome", "given": "Nome", "nat": "Cittadinanza", "sex": "Sesso", "dob": "Data di nascita",
           "docno": "N. documento", "exp": "Scadenza", "issue": "Emissione", "pob": "Luogo di nascita",
           "addr": "Indirizzo", "auth": "Autorità", "height": "Statura", "sig": "Firma del titolare",
           "card": "CARTA D'IDENTITÀ", "passport": "PASSAPORTO", "type": "Tipo", "code": "Codice",
           "ppno": "Passaporto N.", "pers": "Cod. pers."},
    "nl": {"surname": "Naam", "given": "Voornamen", "nat": "Nationaliteit", "sex": "Geslacht",
           "dob": "Geboortedatum", "docno": "Documentnummer", "exp": "Geldig tot", "issue": "Datum van afgifte",
           "pob": "Geboorteplaats", "addr": "Adres", "auth": "Instantie", "height": "Lengte",
           "sig": "Handtekening", "card": "IDENTITEITSKAART", "passport": "PASPOORT", "type": "Soort",
           "code": "Code", "ppno": "Paspoortnr.", "pers": "Persoonsnr."},
}
LABELS["cyr"] = {"surname": "Презиме", "given": "Име", "nat": "Држављанство", "sex": "Пол",
                 "dob": "Датум рођења", "docno": "Број документа", "exp": "Важи до", "issue": "Датум издавања",
                 "pob": "Место рођења", "addr": "Пребивалиште", "auth": "Издао", "height": "Висина",
                 "sig": "Потпис", "card": "ЛИЧНА КАРТА", "passport": "ПАСОШ", "type": "Тип", "code": "Код",
                 "ppno": "Број пасоша", "pers": "ЈМБГ"}
LABELS["el"] = {"surname": "Επώνυμο", "given": "Όνομα", "nat": "Ιθαγένεια", "sex": "Φύλο",
                "dob": "Ημερομηνία γέννησης", "docno": "Αριθμός", "exp": "Λήξη", "issue": "Έκδοση",
                "pob": "Τόπος γέννησης", "addr": "Διεύθυνση", "auth": "Αρχή", "height": "Ύψος",
                "sig": "Υπογραφή", "card": "ΔΕΛΤΙΟ ΤΑΥΤΟΤΗΤΑΣ", "passport": "ΔΙΑΒΑΤΗΡΙΟ", "type": "Τύπος",
                "code": "Κωδικός", "ppno": "Αρ. διαβατηρίου", "pers": "Προσ. αριθμός"}
SECOND_LANGS = ("fr", "de", "es", "it", "nl")
# issuers whose second language is not Latin-script (DejaVu draws Cyrillic and Greek)
LOCAL_SCRIPT = {"SRB": "cyr", "UKR": "cyr", "BGR": "cyr", "GRC": "el"}


@dataclass
class RenderedDocument:
    image: np.ndarray  # flat, upright RGB uint8
    fields: dict
    mrz: list[str] | None
    mrz_type: str | None
    side: str  # front | back | open
    kind: str  # td1_card | td3_passport
    portrait_box: tuple | None
    mrz_box: tuple | None
    identity: str | None
    page_box: tuple = None  # the data page / card inside ``image`` (x0, y0, x1, y1); the booklet may show more
    mask: np.ndarray | None = None  # uint8 alpha: 0 outside rounded card corners
    extras: dict = field(default_factory=dict)


class _Style:
    """Per-document design choices, all drawn from the document's rng."""

    def __init__(self, rng: np.random.Generator, country: str):
        self.hue = rng.random()
        self.base = d.pastel(rng, self.hue)
        self.base2 = d.pastel(rng, self.hue + rng.uniform(-0.25, 0.25))
        if rng.random() < 0.15:  # some issuers print on stronger colours
            self.base = d.hsv(self.hue, rng.uniform(0.25, 0.45), rng.uniform(0.8, 0.95))
        self.line = d.darker(d.pastel(rng, self.hue + rng.uniform(-0.1, 0.1)), rng.uniform(0.72, 0.88))
        self.accent = d.hsv(self.hue + rng.uniform(-0.08, 0.08), rng.uniform(0.5, 0.9), rng.uniform(0.3, 0.6))
        self.label_color = d.pick(rng, [self.accent, (70, 70, 80), (40, 60, 110), (110, 50, 50)])
        self.value_color = d.pick(rng, [(15, 15, 20), (30, 30, 35), (10, 20, 50)])
        self.regular, self.bold = d.pick(rng, d.VIZ_FAMILIES)
        self.lang2 = d.pick(rng, SECOND_LANGS) if rng.random() < 0.75 else None
        if country in LOCAL_SCRIPT and rng.random() < 0.8:
            self.lang2 = LOCAL_SCRIPT[country]
        self.date_style = d.pick(rng, DATE_STYLES)
        self.upper_labels = rng.random() < 0.3
        self.value_font = self.bold if rng.random() < 0.7 else self.regular
        self.country = country_info(country)
        self.specimen = rng.random() < 0.15
        # (field key, printed value, text box x0, y0, x1, y1) of every value drawn: where the printed-field
        # recogniser's training crops are (no random draw, so the documents are as before)
        self.value_boxes: list = []

    def label(self, key: str) -> str:
        text = LABELS["en"][key]
        if self.lang2:
            text = f"{LABELS[self.lang2][key]} / {text}" if key not in ("card", "passport") else text
        return text.upper() if self.upper_labels else text


def _background(rng, style: _Style, w: int, h: int) -> Image.Image:
    img = Image.fromarray(d.gradient(h, w, style.base, style.base2, rng.uniform(0, 6.3)))
    dr = ImageDraw.Draw(img)
    d.guilloche(dr, rng, (0, 0, w, h), style.line, n=int(rng.integers(8, 22)))
    if rng.random() < 0.8:
        d.rosette(dr, rng, (rng.uniform(0.3, 0.8) * w, rng.uniform(0.3, 0.7) * h), rng.uniform(0.15, 0.35) * w,
                  d.mix(style.line, style.base, 0.3), n=int(rng.integers(6, 14)))
    if rng.random() < 0.6:
        d.emblem(dr, rng, (rng.uniform(0.55, 0.85) * w, rng.uniform(0.35, 0.65) * h), rng.uniform(0.1, 0.2) * h,
                 d.mix(style.line, style.base, 0.5))
    return img


def _security_extras(img: Image.Image, rng, style: _Style, avoid_bottom: float = 1.0):
    """Microtext bands, a flag-like stripe, a ghost emblem: the small print of real security documents."""
    w, h = img.size
    dr = ImageDraw.Draw(img)
    for _ in range(int(rng.integers(0, 3))):
        y = rng.uniform(0.12, avoid_bottom - 0.04) * h
        d.microtext_band(dr, rng, y, 0, w, style.country[1], d.mix(style.line, style.accent, 0.4),
                         size=int(rng.integers(7, 11)))
    if rng.random() < 0.25:  # thin colour stripe along one edge
        col = d.hsv(rng.random(), 0.7, 0.7)
        if rng.random() < 0.5:
            dr.rectangle([0, h * 0.985, w, h], fill=col)
        else:
            dr.rectangle([0, 0, w * 0.012, h * avoid_bottom], fill=col)


def _ghost(img: Image.Image, identity: dict, style: _Style, box, photo=None):
    """A small, faded copy of the holder's portrait (secondary security image)."""
    x0, y0, x1, y1 = (int(v) for v in box)
    gw, gh = max(8, x1 - x0), max(8, y1 - y0)
    if photo is not None:
        g = fit_photo(np.asarray(photo), gw, gh)
    else:
        g = portrait_image(identity["identity_id"], gw, gh, background=style.base)
    g = cv2.cvtColor(cv2.cvtColor(g, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
    ghost = (g.astype(np.float32) * 0.4 + np.asarray(style.base, np.float32) * 0.6).astype(np.uint8)
    img.paste(Image.fromarray(ghost), (x0, y0))


def _fingerprint(dr, rng, box, color):
    """Ridge-like concentric loops (printed fingerprint on some card backs)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + (y1 - y0) * 0.1
    for k in range(1, 14):
        rx, ry = (x1 - x0) * 0.04 * k, (y1 - y0) * 0.045 * k
        start = rng.uniform(180, 220)
        dr.arc([cx - rx, cy - ry * 1.2, cx + rx, cy + ry], start, start + rng.uniform(260, 330), fill=color, width=2)


def _finish(img: Image.Image, rng, style: _Style) -> np.ndarray:
    arr = np.asarray(img)
    if rng.random() < 0.6:
        arr = d.hologram(arr, rng, strength=rng.uniform(0.06, 0.2))
    return arr


def _field(dr, style: _Style, x, y, key, value, label_size, value_size, max_width):
    """A small label with its value below (the VIZ convention); returns the y below the value."""
    text = style.label(key)
    lf = d.fit_font(style.regular, text, max_width, label_size, min_size=7)
    dr.text((x, y), text, font=lf, fill=style.label_color)
    value = d.printable(style.value_font, value)
    vf = d.fit_font(style.value_font, value, max_width, value_size)
    dr.text((x, y + label_size * 1.15), value, font=vf, fill=style.value_color)
    style.value_boxes.append((key, value, *dr.textbbox((x, y + label_size * 1.15), value, font=vf)))
    return y + label_size * 1.15 + value_size * 1.25


def _mrz_block(dr, lines: list[str], box, color=(20, 20, 20)):
    """Print the MRZ in OCR-B with a fixed pitch across ``box``; returns the tight text box."""
    x0, y0, x1, y1 = box
    n = len(lines[0])
    pitch = (x1 - x0) / n
    ref = d.font(d.OCRB, 100)
    size = int(100 * pitch / ref.getlength("M"))
    f = d.font(d.OCRB, size)
    line_h = (y1 - y0) / len(lines)
    top = None
    bottom = None
    for i, line in enumerate(lines):
        ty = y0 + i * line_h + (line_h - size * 0.75) / 2 - size * 0.2
        dr.text((x0, ty), line, font=f, fill=color)
        bb = dr.textbbox((x0, ty), line, font=f)
        top = bb[1] if top is None else min(top, bb[1])
        bottom = bb[3] if bottom is None else max(bottom, bb[3])
    return (int(x0), int(top), int(x0 + f.getlength(lines[0])) + 1, int(bottom) + 1)


def _specimen(img: Image.Image, rng, style: _Style):
    w, h = img.size
    layer = Image.new("L", (w, h), 0)
    ImageDraw.Draw(layer).text((w * 0.25, h * 0.4), d.pick(rng, ["SPECIMEN", "MUSTER", "SPÉCIMEN", "SAMPLE"]),
                               font=d.font(d.FONT_DIR_DEJAVU + "DejaVuSerif-Bold.ttf", int(h * 0.13)), fill=90)
    layer = layer.rotate(rng.uniform(-30, 30), center=(w / 2, h / 2))
    red = Image.new("RGB", (w, h), d.pick(rng, [(200, 60, 60), (150, 150, 160), (90, 110, 170)]))
    img.paste(red, (0, 0), layer)


def _portrait(identity: dict, portrait, w: int, h: int) -> np.ndarray:
    if portrait is not None:
        return fit_photo(np.asarray(portrait), w, h)
    return portrait_image(identity["identity_id"], w, h)


def _date(identity, key, style):
    return format_date(identity[key], style.date_style)


def render_td1_front(rng, identity: dict, portrait=None, allow_mrz: bool = True) -> RenderedDocument:
    w, h = TD1_SIZE
    style = _Style(rng, identity["issuing_state"])
    img = _background(rng, style, w, h)
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
    pimg = _portrait(identity, portrait, ph_w, ph_h)
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
    y = _field(dr, style, fx, y, "surname", identity["surname"], ls, vs, fw)
    y = _field(dr, style, fx, y, "given", identity["given_names"], ls, vs, fw)
    nat_text = identity["nationality"] if rng.random() < 0.6 else country_info(identity["nationality"])[3]
    _field(dr, style, fx, y, "sex", identity["sex"], ls, vs, fw * 0.3)
    y = _field(dr, style, fx + fw * 0.35, y, "nat", nat_text, ls, vs, fw * 0.65)
    _field(dr, style, fx, y, "dob", _date(identity, "date_of_birth", style), ls, vs, fw * 0.5)
    y = _field(dr, style, fx + fw * 0.52, y, "docno", identity["document_number"], ls, vs, fw * 0.48)
    if y < top_h - vs * 2.2:
        y = _field(dr, style, fx, y, "exp", _date(identity, "expiry", style), ls, vs, fw * 0.5)
    else:  # no room: expiry beside the photo bottom
        _field(dr, style, fx + fw * 0.52, y - vs * 2.6 - ls, "exp", _date(identity, "expiry", style), ls, vs,
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
    _security_extras(img, rng, style, avoid_bottom=top_h / h)
    gw, gh = int(w * 0.08), int(h * 0.16)
    gy = max(fields_bottom + h * 0.02, h * 0.6)
    if rng.random() < 0.35 and not with_mrz and photo_left and gy + gh < h * 0.86:
        _ghost(img, identity, style, (w * 0.94 - gw, gy, w * 0.94, gy + gh), photo=portrait)
    mrz = mrz_box = mrz_type = None
    if with_mrz:
        mrz, mrz_type = _td1_mrz(identity, rng), "TD1"
        dr.rectangle([0, top_h, w, h], fill=d.mix(style.base, (255, 255, 255), 0.6))
        mrz_box = _mrz_block(dr, mrz, (w * 0.055, top_h + h * 0.04, w * 0.055 + w * 0.89, h * 0.96))
    if style.specimen:
        _specimen(img, rng, style)
    arr = _finish(img, rng, style)
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
    style = _Style(rng, identity["issuing_state"])
    img = _background(rng, style, w, h)
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
    y = _field(dr, style, fx, y, "addr", identity["address"], ls, vs, w * 0.55)
    dr.text((fx, y - vs * 0.2), identity["city"], font=d.fit_font(style.bold, identity["city"], w * 0.5, vs),
            fill=style.value_color)
    y += vs * 1.3
    _field(dr, style, fx, y, "pob", identity["place_of_birth"], ls, vs, w * 0.3)
    y = _field(dr, style, fx + w * 0.32, y, "height", identity["height"], ls, vs, w * 0.2)
    _field(dr, style, fx, y, "issue", _date(identity, "date_of_issue", style), ls, vs, w * 0.3)
    y = _field(dr, style, fx + w * 0.32, y, "auth", d.pick(rng, ["MUNICIPALITY", "POLICE", "MINISTRY OF INTERIOR",
                                                                "CITY HALL", identity["place_of_birth"]]),
               ls, vs, w * 0.35)
    # right-hand column: ghost portrait or fingerprint on top, a 2D code lower down; or a barcode strip
    right_free = True  # the chip sits left, or right but above the code
    if rng.random() < 0.35 and chip_left:  # small ghost portrait
        _ghost(img, identity, style, (w * 0.86, h * 0.05, w * 0.95, h * 0.23), photo=portrait)
    elif chip_left and rng.random() < 0.3:
        _fingerprint(dr, rng, (w * 0.8, h * 0.05, w * 0.97, h * 0.4), d.darker(style.line, 0.6))
        right_free = False
    code_kind = rng.random()
    if code_kind < 0.4 or not right_free and code_kind < 0.75:
        d.barcode(dr, rng, (w * 0.22, mrz_top - h * 0.1, w * 0.7, mrz_top - h * 0.03))
    elif code_kind < 0.75:
        s = h * 0.22
        d.matrix_code(dr, rng, (w * 0.8, mrz_top - s - h * 0.04, w * 0.8 + s, mrz_top - h * 0.04))
    _security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    mrz = _td1_mrz(identity, rng)
    band = rng.random() < 0.7
    if band:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.5, 0.9)))
    mrz_box = _mrz_block(dr, mrz, (w * 0.055, mrz_top + h * 0.03, w * 0.945, h * 0.965))
    if style.specimen:
        _specimen(img, rng, style)
    arr = _finish(img, rng, style)
    return RenderedDocument(arr, label_fields(identity), mrz, "TD1", "back", "td1_card", None, mrz_box,
                            identity["identity_id"], page_box=(0, 0, w, h), mask=d.rounded_mask(h, w, int(h * 0.06)),
                            extras={"value_boxes": style.value_boxes})


def _td3_page(rng, identity: dict, portrait) -> tuple[np.ndarray, list[str], tuple, tuple]:
    w, h = TD3_SIZE
    style = _Style(rng, identity["issuing_state"])
    img = _background(rng, style, w, h)
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
    pimg = _portrait(identity, portrait, ph_w, ph_h)
    img.paste(Image.fromarray(pimg), (px, py))
    portrait_box = (px, py, px + ph_w, py + ph_h)
    fx = px + ph_w + w * 0.04
    fw = w * 0.96 - fx
    ls, vs = int(h * 0.022), int(h * 0.036)
    y = h * 0.1
    doc_code = d.pick(rng, ["P<", "P<", "P<", "PP", "PD"])
    _field(dr, style, fx, y, "type", doc_code.rstrip("<"), ls, vs, fw * 0.15)
    _field(dr, style, fx + fw * 0.18, y, "code", identity["issuing_state"], ls, vs, fw * 0.2)
    y = _field(dr, style, fx + fw * 0.55, y, "ppno", identity["document_number"], ls, vs, fw * 0.45)
    y = _field(dr, style, fx, y, "surname", identity["surname"], ls, vs, fw)
    y = _field(dr, style, fx, y, "given", identity["given_names"], ls, vs, fw)
    nat_text = country_info(identity["nationality"])[3] if rng.random() < 0.6 else identity["nationality"]
    y = _field(dr, style, fx, y, "nat", nat_text, ls, vs, fw * 0.6)
    _field(dr, style, fx, y, "dob", _date(identity, "date_of_birth", style), ls, vs, fw * 0.45)
    y = _field(dr, style, fx + fw * 0.5, y, "pob", identity["place_of_birth"], ls, vs, fw * 0.5)
    _field(dr, style, fx, y, "sex", identity["sex"], ls, vs, fw * 0.2)
    y = _field(dr, style, fx + fw * 0.5, y, "issue", _date(identity, "date_of_issue", style), ls, vs, fw * 0.5)
    _field(dr, style, fx, y, "exp", _date(identity, "expiry", style), ls, vs, fw * 0.45)
    if y + vs * 2 < mrz_top:
        d.signature(dr, rng, (fx + fw * 0.5, y, fx + fw * 0.95, min(mrz_top - 4, y + vs * 2.2)))
    elif rng.random() < 0.7:
        d.signature(dr, rng, (px, py + ph_h + 4, px + ph_w, mrz_top - 4))
    _security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    if rng.random() < 0.4:
        gw = int(w * 0.09)
        _ghost(img, identity, style, (w * 0.88, mrz_top - gw * 1.4, w * 0.88 + gw, mrz_top - gw * 0.12),
               photo=portrait)
    opt = identity["personal_number"] if rng.random() < 0.5 else ""
    mrz = td3_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                    identity["document_number"], identity["nationality"], identity["date_of_birth"],
                    identity["sex"], identity["expiry"], doc_code=doc_code,
                    optional=opt)
    if rng.random() < 0.8:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.5, 0.9)))
    mrz_box = _mrz_block(dr, mrz, (w * 0.05, mrz_top + h * 0.025, w * 0.95, h * 0.97))
    if style.specimen:
        _specimen(img, rng, style)
    return _finish(img, rng, style), mrz, portrait_box, mrz_box


def _facing_page(rng, w: int, h: int) -> np.ndarray:
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
        facing = _facing_page(rng, w, h)
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
        img = _fold_shadow(img, fold_axis, h if fold_axis == 0 else w, rng)
    ox, oy = off
    shift = lambda b: None if b is None else (b[0] + ox, b[1] + oy, b[2] + ox, b[3] + oy)  # noqa: E731
    return RenderedDocument(np.ascontiguousarray(img), label_fields(identity), mrz, "TD3", "open", "td3_passport",
                            shift(portrait_box), shift(mrz_box), identity["identity_id"],
                            page_box=(ox, oy, ox + w, oy + h), extras=extras)


def _fold_shadow(img: np.ndarray, axis: int, at: int, rng) -> np.ndarray:
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



# --- TD2 cards and MRV visas (added after the generator's first version; own random streams) ---------------

TD2_SIZE = (1000, 705)  # 105 x 74 mm at ~9.5 px/mm
MRVA_SIZE = (1000, 667)  # MRV-A sticker 120 x 80 mm
MRVB_SIZE = (1000, 705)  # MRV-B sticker 105 x 74 mm (the TD2 size)
TD2_TITLES = ("IDENTITY CARD", "RESIDENCE PERMIT", "OFFICIAL TRAVEL DOCUMENT", "TRAVEL DOCUMENT", "CREW MEMBER",
              "PERMANENT RESIDENT CARD")


def _plain_or_patterned(rng, style: _Style, w: int, h: int, plain_p: float) -> Image.Image:
    """Security-printed background, or a near-white one (the ICAO specimens are printed on white)."""
    if rng.random() < plain_p:
        shade = int(rng.uniform(238, 256))
        img = Image.new("RGB", (w, h), (shade, shade, shade))
        d.guilloche(ImageDraw.Draw(img), rng, (0, 0, w, h), d.mix(style.line, (255, 255, 255), 0.75), n=6)
        return img
    return _background(rng, style, w, h)


def render_td2_front(rng, identity: dict, portrait=None) -> RenderedDocument:
    """TD2 card (105 x 74 mm) front: header, portrait, VIZ fields, and the 2 x 36 MRZ at the bottom."""
    w, h = TD2_SIZE
    style = _Style(rng, identity["issuing_state"])
    img = _plain_or_patterned(rng, style, w, h, plain_p=0.3)
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
    pimg = _portrait(identity, portrait, ph_w, ph_h)
    if rng.random() < 0.25:  # laser-engraved greyscale photo
        pimg = np.stack([cv2.cvtColor(pimg, cv2.COLOR_RGB2GRAY)] * 3, -1)
    img.paste(Image.fromarray(pimg), (px, py))
    portrait_box = (px, py, px + ph_w, py + ph_h)
    fx = px + ph_w + w * 0.04 if photo_left else w * 0.05
    fw = (w * 0.96 - fx) if photo_left else (px - w * 0.04 - fx)
    ls, vs = int(h * rng.uniform(0.025, 0.03)), int(h * rng.uniform(0.038, 0.046))
    y = h * 0.15
    _field(dr, style, fx, y, "surname", identity["surname"], ls, vs, fw * 0.48)
    y = _field(dr, style, fx + fw * 0.5, y, "given", identity["given_names"], ls, vs, fw * 0.5)
    nat_text = identity["nationality"] if rng.random() < 0.6 else country_info(identity["nationality"])[3]
    _field(dr, style, fx, y, "nat", nat_text, ls, vs, fw * 0.48)
    y = _field(dr, style, fx + fw * 0.5, y, "dob", _date(identity, "date_of_birth", style), ls, vs, fw * 0.5)
    _field(dr, style, fx, y, "sex", identity["sex"], ls, vs, fw * 0.2)
    y = _field(dr, style, fx + fw * 0.5, y, "exp", _date(identity, "expiry", style), ls, vs, fw * 0.5)
    y = _field(dr, style, fx, y, "docno", identity["document_number"], ls, vs, fw * 0.6)
    if y + vs * 1.5 < mrz_top:
        d.signature(dr, rng, (fx, y, fx + fw * 0.55, min(mrz_top - 6, y + vs * 2)))
    if rng.random() < 0.35:
        _fingerprint(dr, rng, (w * 0.8, y - vs * 2.5, w * 0.94, mrz_top - 8), d.darker(style.line, 0.55))
    elif rng.random() < 0.4 and photo_left:
        gw = int(w * 0.08)
        _ghost(img, identity, style, (w * 0.86, mrz_top - gw * 1.45, w * 0.86 + gw, mrz_top - gw * 0.2),
               photo=portrait)
    _security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    mrz = td2_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                    identity["document_number"], identity["nationality"], identity["date_of_birth"],
                    identity["sex"], identity["expiry"], doc_code=d.pick(rng, ["I<", "ID", "IR", "AC", "IP"]))
    if rng.random() < 0.7:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.5, 0.9)))
    mrz_box = _mrz_block(dr, mrz, (w * 0.05, mrz_top + h * 0.03, w * 0.95, h * 0.96))
    if style.specimen:
        _specimen(img, rng, style)
    return RenderedDocument(_finish(img, rng, style), label_fields(identity), mrz, "TD2", "front", "td2_card",
                            portrait_box, mrz_box, identity["identity_id"], page_box=(0, 0, w, h),
                            mask=d.rounded_mask(h, w, int(h * 0.05)))


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
    style = _Style(rng, identity["issuing_state"])
    img = _plain_or_patterned(rng, style, w, h, plain_p=0.2)
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
        pimg = _portrait(identity, portrait, ph_w, ph_h)
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
    field(fx, y, 1, _date(identity, "date_of_issue", style), fw * 0.48)
    y = field(fx + fw * 0.5, y, 2, _date(identity, "expiry", style), fw * 0.5)  # the MRZ expiry
    field(fx, y, 3, d.pick(rng, ["C", "D", "A", "B-1/B-2", "F-1", "TRANSIT", "WORK"]), fw * 0.3)
    field(fx + fw * 0.33, y, 4, d.pick(rng, ["MULT", "01", "02", "M", "1"]), fw * 0.3)
    y = field(fx + fw * 0.66, y, 5, str(int(rng.integers(5, 181))), fw * 0.34)
    field(fx, y, 6, identity["place_of_birth"], fw * 0.48)
    y = field(fx + fw * 0.5, y, 7, _date(identity, "date_of_issue", style), fw * 0.5)
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
    _security_extras(img, rng, style, avoid_bottom=mrz_top / h)
    doc_code = d.pick(rng, ["V<", "VC", "VD", "VN", "VI", "VB"])
    compose = mrvb_lines if mrv_b else mrva_lines
    optional = "" if rng.random() < 0.5 else "".join(d.pick(rng, "ABCDEFGHJKLMNPRSTUVWXYZ0123456789")
                                                    for _ in range(int(rng.integers(4, 9))))
    mrz = compose(identity["issuing_state"], identity["surname"], identity["given_names"],
                  identity["document_number"], identity["nationality"], identity["date_of_birth"],
                  identity["sex"], identity["expiry"], doc_code=doc_code, optional=optional)
    if rng.random() < 0.8:
        dr.rectangle([0, mrz_top, w, h], fill=d.mix(style.base, (255, 255, 255), rng.uniform(0.6, 0.95)))
    mrz_box = _mrz_block(dr, mrz, (w * 0.04, mrz_top + h * 0.03, w * 0.96, h * 0.96))
    if style.specimen:
        _specimen(img, rng, style)
    if rng.random() < 0.5:  # thin frame line, as on printed stickers
        dr.rounded_rectangle([3, 3, w - 4, h - 4], radius=int(h * 0.03), outline=d.darker(style.line, 0.5), width=3)
    sticker = _finish(img, rng, style)
    mask = d.rounded_mask(h, w, int(h * 0.03))
    extras = {"layout": "mrv_b" if mrv_b else "mrv_a", "placement": "sticker"}
    if rng.random() < 0.4:  # stuck on a passport visa page, which shows around it
        page_w, page_h = TD3_SIZE
        page = _facing_page(rng, page_w, page_h).copy()
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


def render_td3_page(rng, identity: dict, portrait=None) -> RenderedDocument:
    """The passport data page alone (no facing page), as a tight crop or a laminated page is seen."""
    page, mrz, portrait_box, mrz_box = _td3_page(rng, identity, portrait)
    w, h = TD3_SIZE
    return RenderedDocument(np.ascontiguousarray(page), label_fields(identity), mrz, "TD3", "open", "td3_passport",
                            portrait_box, mrz_box, identity["identity_id"], page_box=(0, 0, w, h),
                            extras={"booklet": "data_page"})


RENDERERS = {"td1_front": render_td1_front, "td1_back": render_td1_back, "td3_open": render_td3_open,
             "td1_both": render_td1_both, "td2_front": render_td2_front, "mrv_visa": render_mrv_visa,
             "td3_page": render_td3_page}


def render_document(kind: str, seed_or_rng, identity: dict | None = None, portrait: np.ndarray | None = None
                    ) -> RenderedDocument:
    """Render one flat, upright document.

    ``seed_or_rng``: an int seed or a ``numpy.random.Generator``. ``identity`` overrides any printed field
    (surname, given_names, date_of_birth, document_number, expiry, nationality, sex, issuing_state);
    ``portrait`` (RGB array) replaces the drawn face.
    """
    if kind not in RENDERERS:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {DOCUMENT_KINDS + EXTRA_KINDS}")
    rng = seed_or_rng if isinstance(seed_or_rng, np.random.Generator) else np.random.default_rng(seed_or_rng)
    holder = random_identity(rng)
    if identity:
        holder.update({k: v for k, v in identity.items() if v is not None})
        for k in ("date_of_birth", "expiry", "date_of_issue"):
            if isinstance(holder[k], dt.date):
                holder[k] = holder[k].isoformat()
        for k in ("surname", "given_names", "document_number", "nationality", "issuing_state", "sex"):
            holder[k] = str(holder[k]).upper()
        for k in ("nationality", "issuing_state"):
            if not (1 <= len(holder[k]) <= 3 and holder[k].isascii() and holder[k].isalpha()):
                raise ValueError(f"{k} must be an ICAO code of 1-3 letters (e.g. 'D', 'UTO'), not {holder[k]!r}")
    return RENDERERS[kind](rng, holder, portrait)
