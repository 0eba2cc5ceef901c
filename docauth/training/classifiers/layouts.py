"""Passport data pages and ID card fronts and backs in layouts drawn afresh for each sample.

The generator draws each kind of document from one template, and a model trained on it learns the template:
a real passport page, laid out otherwise, no longer looks "open" to it. Here the parts every issuer prints —
header, portrait, labelled fields, MRZ; on a card front the portrait and fields without a zone; on a card back
the chip, codes, a few fields and the three-line zone — are placed, sized and styled at random within what
ICAO 9303 fixes (the zone's place and line count, the portrait on the left of a data page). Every side is drawn
so: a side drawn only from the generator's template would teach the model that a fresh layout means the other
sides. Used by :mod:`docauth.training.classifiers.realistic`.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from docauth.synth import draw as d
from docauth.synth.identity import country, format_date
from docauth.synth.mrz_compose import td1_lines, td3_lines
from docauth.synth.portrait import fit_photo

TD3_PAGE = (1000, 704)  # 125 x 88 mm
TD1_CARD = (1012, 638)  # 85.6 x 54 mm
# Labels of a data page in a few languages (English always last, as issuers print it).
FIELD_LABELS = {
    "type": ("Type", "Type", "Typ", "Tipo"), "code": ("Code", "Code", "Kode", "Código"),
    "number": ("Passport No.", "N° du passeport", "Pass-Nr.", "N° de pasaporte"),
    "surname": ("Surname", "Nom", "Name", "Apellidos"), "given": ("Given names", "Prénoms", "Vornamen", "Nombre"),
    "nationality": ("Nationality", "Nationalité", "Staatsangehörigkeit", "Nacionalidad"),
    "birth": ("Date of birth", "Date de naissance", "Geburtsdatum", "Fecha de nacimiento"),
    "sex": ("Sex", "Sexe", "Geschlecht", "Sexo"),
    "place": ("Place of birth", "Lieu de naissance", "Geburtsort", "Lugar de nacimiento"),
    "issue": ("Date of issue", "Date de délivrance", "Ausstellungsdatum", "Fecha de expedición"),
    "expiry": ("Date of expiry", "Date d'expiration", "Gültig bis", "Fecha de caducidad"),
    "authority": ("Authority", "Autorité", "Behörde", "Autoridad"),
    "personal": ("Personal No.", "N° personnel", "Pers.-Nr.", "N° personal"),
    "address": ("Address", "Adresse", "Anschrift", "Domicilio"), "height": ("Height", "Taille", "Größe", "Estatura"),
    "card_number": ("Document No.", "N° du document", "Ausweisnummer", "Núm. soporte"),
}
CARD_TITLES = ("IDENTITY CARD", "CARTE D'IDENTITÉ", "PERSONALAUSWEIS", "DOCUMENTO DE IDENTIDAD",
               "CARTA D'IDENTITÀ", "IDENTITEITSKAART", "RESIDENCE PERMIT", "BORDER PASS")
PASSPORT_WORDS = ("PASSPORT", "PASSEPORT", "REISEPASS", "PASAPORTE", "PASSAPORTO", "PASPOORT", "PASS")


def _blank(rng: np.random.Generator, w: int, h: int) -> tuple:
    """A blank document of its paper and the draw style its print keeps: (image, drawer, hue, regular font,
    bold font, ink, caption ink)."""
    hue = rng.random()
    img = _paper(rng, w, h, hue)
    regular, bold = d.pick(rng, d.VIZ_FAMILIES)
    ink = d.pick(rng, [(10, 10, 15), (25, 25, 40), (15, 25, 60)])
    label_ink = d.pick(rng, [(70, 70, 80), d.hsv(hue, 0.6, 0.45), (40, 60, 110), (110, 50, 60)])
    return img, ImageDraw.Draw(img), hue, regular, bold, ink, label_ink


def data_page(rng: np.random.Generator, identity: dict, portrait: np.ndarray) -> tuple[np.ndarray, list[str], float]:
    """(RGB page, MRZ lines, the zone's top as a fraction of the page height)."""
    w, h = TD3_PAGE
    img, dr, hue, regular, bold, ink, label_ink = _blank(rng, w, h)
    mrz_top = float(rng.uniform(0.75, 0.84))
    # header: the state's name and the word passport, in one of the ways issuers place them
    _, en_name, local_name, adjective = country(identity["issuing_state"])
    name = (local_name + " / " + en_name) if local_name and rng.random() < 0.5 else en_name
    header = float(rng.uniform(0.07, 0.13))
    if rng.random() < 0.3:  # a coloured band across the top
        dr.rectangle([0, 0, w, h * header], fill=d.hsv(hue, rng.uniform(0.3, 0.7), rng.uniform(0.45, 0.8)))
        head_ink = (250, 250, 250)
    else:
        head_ink = d.hsv(hue + rng.uniform(-0.1, 0.1), rng.uniform(0.5, 0.9), rng.uniform(0.25, 0.5))
    title = d.fit_font(bold, name.upper(), w * rng.uniform(0.4, 0.7), int(h * header * 0.45))
    tx = d.pick(rng, [w * 0.04, w * 0.3, (w - title.getlength(name.upper())) / 2])
    dr.text((tx, h * header * 0.25), name.upper(), font=title, fill=head_ink)
    words = " / ".join(rng.choice(PASSPORT_WORDS, size=int(rng.integers(1, 4)), replace=False))
    dr.text((w * 0.04, h * (header + 0.01)), words, font=d.fit_font(bold, words, w * 0.3, int(h * 0.03)),
            fill=head_ink if head_ink != (250, 250, 250) else label_ink)
    if rng.random() < 0.6:
        d.emblem(dr, rng, (w * rng.uniform(0.85, 0.94), h * header * 0.55), h * header * 0.4, head_ink)
    # portrait on the left, tall: from under the header to near the zone
    top = h * (header + rng.uniform(0.05, 0.1))
    ph = int(min(h * mrz_top - top - h * rng.uniform(0.0, 0.12), h * rng.uniform(0.5, 0.68)))
    pw = int(ph * rng.uniform(0.74, 0.82))
    px = int(w * rng.uniform(0.025, 0.06))
    img.paste(Image.fromarray(fit_photo(portrait, pw, ph)), (px, int(top)))
    if rng.random() < 0.5:
        d.signature(dr, rng, (px, top + ph + 4, px + pw, h * mrz_top - 4))
    # labelled fields right of the portrait, in one or two columns
    date_style = d.pick(rng, ("dd MON yyyy", "dd.mm.yyyy", "d MON/FR yy", "dd/mm/yyyy", "d MON yyyy"))
    values = [("type", "P"), ("code", identity["issuing_state"]), ("number", identity["document_number"]),
              ("surname", identity["surname"]), ("given", identity["given_names"]),
              ("nationality", adjective.upper() if adjective else identity["nationality"]),
              ("birth", format_date(identity["date_of_birth"], date_style)), ("sex", identity["sex"]),
              ("place", identity["place_of_birth"]), ("issue", format_date(identity["date_of_issue"], date_style)),
              ("expiry", format_date(identity["expiry"], date_style)),
              ("authority", d.pick(rng, ["MINISTRY OF INTERIOR", "PASSPORT OFFICE", "POLICE", "EMBASSY"]))]
    if rng.random() < 0.4:
        values.append(("personal", identity["personal_number"][:11]))
    langs = _languages(rng)
    fx = px + pw + w * rng.uniform(0.03, 0.06)
    right = w * rng.uniform(0.72, 0.96)  # room left for a secondary portrait on some pages
    _fields(dr, rng, values, (fx, top - h * 0.02, right, h * mrz_top - h * 0.02), regular, bold, ink, label_ink,
            langs, numbered=rng.random() < 0.2)
    # the zone: OCR-B across the page, in a white band or on the print
    lines = td3_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                      identity["document_number"], identity["nationality"], identity["date_of_birth"],
                      identity["sex"], identity["expiry"], doc_code=d.pick(rng, ["P<", "P<", "PP", "PD"]))
    _zone(dr, rng, lines, w, h, mrz_top)
    return np.asarray(img).copy(), lines, mrz_top


