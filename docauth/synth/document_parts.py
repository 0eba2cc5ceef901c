"""What every rendered document is made of: its style, background, security print, labelled fields,
the MRZ block and the portrait."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d
from docauth.synth.identity import DATE_STYLES, country as country_info, format_date
from docauth.synth.portrait import fit_photo, portrait_image

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


class Style:
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


def draw_background(rng, style: Style, w: int, h: int) -> Image.Image:
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


def draw_security_extras(img: Image.Image, rng, style: Style, avoid_bottom: float = 1.0):
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


def draw_ghost(img: Image.Image, identity: dict, style: Style, box, photo=None):
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


def draw_fingerprint(dr, rng, box, color):
    """Ridge-like concentric loops (printed fingerprint on some card backs)."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2 + (y1 - y0) * 0.1
    for k in range(1, 14):
        rx, ry = (x1 - x0) * 0.04 * k, (y1 - y0) * 0.045 * k
        start = rng.uniform(180, 220)
        dr.arc([cx - rx, cy - ry * 1.2, cx + rx, cy + ry], start, start + rng.uniform(260, 330), fill=color, width=2)


def finish_document(img: Image.Image, rng, style: Style) -> np.ndarray:
    arr = np.asarray(img)
    if rng.random() < 0.6:
        arr = d.hologram(arr, rng, strength=rng.uniform(0.06, 0.2))
    return arr


def draw_field(dr, style: Style, x, y, key, value, label_size, value_size, max_width):
    """A small label with its value below (the VIZ convention); returns the y below the value."""
    text = style.label(key)
    lf = d.fit_font(style.regular, text, max_width, label_size, min_size=7)
    dr.text((x, y), text, font=lf, fill=style.label_color)
    value = d.printable(style.value_font, value)
    vf = d.fit_font(style.value_font, value, max_width, value_size)
    dr.text((x, y + label_size * 1.15), value, font=vf, fill=style.value_color)
    style.value_boxes.append((key, value, *dr.textbbox((x, y + label_size * 1.15), value, font=vf)))
    return y + label_size * 1.15 + value_size * 1.25


def draw_mrz_block(dr, lines: list[str], box, color=(20, 20, 20)):
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


def draw_specimen(img: Image.Image, rng, style: Style):
    w, h = img.size
    layer = Image.new("L", (w, h), 0)
    ImageDraw.Draw(layer).text((w * 0.25, h * 0.4), d.pick(rng, ["SPECIMEN", "MUSTER", "SPÉCIMEN", "SAMPLE"]),
                               font=d.font(d.FONT_DIR_DEJAVU + "DejaVuSerif-Bold.ttf", int(h * 0.13)), fill=90)
    layer = layer.rotate(rng.uniform(-30, 30), center=(w / 2, h / 2))
    red = Image.new("RGB", (w, h), d.pick(rng, [(200, 60, 60), (150, 150, 160), (90, 110, 170)]))
    img.paste(red, (0, 0), layer)


def fitted_portrait(identity: dict, portrait, w: int, h: int) -> np.ndarray:
    if portrait is not None:
        return fit_photo(np.asarray(portrait), w, h)
    return portrait_image(identity["identity_id"], w, h)


def formatted_date(identity, key, style):
    return format_date(identity[key], style.date_style)


TD2_SIZE = (1000, 705)  # 105 x 74 mm at ~9.5 px/mm


def plain_or_patterned(rng, style: Style, w: int, h: int, plain_p: float) -> Image.Image:
    """Security-printed background, or a near-white one (the ICAO specimens are printed on white)."""
    if rng.random() < plain_p:
        shade = int(rng.uniform(238, 256))
        img = Image.new("RGB", (w, h), (shade, shade, shade))
        d.guilloche(ImageDraw.Draw(img), rng, (0, 0, w, h), d.mix(style.line, (255, 255, 255), 0.75), n=6)
        return img
    return draw_background(rng, style, w, h)