def card_front(rng: np.random.Generator, identity: dict, portrait: np.ndarray) -> np.ndarray:
    """An ID card's front: header, portrait, labelled fields, signature; no zone (TD1 prints it on the back)."""
    w, h = TD1_CARD
    img, dr, hue, regular, bold, ink, label_ink = _blank(rng, w, h)
    _, en_name, local_name, adjective = country(identity["issuing_state"])
    header = float(rng.uniform(0.12, 0.2))
    if rng.random() < 0.35:  # a coloured band across the top
        dr.rectangle([0, 0, w, h * header], fill=d.hsv(hue, rng.uniform(0.3, 0.7), rng.uniform(0.45, 0.8)))
        head_ink = (250, 250, 250)
    else:
        head_ink = d.hsv(hue + rng.uniform(-0.1, 0.1), rng.uniform(0.5, 0.9), rng.uniform(0.25, 0.5))
    name = (local_name if local_name and rng.random() < 0.6 else en_name).upper()
    dr.text((w * 0.04, h * header * 0.12), name, font=d.fit_font(bold, name, w * 0.75, int(h * header * 0.45)),
            fill=head_ink)
    title = " / ".join(rng.choice(CARD_TITLES[:6], size=int(rng.integers(1, 3)), replace=False))
    dr.text((w * 0.04, h * header * 0.58), title, font=d.fit_font(regular, title, w * 0.75, int(h * header * 0.32)),
            fill=head_ink)
    if rng.random() < 0.5:
        d.emblem(dr, rng, (w * 0.92, h * header * 0.5), h * header * 0.38, head_ink)
    # the portrait, on the left of most cards
    left = rng.random() < 0.75
    top = h * (header + rng.uniform(0.03, 0.08))
    ph = int(h * rng.uniform(0.5, 0.68))
    ph = min(ph, int(h * 0.97 - top))
    pw = int(ph * rng.uniform(0.74, 0.82))
    px = int(w * rng.uniform(0.03, 0.06)) if left else int(w * rng.uniform(0.94, 0.97) - pw)
    img.paste(Image.fromarray(fit_photo(portrait, pw, ph)), (px, int(top)))
    if rng.random() < 0.35:  # a contact chip on the front (many EU cards)
        cw = w * rng.uniform(0.1, 0.13)
        cx = px + pw + w * 0.03 if left else w * 0.05
        d.chip(dr, rng, (cx, h * 0.72, cx + cw, h * 0.72 + cw * 0.8))
    date_style = d.pick(rng, ("dd.mm.yyyy", "dd MON yyyy", "dd mm yyyy", "d MON/FR yy"))
    values = [("surname", identity["surname"]), ("given", identity["given_names"]), ("sex", identity["sex"]),
              ("nationality", identity["nationality"] if rng.random() < 0.5 else (adjective or "").upper()),
              ("birth", format_date(identity["date_of_birth"], date_style)),
              ("card_number", identity["document_number"]), ("expiry", format_date(identity["expiry"], date_style))]
    if rng.random() < 0.4:
        values.append(("place", identity["place_of_birth"]))
    fx0 = px + pw + w * 0.04 if left else w * 0.04
    fx1 = w * 0.96 if left else px - w * 0.03
    bottom = h * rng.uniform(0.78, 0.92)
    _fields(dr, rng, values, (fx0, top - h * 0.02, fx1, bottom), regular, bold, ink, label_ink, _languages(rng),
            numbered=rng.random() < 0.25)
    if rng.random() < 0.6:
        d.signature(dr, rng, (fx0 + (fx1 - fx0) * 0.4, bottom, fx1, h * 0.97))
    if rng.random() < 0.4:  # a card access number in a corner
        can = "".join(str(int(v)) for v in rng.integers(0, 10, 6))
        dr.text((w * 0.82, h * 0.9), can, font=d.font(bold, int(h * 0.05)), fill=ink)
    return np.asarray(img).copy()


def card_back(rng: np.random.Generator, identity: dict) -> tuple[np.ndarray, list[str], float]:
    """(RGB card back, MRZ lines, the zone's top as a fraction of the card height)."""
    w, h = TD1_CARD
    hue = rng.random()
    img = _paper(rng, w, h, hue)
    dr = ImageDraw.Draw(img)
    regular, bold = d.pick(rng, d.VIZ_FAMILIES)
    ink = d.pick(rng, [(10, 10, 15), (25, 25, 40), (15, 25, 60)])
    label_ink = d.pick(rng, [(70, 70, 80), d.hsv(hue, 0.6, 0.45), (40, 60, 110)])
    mrz_top = float(rng.uniform(0.5, 0.64))
    # the upper part: chip, codes and a few fields, placed in slots left to right
    slots = [0.03, 0.3, 0.55, 0.78]
    rng.shuffle(slots)
    items = ["chip" if rng.random() < 0.5 else "emblem", "code" if rng.random() < 0.6 else "barcode", "fields"]
    y0, y1 = h * rng.uniform(0.05, 0.12), h * mrz_top - h * 0.05
    for item, x in zip(items, sorted(slots[:3])):
        if item == "chip":
            cw = w * rng.uniform(0.1, 0.14)
            d.chip(dr, rng, (w * x, y0 + h * 0.08, w * x + cw, y0 + h * 0.08 + cw * 0.8))
        elif item == "emblem":
            d.emblem(dr, rng, (w * x + w * 0.07, (y0 + y1) / 2), h * 0.1, d.hsv(hue, 0.6, 0.5))
        elif item == "code":
            s = min(y1 - y0, w * 0.2) * rng.uniform(0.6, 0.95)
            d.matrix_code(dr, rng, (w * x, y0, w * x + s, y0 + s), color=ink)
        elif item == "barcode":
            d.barcode(dr, rng, (w * x, y1 - h * 0.1, w * x + w * 0.3, y1), color=ink)
        else:
            date_style = d.pick(rng, ("dd.mm.yyyy", "dd MON yyyy", "dd mm yyyy"))
            values = [("address", identity["address"]), ("issue", format_date(identity["date_of_issue"],
                                                                               date_style)),
                      ("authority", d.pick(rng, ["MUNICIPALITY", "POLICE", "MINISTRY OF INTERIOR"])),
                      ("height", identity["height"]), ("place", identity["place_of_birth"])]
            keep = values[:int(rng.integers(2, 6))]
            _fields(dr, rng, keep, (w * x, y0, min(w * 0.97, w * x + w * 0.45), y1), regular, bold, ink,
                    label_ink, _languages(rng), numbered=False, value_scale=0.8)
    if rng.random() < 0.4:  # the document number printed upright along an edge
        number = Image.new("L", (int(h * 0.6), int(h * 0.06)), 0)
        ImageDraw.Draw(number).text((0, 0), identity["document_number"], font=d.font(bold, int(h * 0.05)), fill=255)
        number = number.rotate(90, expand=True)
        img.paste(Image.new("RGB", number.size, ink), (int(w * 0.005), int(h * 0.05)), number)
    lines = td1_lines(identity["issuing_state"], identity["surname"], identity["given_names"],
                      identity["document_number"], identity["nationality"], identity["date_of_birth"],
                      identity["sex"], identity["expiry"], doc_code=d.pick(rng, ["ID", "I<", "IR", "IP"]))
    _zone(dr, rng, lines, w, h, mrz_top)
    return np.asarray(img).copy(), lines, mrz_top


def _paper(rng: np.random.Generator, w: int, h: int, hue: float) -> Image.Image:
    """Light security paper: a pale gradient of two tints, fine guilloche, often a faint rosette or emblem."""
    white = (255, 255, 255)
    a = d.mix(d.hsv(hue, rng.uniform(0.1, 0.45), rng.uniform(0.85, 1.0)), white, rng.uniform(0.2, 0.7))
    b = d.mix(d.hsv(hue + rng.uniform(-0.3, 0.3), rng.uniform(0.1, 0.45), rng.uniform(0.85, 1.0)), white,
              rng.uniform(0.2, 0.7))
    img = Image.fromarray(d.gradient(h, w, a, b, rng.uniform(0, 6.3)))
    dr = ImageDraw.Draw(img)
    line = d.darker(d.mix(a, b, 0.5), rng.uniform(0.75, 0.92))
    d.guilloche(dr, rng, (0, 0, w, h), line, n=int(rng.integers(10, 30)))
    if rng.random() < 0.6:
        d.rosette(dr, rng, (rng.uniform(0.3, 0.8) * w, rng.uniform(0.3, 0.7) * h), rng.uniform(0.15, 0.4) * w,
                  d.mix(line, white, 0.3), n=int(rng.integers(6, 14)))
    if rng.random() < 0.5:
        d.emblem(dr, rng, (rng.uniform(0.5, 0.85) * w, rng.uniform(0.3, 0.6) * h), rng.uniform(0.12, 0.25) * h,
                 d.mix(line, white, 0.5))
    if rng.random() < 0.4:
        img = Image.fromarray(d.hologram(np.asarray(img), rng, strength=rng.uniform(0.1, 0.3)))
    return img


def _languages(rng: np.random.Generator) -> tuple[int, ...]:
    """Which of FIELD_LABELS' languages a document prints, English last: (0,), (1, 0), (2, 3, 0) ..."""
    others = rng.permutation([1, 2, 3])[:int(rng.integers(0, 3))]
    return (*(int(j) for j in others), 0)


def _fields(dr, rng, values, box, regular, bold, ink, label_ink, langs: tuple[int, ...], *, numbered: bool,
            value_scale: float = 1.0) -> None:
    """Label(s) over each value, in one or two columns filling ``box`` from the top."""
    x0, y0, x1, y1 = box
    columns = 2 if (x1 - x0) > 420 and rng.random() < 0.8 else 1
    if columns == 1:  # one column holds fewer fields at a legible size
        values = values[:8]
    rows = -(-len(values) // columns)
    step = (y1 - y0) / max(rows, 1)
    label_size = max(8, int(step * rng.uniform(0.18, 0.26)))
    value_size = max(10, int(step * rng.uniform(0.34, 0.48) * value_scale))
    col_w = (x1 - x0) / columns
    for i, (key, value) in enumerate(values):
        col, row = i // rows, i % rows
        x, y = x0 + col * col_w, y0 + row * step
        label = " / ".join(FIELD_LABELS[key][j] for j in langs)
        if numbered:
            label = f"{i + 1}. {label}"
        dr.text((x, y), label, font=d.fit_font(regular, label, col_w * 0.95, label_size, min_size=6), fill=label_ink)
        value = d.printable(bold, str(value))
        dr.text((x, y + label_size * 1.2), value, font=d.fit_font(bold, value, col_w * 0.95, value_size), fill=ink)


def _zone(dr, rng, lines: list[str], w: int, h: int, mrz_top: float) -> None:
    """The MRZ in OCR-B across the document's width, in a white band most of the time."""
    if rng.random() < 0.75:
        dr.rectangle([0, h * mrz_top, w, h], fill=tuple(int(v) for v in rng.uniform(240, 256, 3)))
    span = w * rng.uniform(0.86, 0.94)
    ref = d.font(d.OCRB, 100)
    size = int(100 * span / ref.getlength(lines[0]))
    f = d.font(d.OCRB, size)
    x = (w - f.getlength(lines[0])) / 2
    band = h * (1 - mrz_top)
    pitch = min(band / (len(lines) + 0.4), size * rng.uniform(1.15, 1.6))
    y = h * mrz_top + (band - pitch * len(lines)) / 2
    stroke = 1 if rng.random() < 0.4 else 0  # a heavier print
    for i, line in enumerate(lines):
        dr.text((x, y + i * pitch), line, font=f, fill=(15, 15, 20), stroke_width=stroke, stroke_fill=(15, 15, 20))
