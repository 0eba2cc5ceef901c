"""Printed fields (visual inspection zone) with Tesseract, and their comparison with the MRZ.

Documents print a small label ("Surname", "Date of birth", often "Nom / Surname")
and the value under it. One Tesseract pass (``image_to_data``, sparse text)
over the downscaled upright document gives words with boxes; words are
grouped into phrases, labels are recognised by keyword, and the value is the
phrase just below a label, left-aligned with it.

>>> normalise_date("12 AUG 1974"), normalise_date("12.08.1974"), normalise_date("12 08 1974")
('1974-08-12', '1974-08-12', '1974-08-12')
>>> normalise_date("14 JUL/JUIL 76", kind="birth", today=date(2026, 1, 1)), normalise_date("1974-08-12")
('1976-07-14', '1974-08-12')
>>> normalise_date("09 OCT/OCT 26", kind="expiry", today=date(2026, 1, 1)), normalise_date("no date") is None
('2026-10-09', True)
>>> compare_field("surname", "MÜLLER", "MUELLER"), compare_field("date_of_birth", "1974-08-12", "1974-08-12")
(True, True)
>>> compare_field("document_number", "1D9875401", "ID9875401"), compare_field("document_number", "1D98", "1D99")
(True, False)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

import numpy as np

from docauth.ocr.mrz import mrz_date, transliterate

MONTHS = {
    "JAN": 1, "FEB": 2, "FEV": 2, "FÉV": 2, "MAR": 3, "MARS": 3, "APR": 4, "AVR": 4, "MAY": 5, "MAI": 5,
    "JUN": 6, "JUIN": 6, "JUL": 7, "JUIL": 7, "AUG": 8, "AOU": 8, "AOÛT": 8, "AOUT": 8, "SEP": 9, "SEPT": 9,
    "OCT": 10, "NOV": 11, "DEC": 12, "DÉC": 12,
}

# Label keywords (lower case, accents stripped) -> field. English plus the second languages seen on documents;
# a bilingual label is often read as two phrases, and either half must name its field ('Apellidos' read apart
# from its '/ Surname' was taken for the surname itself). Short words that are also names or parts of names
# ('nom', 'nome', 'name', 'naam') are left out: a value would be taken for a label.
LABEL_KEYWORDS = [
    ("given names", "given_names"), ("given name", "given_names"), ("prenoms", "given_names"),
    ("vornamen", "given_names"), ("voornamen", "given_names"), ("nombre", "given_names"),
    ("surname", "surname"), ("apellidos", "surname"), ("cognome", "surname"), ("achternaam", "surname"),
    # ICAO 9303's own names for the two name fields, printed as labels on its specimens
    ("primary identifier", "surname"), ("identifiant primaire", "surname"),
    ("secondary identifier", "given_names"), ("identifiant secondaire", "given_names"),
    ("date of birth", "date_of_birth"), ("birth", "date_of_birth"), ("naissance", "date_of_birth"),
    ("geburtsdatum", "date_of_birth"), ("fecha de nacimiento", "date_of_birth"), ("data di nascita", "date_of_birth"),
    ("geboortedatum", "date_of_birth"),
    ("date of expiry", "expiry_date"), ("expiry", "expiry_date"), ("expiration", "expiry_date"),
    ("valid until", "expiry_date"), ("gultig bis", "expiry_date"), ("valido hasta", "expiry_date"),
    ("scadenza", "expiry_date"), ("geldig tot", "expiry_date"),
    ("document no", "document_number"), ("passport no", "document_number"), ("document number", "document_number"),
    ("documentnummer", "document_number"), ("ausweisnummer", "document_number"),
    ("nationality", "nationality"), ("nationalite", "nationality"), ("staatsangehorigkeit", "nationality"),
    ("nacionalidad", "nationality"), ("cittadinanza", "nationality"), ("nationaliteit", "nationality"),
    ("sex", "sex"), ("sexe", "sex"), ("geschlecht", "sex"), ("geslacht", "sex"),
]
NON_FIELD_LABELS = ("place of birth", "date of issue", "lieu de naissance", "personal no", "issue")


@dataclass
class Phrase:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    conf: float

    @property
    def h(self) -> float:
        return self.y1 - self.y0

    @property
    def box(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) in whole pixels, as the text box was cut."""
        return int(self.x0), int(self.y0), int(self.x1), int(self.y1)


def _strip_accents(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def normalise_date(text: str | None, *, kind: str = "birth", today: date | None = None) -> str | None:
    """ISO 8601 from the printed formats (``12 AUG 1974``, ``12.08.1974``, ``12 08 1974``, ``12/08/1974``,
    ``1974-08-12``, ``14 JUL/JUIL 76``); two-digit years use the MRZ century rule.

    Tolerant of what OCR does to them: a lost space (``26 111972``), a month glued to its
    translation (``11 JULIJUIL 04``), O for 0 among digits.

    >>> normalise_date("26 111972"), normalise_date("11 JULIJUIL 04", today=date(2026, 1, 1))
    ('1972-11-26', '2004-07-11')
    >>> normalise_date("4 0cT 1999"), normalise_date("21 N0V 1980"), normalise_date("01, MAY 1987")
    ('1999-10-04', '1980-11-21', '1987-05-01')
    >>> normalise_date("23 NOV/Nov “96", today=date(2026, 1, 1)), normalise_date("(08'DEC 2026")
    ('1996-11-23', '2026-12-08')
    >>> normalise_date("16.12:1941"), normalise_date("1)5029581")  # a dot read as a colon; no year 9581
    ('1941-12-16', None)
    >>> normalise_date("w 20 0cTiecT 52", today=date(2026, 1, 1)), normalise_date("MAR4B6C85")
    ('1952-10-20', None)
    """
    if not text:
        return None
    t = _strip_accents(text.upper()).translate(_STRAY_MARKS)
    t = t.replace("O", "0") if re.fullmatch(r"[\dO .,/\-]+", t) else t
    t = re.sub(r"\b[A-Z0-9]{3,9}\b", _month_read_as_digits, t)
    m = re.search(r"(\d{4})[-./ ](\d{1,2})[-./ ](\d{1,2})", t)
    if m:
        return _iso(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = re.search(r"(\d{1,2})\s*[./: \-]\s*(\d{1,2})\s*[./: \-]\s*(\d{4}|\d{2})\b", t)
    if m:
        return _iso_yy(m.group(3), int(m.group(2)), int(m.group(1)), kind, today)
    m = re.search(r"(\d{1,2})[\s.,]*([A-Z]{3,5})[A-Z/|.,]*(?:\s*/\s*[A-Z]{3,5}[.,]?)?\s*(\d{4}|\d{2})\b", t)
    if m:
        month = MONTHS.get(m.group(2)) or MONTHS.get(m.group(2)[:4]) or MONTHS.get(m.group(2)[:3])
        if month:
            return _iso_yy(m.group(3), month, int(m.group(1)), kind, today)
    digits = re.sub(r"[ .,/\-]", "", t)
    if re.fullmatch(r"\d{8}", digits):  # all separators lost: DDMMYYYY
        return _iso(int(digits[4:]), int(digits[2:4]), int(digits[:2]))
    return None


# Quotes, brackets and backslashes OCR reads from specks and guilloche beside a date (``23 NOV “96``,
# ``(08'DEC 2026``): no printed date has them. A bar is a slash (``JUL|JUIL``).
_STRAY_MARKS = str.maketrans({**{c: " " for c in "\"'“”‘’«»()[]{}\\!"}, "|": "/"})
_MONTH_LETTERS = str.maketrans("0156824", "OISGBZA")  # what OCR reads for the letters of a month name


def _month_read_as_digits(match: "re.Match") -> str:
    """A month name with letters read as digits (``0CT``, ``N0V``, ``AU6``, glued to its translation:
    ``0CTIOCT``) spelled with its letters again."""
    word = match.group(0)
    if word.isalpha() or sum(c.isalpha() for c in word) < 2:
        return word
    letters = word.translate(_MONTH_LETTERS)
    return letters if letters in MONTHS or (len(letters) > 5 and letters[:3] in MONTHS) else word


def _iso(y: int, m: int, d: int) -> str | None:
    if not 1900 <= y <= 2099:  # digits run together from something else ("1)5029581": 15.02.9581)
        return None
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


def _iso_yy(year: str, month: int, day: int, kind: str, today: date | None) -> str | None:
    if len(year) == 4:
        return _iso(int(year), month, day)
    return mrz_date(f"{int(year):02d}{month:02d}{day:02d}", kind="birth" if kind == "birth" else "expiry", today=today)


def _norm_name(s: str | None) -> str:
    from docauth.ocr.mrz import _clean

    if not s:
        return ""
    return _clean(transliterate(s))


def compare_field(name: str, viz: str | None, mrz: str | None) -> bool | None:
    """Does the printed value agree with the MRZ one? None when either is missing."""
    if not viz or not mrz:
        return None
    if name in ("surname", "given_names"):
        v, m = _norm_name(viz), _norm_name(mrz)
        # The MRZ truncates long names; a printed name that starts with it agrees.
        return v == m or (len(m) >= 10 and v.startswith(m))
    if name == "document_number":  # a printed number is read with I/O/Q as digits; some issuers use them
        return printed_document_number(viz) == printed_document_number(mrz)
    return viz.strip().upper() == mrz.strip().upper()


_NAME_DIGITS = str.maketrans("0158", "OISB")  # what OCR reads for letters in a name
_NUMBER_LETTERS = str.maketrans("OQDILZSBG", "000112586")  # and for digits in a number (both sides folded)


def printed_somewhere(name: str, mrz_value: str | None, phrases, *, today: date | None = None) -> bool:
    """Is the MRZ's value of ``name`` printed anywhere on the page, whichever label it sits under?

    Labels on phone photos are often illegible or matched to the wrong value (a date of issue taken for
    the expiry); the value itself is the better witness. Names must appear whole (as the MRZ spells them),
    dates must parse to the same day, document numbers must match up to OCR's digit/letter confusions.

    >>> page = [Phrase("Surname COLL1NS", 0, 0, 1, 1, 90), Phrase("02 MAY 2031", 0, 2, 1, 3, 90)]
    >>> printed_somewhere("surname", "COLLINS", page), printed_somewhere("surname", "COLLIN", page)
    (True, False)
    >>> printed_somewhere("expiry_date", "2031-05-02", page, today=date(2026, 1, 1))
    True
    >>> printed_somewhere("document_number", "L898902C3", [Phrase("No. 1898902C3", 0, 0, 1, 1, 80)])
    True
    """
    if not mrz_value:
        return False
    if name in ("surname", "given_names"):
        wanted = " " + _norm_name(mrz_value) + " "
        return len(wanted) > 3 and any(wanted in " " + _norm_name(p.text.upper().translate(_NAME_DIGITS)) + " "
                                       for p in phrases)
    if name in ("date_of_birth", "expiry_date"):
        kind = "birth" if name == "date_of_birth" else "expiry"
        return any(normalise_date(p.text, kind=kind, today=today) == mrz_value for p in phrases)
    if name == "document_number":
        wanted = re.sub(r"[^A-Z0-9]", "", mrz_value.upper()).translate(_NUMBER_LETTERS)
        return len(wanted) >= 5 and any(
            wanted in re.sub(r"[^A-Z0-9]", "", p.text.upper()).translate(_NUMBER_LETTERS) for p in phrases)
    return False


def printed_name_words(phrases) -> set[str]:
    """Every word printed on the page as an MRZ would spell it (upper case, transliterated; OCR's digits in
    names read as the letters they stand for), for :func:`docauth.ocr.mrz.confirm_in_print`.

    >>> sorted(printed_name_words([Phrase("Surname MÜLLER", 0, 0, 1, 1, 90), Phrase("C0LLINS", 0, 2, 1, 3, 80)]))
    ['COLLINS', 'MUELLER', 'MULLER', 'SURNAME']
    """
    words: set[str] = set()
    for p in phrases:
        text = p.text.upper().translate(_NAME_DIGITS)
        for spelling in (transliterate(text), _strip_accents(text)):
            words.update(re.findall(r"[A-Z]+", spelling))
    return words


# --- Tesseract -------------------------------------------------------------
def _label_field(text: str) -> str | None:
    """The field a printed label names, or None (not a label, or a label of a field we do not read).

    Keywords first; then, for labels the OCR got slightly wrong ("Sumame", "Date of brth"), the closest
    keyword or non-field label of each part of a bilingual label, when close enough.

    >>> _label_field("Nom / Surname"), _label_field("Naam / Sumame"), _label_field("Piace of birth")
    ('surname', 'surname', None)
    """
    t = _strip_accents(text.lower())
    t = re.sub(r"[^a-z /.]", "", t)
    closest, score = _closest_label(t)
    if closest is None and score >= 85:
        return None  # a label we do not read ("Place of birth"), however it was misread
    if any(k in t for k in NON_FIELD_LABELS) and "birth" not in t.replace("place of birth", ""):
        if "date of birth" not in t:
            return None
    for key, name in LABEL_KEYWORDS:
        if re.search(r"(^|[ /.])" + re.escape(key) + r"($|[ /.])", t):
            return name
    return closest if score >= LABEL_MATCH else None


def _label_fields(text: str) -> list[str]:
    """Every field a label phrase names: two labels side by side are often read as one phrase. The first is
    :func:`_label_field`'s; any other field's keyword counts where it is no part of a label we do not read.

    >>> _label_fields("DATE DE NAISSANCE / DATE OF BIRTH N DU DOCUMENT / DOCUMENT NO")
    ['date_of_birth', 'document_number']
    >>> _label_fields("DATE OF ISSUE   DOCUMENT NO"), _label_fields("PLACE OF BIRTH   SEX")
    (['document_number'], ['sex'])
    """
    first = _label_field(text)
    found = [first] if first else []
    t = _strip_accents(text.lower())
    not_read = [m.span() for key in NON_FIELD_LABELS for m in re.finditer(re.escape(key), t)]
    for name, keyword in _KEYWORD_PATTERNS:
        if name in found:
            continue
        for m in keyword.finditer(t):
            if not any(a <= m.start() < b for a, b in not_read):
                found.append(name)
                break
    return found


def _keyword_pattern(key: str) -> re.Pattern:
    """A label keyword as a whole word (or words) of lower-case text."""
    return re.compile(r"(?:^|(?<=[^a-z]))" + re.escape(key) + r"(?=$|[^a-z])")


_KEYWORD_PATTERNS = [(name, _keyword_pattern(key)) for key, name in LABEL_KEYWORDS]  # (field, pattern), in order


def _closest_label(text: str) -> tuple[str | None, float]:
    """(field or None for a non-field label, similarity 0-100) of the best-matching part of a label.

    A label read without the slash between its languages ("naam sumame") is matched by its words and pairs
    of words when the whole matches nothing well.

    >>> _closest_label("naam sumame"), _closest_label("piace of birth")[0]
    (('surname', 100.0), None)
    """
    parts = [p.strip(" .") for p in re.split(r"[/|]", text)]
    best = _closest_part(parts)
    words = parts[0].split() if len(parts) == 1 else []
    if best[0] < LABEL_MATCH and len(words) >= 2:
        windows = words + [" ".join(words[k:k + 2]) for k in range(len(words) - 1)]
        in_words = _closest_part(windows)
        if in_words[0] >= WORD_LABEL_MATCH:
            best = in_words
    return best[1], best[0]


LABEL_MATCH = 80  # similarity (0-100) from which a misread phrase counts as the label it resembles
# A word of a longer phrase must match a label keyword nearly exactly: a header's "DOCUMENTO NACIONAL"
# resembles "document no" (90) and is no label.
WORD_LABEL_MATCH = 95


def _closest_part(parts: list[str]) -> tuple[float, str | None]:
    from rapidfuzz import fuzz

    best: tuple[float, str | None] = (0.0, None)
    for part in parts:
        if len(part) < 4:
            continue
        for key, name in LABEL_KEYWORDS + [(k, None) for k in NON_FIELD_LABELS]:
            if len(key) >= 4:
                # "rn" printed small reads as "m": compare both ways of writing the key
                score = max(fuzz.ratio(part, key), fuzz.ratio(part, key.replace("rn", "m")))
                if score > best[0]:
                    best = (score, name)
    return best


def read_printed(upright_rgb: np.ndarray, *, mrz_top: float | None = None, width: int = 1000,
                 today: date | None = None, text_h: int = 24, engine=None, reread_numbers: bool = True,
                 field_reader=None) -> tuple[dict, list[Phrase]]:
    """(field -> normalised printed value, every phrase read).

    ``reread_numbers``: read what looks like a document number or a date again: with ``field_reader`` (a
    :class:`docauth.ocr.vizlines.PrintedFieldReader`, :func:`reread_with_model`), else with Tesseract at other
    sizes (:func:`reread_document_numbers`, numbers only).

    Text boxes are found with morphology (cheap), each box is cut from the
    grayscale document, scaled to a common text height and stacked into one
    tall "mosaic" that Tesseract reads in a single call (``--psm 6``), so the
    guilloche background and the photo never reach it. Labels are matched by
    keyword; fields whose label is illegible (small, blurred print on phone
    photos) are recovered from their content (dates, document number, sex,
    nationality, then names in reading order).
    """
    import cv2

    img, _scale = at_reading_width(upright_rgb, width)
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    if mrz_top is not None:
        gray = gray[: int(gray.shape[0] * mrz_top)]
    boxes = text_boxes(gray)
    phrases = ocr_boxes(gray, boxes, text_h=text_h, engine=engine)
    if reread_numbers and field_reader is not None:
        phrases = reread_with_model(gray, phrases, field_reader)
    elif reread_numbers:
        phrases = reread_document_numbers(gray, phrases, engine=engine)
    fields = fields_from_phrases(phrases, today=today)
    fill_from_content(fields, phrases, gray.shape, today=today)
    return fields, phrases


def at_reading_width(page: np.ndarray, width: int = 1000) -> tuple[np.ndarray, float]:
    """(the upright page scaled to ``width`` px wide, the scale); within 2 % it is read as it is."""
    import cv2

    h, w = page.shape[:2]
    s = width / w
    if abs(s - 1) <= 0.02:
        return page, 1.0
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    return cv2.resize(page, (int(w * s), int(h * s)), interpolation=interp), s


MAX_TEXT_BOXES = 60  # top to bottom; a passport page's last field (the expiry) is often past the 40th box
WORD_BOX_ASPECT = 1.5  # a box this many times wider than tall holds a word (two glyphs or more)


def text_boxes(gray: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Word-group boxes (x0, y0, x1, y1) of printed text: ink closed horizontally, filtered by shape."""
    import cv2

    h, w = gray.shape
    ink = cv2.adaptiveThreshold(cv2.GaussianBlur(gray, (3, 3), 0), 255, cv2.ADAPTIVE_THRESH_MEAN_C,
                                cv2.THRESH_BINARY_INV, 41, 18)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(ink, connectivity=8)
    st = stats[1:]
    cw, ch, area = st[:, 2], st[:, 3], st[:, 4]
    # glyph-like components only: drops the photo, guilloche strokes and specks before closing
    # Sizes relative to the page's short side: an upright page is landscape, but a whole photo taken upright
    # is portrait, and its card's print is as small against its height as a card's small print would be.
    side = min(h, w)
    glyph = (ch >= 0.012 * side) & (ch <= 0.09 * side) & (cw <= 25 * ch) & (area >= 0.05 * cw * ch)
    keep = np.zeros(n, np.uint8)
    keep[1:][glyph] = 255
    ink = keep[labels]
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (int(0.024 * w) | 1, 1)))
    n2, _l2, st2, _c2 = cv2.connectedComponentsWithStats(closed, connectivity=8)
    out = []
    for x, y, bw, bh in _without_tall_ends(st2, st[glyph]):
        if bh < 0.012 * side or bh > 0.1 * side or bw < 0.6 * bh:
            continue
        out.append((int(x), int(y), int(x + bw), int(y + bh)))
    if len(out) > MAX_TEXT_BOXES:
        # Clutter (a keyboard's keys, a page of print beside the card) would fill the budget from the top: words
        # go first, boxes of a glyph or two (a key, a speck) only while there is room.
        is_word = [b[2] - b[0] >= WORD_BOX_ASPECT * (b[3] - b[1]) for b in out]
        words = [b for b, w in zip(out, is_word) if w]
        glyphs = sorted((b for b, w in zip(out, is_word) if not w), key=lambda b: (b[1], b[0]))
        out = words + glyphs[:max(0, MAX_TEXT_BOXES - len(words))]
    out.sort(key=lambda b: (b[1], b[0]))
    return out[:MAX_TEXT_BOXES]


# A piece of background hair-line (guilloche) beside a word's first or last glyph is kept as a glyph and the
# closing joins it to the word: the box grows by half a line and Tesseract misreads the word (KOWALSKI read
# 'GE'). An end glyph this many times taller than the word's median glyph is left out of the box. Dev fronts
# (300 each, seeds 477,000 / 479,000): surname wrong 32 -> 30 / 34 -> 32; of all fields 16 fixed, 7 lost.
TALL_END_GLYPH = 1.6


def _without_tall_ends(word_stats: np.ndarray, glyph_stats: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) of each closed word box (rows of ``word_stats``, background first), less a first or last
    glyph (rows of ``glyph_stats``: the glyphs kept, which the closing joined into words) far taller than the
    word's others."""
    words = word_stats[1:, :4].astype(int)
    glyphs = glyph_stats[:, :4].astype(int)
    boxes = [tuple(int(v) for v in row) for row in words]
    if not len(words) or not len(glyphs):
        return boxes
    # a glyph lies inside the box of the word the closing made of it (boxes only grow by joining)
    inside = ((words[None, :, 0] <= glyphs[:, None, 0]) & (words[None, :, 1] <= glyphs[:, None, 1])
              & (glyphs[:, None, 0] + glyphs[:, None, 2] <= words[None, :, 0] + words[None, :, 2])
              & (glyphs[:, None, 1] + glyphs[:, None, 3] <= words[None, :, 1] + words[None, :, 3]))
    for w in np.flatnonzero(inside.sum(0) >= 4):
        g = glyphs[inside[:, w]]
        g = g[np.argsort(g[:, 0], kind="stable")]
        median = float(np.median(g[:, 3]))
        ends = [k for k in (0, len(g) - 1) if g[k, 3] > TALL_END_GLYPH * median]
        if not ends:
            continue
        rest = np.delete(g, ends, axis=0)
        x0, y0 = rest[:, 0].min(), rest[:, 1].min()
        x1, y1 = (rest[:, 0] + rest[:, 2]).max(), (rest[:, 1] + rest[:, 3]).max()
        boxes[w] = (int(x0), int(y0), int(x1 - x0), int(y1 - y0))
    return boxes


def box_crop(gray: np.ndarray, box, text_h: int) -> np.ndarray:
    """The text box (x0, y0, x1, y1) with a margin of a fifth of its height, scaled to ``text_h`` rows and
    contrast-stretched (uint8, dark print on white): what Tesseract and the printed-field recogniser read."""
    import cv2

    H, W = gray.shape
    x0, y0, x1, y1 = box
    m = max(2, int(0.2 * (y1 - y0)))
    crop = gray[max(0, y0 - m): min(H, y1 + m), max(0, x0 - m): min(W, x1 + m)]
    f = text_h / crop.shape[0]
    crop = cv2.resize(crop, (max(1, int(crop.shape[1] * f)), text_h),
                      interpolation=cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA)
    # local contrast stretch: faint labels and dark values end up alike
    lo, hi = np.percentile(crop, 2), np.percentile(crop, 98)
    return np.clip((crop.astype(np.float32) - lo) * 255.0 / max(hi - lo, 20), 0, 255).astype(np.uint8)


def ocr_boxes(gray: np.ndarray, boxes, text_h: int = 24, engine=None) -> list[Phrase]:
    """Tesseract over a mosaic of the boxes; one Phrase per box (original coordinates).

    ``engine``: a :mod:`docauth.ocr.tesseract` engine (default: this process's ``auto`` one).
    """
    from docauth.ocr.tesseract import tesseract_engine

    if not boxes:
        return []
    engine = engine or tesseract_engine()
    strips, spans, y = [], [], 0
    gap = text_h // 2
    for box in boxes:
        crop = box_crop(gray, box, text_h)
        strips.append(crop)
        spans.append((y, y + text_h))
        y += text_h + gap
    width = max(s.shape[1] for s in strips) + 2 * gap
    mosaic = np.full((y + gap, width), 255, np.uint8)
    for crop, (a, b) in zip(strips, spans):
        mosaic[gap + a: gap + b, gap: gap + crop.shape[1]] = crop
    data = _read_mosaic(engine, mosaic, len(boxes), text_h, gap)
    texts: list[list[tuple[int, str]]] = [[] for _ in boxes]
    confs: list[list[float]] = [[] for _ in boxes]
    for i, t in enumerate(data["text"]):
        t = (t or "").strip()
        if not t or float(data["conf"][i]) < 0:
            continue
        cy = data["top"][i] + data["height"][i] / 2 - gap
        k = int(cy // (text_h + gap))
        if 0 <= k < len(boxes):
            texts[k].append((data["left"][i], t))
            confs[k].append(float(data["conf"][i]))
    phrases = []
    for (x0, y0, x1, y1), words, cs in zip(boxes, texts, confs):
        if words:
            text = " ".join(t for _x, t in sorted(words))
            phrases.append(Phrase(text, x0, y0, x1, y1, min(cs)))
    return phrases


# A document number is random letters and digits: no word context helps Tesseract's recogniser, which at the
# mosaic's text height reads 5 as S, 8 as B, 9 as 0, and at times both ('SG5KDLUGE' -> 'SGS5KDLUGE'). Boxes
# that look like one are read again, in a mosaic of their own, at two larger text heights and the majority of
# the three reads taken (without one, the 32 px read). Chosen on 200 generated card fronts (seed 462,000; the
# mosaic read and its fields alone, without the reader's other reads): document number 137 -> 148 exact (no
# majority -> the 40 px read: 146; the 32 px read alone 146, the 40 px alone 143; the re-read boxes in the
# whole page's mosaic instead of their own: the same within 1 at twice the cost).
REREAD_TEXT_HEIGHTS = (32, 40)


def reread_document_numbers(gray: np.ndarray, phrases: list[Phrase], engine=None) -> list[Phrase]:
    """``phrases`` with those that look like a document number read again (see REREAD_TEXT_HEIGHTS)."""
    chosen = [i for i, p in enumerate(phrases) if _looks_like_document_number(p.text)]
    if not chosen:
        return phrases
    boxes = [phrases[i].box for i in chosen]
    rereads = []
    for height in REREAD_TEXT_HEIGHTS:
        by_box = {p.box: p.text
                  for p in ocr_boxes(gray, boxes, text_h=height, engine=engine)}
        rereads.append([by_box.get(box) for box in boxes])
    out = list(phrases)
    for k, i in enumerate(chosen):
        reads = [phrases[i].text] + [texts[k] for texts in rereads]
        out[i] = Phrase(_majority_read(reads), phrases[i].x0, phrases[i].y0, phrases[i].x1, phrases[i].y1,
                        phrases[i].conf)
    return out


def reread_with_model(gray: np.ndarray, phrases: list[Phrase], field_reader) -> list[Phrase]:
    """``phrases`` with the document numbers, dates and some names among them as the printed-field recogniser
    reads them.

    Tesseract's read picks the boxes (a number's shape, or two digits at least; a name's capitals); the model's
    read replaces it when it is a date, or a document number where Tesseract read no date (a label box stays
    Tesseract's), or a name in which it reads a letter Tesseract cannot (:func:`_spells_what_tesseract_lacks`).
    """
    numbers = {i for i, p in enumerate(phrases) if _number_or_date(p.text)}
    names = {i for i, p in enumerate(phrases) if _name_like(p.text)}  # a one-word name is number-shaped too
    chosen = sorted(numbers | names)
    if not chosen:
        return phrases
    out = list(phrases)
    for i, read in zip(chosen, field_reader.read(gray, [phrases[i].box for i in chosen])):
        p, text = phrases[i], read.text.strip()
        if read.confidence < FIELD_READ_MIN_CONFIDENCE:
            continue
        # A date stays a date: "13.02.1969" misread is still shaped like a number once its dots are gone.
        as_number = i in numbers and (normalise_date(text) is not None or (
            _shaped_like_document_number(text) and normalise_date(p.text) is None))
        if as_number or (i in names and (_spells_what_tesseract_lacks(p.text, text)
                                         or _surer_of_each_letter(p, text, read.confidence))):
            out[i] = Phrase(text, p.x0, p.y0, p.x1, p.y1, p.conf)
    return out


def _name_like(text: str) -> bool:
    """Tesseract's read of a box that may be a name: three capitals or more, no digit, not a label."""
    return (sum(c.isupper() for c in text) >= 3 and not any(c.isdigit() for c in text)
            and not _mostly_lower_case(text) and not _label_field(text))


# Tesseract's English model has no Æ, Ø or ẞ: it reads ÆRØBØ as "ROBO" or "FEROBOS", STRAẞER as "STRAGER".
# The recogniser, trained on names that have them, spells them as ICAO 9303 transliterates them.
_TRANSLITERATED_LETTERS = re.compile("AE|OE|SS")
NAME_READ_MIN_SIMILARITY = 50  # 0-100: the two reads are of the same name (ROBO / AEROEBOE: 67)


def _spells_what_tesseract_lacks(tesseract_read: str, model_read: str) -> bool:
    """The model's read of a name box has more of those letters' spellings (AE, OE, SS) than Tesseract's, and is
    otherwise the same name.

    >>> _spells_what_tesseract_lacks("ROBO", "AEROEBOE"), _spells_what_tesseract_lacks("STRAGER", "STRASSER")
    (True, True)
    >>> _spells_what_tesseract_lacks("“FEROBS", "AEROEBOE"), _spells_what_tesseract_lacks("JONSSON", "JONSSON")
    (True, False)
    >>> _spells_what_tesseract_lacks("KIM", "MOSSER"), _spells_what_tesseract_lacks("ROBO", "AEROEB0E")
    (False, False)
    """
    from rapidfuzz import fuzz

    letters = re.sub(r"[^A-Z \-']", "", _strip_accents(tesseract_read.upper())).strip()  # quotes read for specks
    return (len(_TRANSLITERATED_LETTERS.findall(model_read)) > len(_TRANSLITERATED_LETTERS.findall(letters))
            and all(c.isalpha() or c in " -'" for c in model_read)
            and fuzz.ratio(letters, model_read) >= NAME_READ_MIN_SIMILARITY)


# Tesseract misreads a letter or two of a name it is unsure of (IONESCU read TONESCU at 16, ÖZTÜRK OzTORK at 84)
# where the recogniser reads every letter surely: its read, letter for letter in place of Tesseract's, is taken.
# A read of another length is not, but for a letter Tesseract added at either end (a speck: SJOVANOVIC): the
# recogniser drops letters it merges (LUNDQVIST read LNDVIST at 0.999).
SURE_NAME_READ = 0.99
TESSERACT_SURE = 90
MAX_LETTERS_MISREAD = 2


def _surer_of_each_letter(tesseract: Phrase, model_read: str, model_confidence: float) -> bool:
    """The recogniser read the name box surely where Tesseract was not, with as many letters, a few different.

    >>> at = lambda text, conf: Phrase(text, 0, 0, 100, 20, conf)
    >>> sure = lambda text, conf, model_read, p=1.0: _surer_of_each_letter(at(text, conf), model_read, p)
    >>> sure("TONESCU", 16.2, "IONESCU"), sure("OzTORK", 84, "OZTURK")
    (True, True)
    >>> sure("LUNDQVIST", 64.9, "LNDVIST", 0.999), sure("LUNDQVIST", 64.9, "LUNDVIST")      # letters dropped
    (False, False)
    >>> sure("SJOVANOVIC", 36.7, "JOVANOVIC"), sure("MILLER", 96.0, "MULLER"), sure("SMITH", 50, "JONES")
    (True, False, False)
    """
    letters = _strip_accents(tesseract.text.upper())
    letters = "".join(c for c in letters if c.isalpha() or c == " ").strip()
    if (model_confidence < SURE_NAME_READ or tesseract.conf >= TESSERACT_SURE
            or not all(c.isalpha() or c == " " for c in model_read)):
        return False
    if len(letters) == len(model_read) + 1:  # a speck at the box's end read as a letter (SJOVANOVIC)
        return model_read in (letters[1:], letters[:-1])
    misread = sum(a != b for a, b in zip(letters, model_read))
    return len(letters) == len(model_read) and 0 < misread <= MAX_LETTERS_MISREAD


# The recogniser's read replaces Tesseract's from this confidence (geometric mean of its characters'
# probabilities): 350 development fronts, wrong numbers 35 at 0.6, 34 at 0.8 (docs/training.md).
FIELD_READ_MIN_CONFIDENCE = 0.8


def _number_or_date(text: str) -> bool:
    """Tesseract's read of a box that may be a document number or a date: two digits, or one word of 6-10
    capitals and digits (a number's digits all read as letters: 'RLRTRGBAK' for RLRTRG8AK)."""
    word = re.sub(r"[^A-Z0-9]", "", text)
    return (sum(c.isdigit() for c in text) >= 2 or (len(text.split()) == 1 and 6 <= len(word) <= 10)) \
        and not _label_field(text)


def _looks_like_document_number(text: str) -> bool:
    return _shaped_like_document_number(text) and not _label_field(text) and normalise_date(text) is None


def _shaped_like_document_number(text: str) -> bool:
    """6-10 letters and digits, one digit at least, as read (separators aside)."""
    return bool(_DOCNO.match(re.sub(r"[^A-Z0-9]", "", text.upper()) or "-"))


def _majority_read(reads: list[str | None]) -> str:
    """The read most of ``reads`` (mosaic, then each of REREAD_TEXT_HEIGHTS) agree on as a document number;
    without a majority the first re-read, else the mosaic's.

    >>> _majority_read(["SGS5KDLUGE", "SG5KDLUGE", "SG5KDLUGE"]), _majority_read(["MS5PYY4SW", "M5PYY4SW", None])
    ('SG5KDLUGE', 'M5PYY4SW')
    >>> _majority_read(["DTEDSF88X2", None, None])
    'DTEDSF88X2'
    """
    numbers = [printed_document_number(t) if t else None for t in reads]
    for t, n in zip(reads, numbers):
        if n is not None and numbers.count(n) >= 2:
            return t
    return next(t for t in reads[1:] + reads[:1] if t)


def _read_mosaic(engine, mosaic: np.ndarray, n: int, text_h: int, gap: int) -> dict:
    """Words of the mosaic; read in two halves at once where a call is cheap (Tesseract in process)."""
    if not getattr(engine, "concurrent", False) or n < 8:
        return engine.data(mosaic)
    # Cut in the white gap between strip n//2 - 1 and n//2; each half gets its margin back.
    cut = gap + (n // 2) * (text_h + gap) - gap // 2
    margin = np.full((gap // 2, mosaic.shape[1]), 255, np.uint8)
    top, bottom = engine.data_each([np.vstack([mosaic[:cut], margin]), np.vstack([margin, mosaic[cut:]])])
    shift = cut - len(margin)
    return {key: top[key] + ([v + shift for v in bottom[key]] if key == "top" else bottom[key]) for key in top}


_DOCNO = re.compile(r"^(?=.*\d)[A-Z0-9]{6,10}$")
# Words of a document's header or title, in the languages documents print them (identity card, passport,
# republic, kingdom...): no name. Words of seven letters or more also match misread (rapidfuzz ratio >= 80:
# 'DENTITE', 'SUSWEIS'); shorter ones only exactly (CARLA is not CARTA).
_HEADER_WORDS = frozenset({
    "IDENTITY", "CARD", "PASSPORT", "REPUBLIC", "KINGDOM", "REPUBLIQUE", "PASSEPORT", "CARTE", "SPECIMEN", "SAMPLE",
    "MUSTER", "OF", "THE", "FEDERAL", "STATE", "PERSONALAUSWEIS", "REISEPASS",
    "IDENTITE", "IDENTITEIT", "IDENTITEITSKAART", "IDENTIDAD", "IDENTIDADE", "IDENTITA", "IDENTITETSKORT",
    "HENKILOKORTTI", "AUSWEIS", "PERSONAL", "DOCUMENTO", "DOCUMENT", "NACIONAL", "NATIONAL", "NATIONALE",
    "NAZIONALE", "PASAPORTE", "PASSAPORTO", "PASSAPORTE", "REPUBLICA", "REPUBBLICA", "REPUBLIK", "REPUBLIKA",
    "ROYAUME", "KONINKRIJK", "KONUNGARIKET", "KONGERIKET", "BUNDESREPUBLIK"})
FUZZY_TITLE_WORD_MIN_LENGTH = 7
TITLE_WORD_MATCH = 80
_LONG_HEADER_WORDS = tuple(sorted(w for w in _HEADER_WORDS if len(w) >= FUZZY_TITLE_WORD_MIN_LENGTH))


def _header_words(letters: str) -> bool:
    """Does the phrase hold a header or title word (exactly, or misread when long)?

    >>> _header_words("PERSONAL SUSWEIS"), _header_words("ADENTITE"), _header_words("CARLA"), _header_words("VIRTANEN")
    (True, True, False, False)
    """
    from rapidfuzz import fuzz

    words = set(_strip_accents(letters).split())
    if words & _HEADER_WORDS:
        return True
    return any(fuzz.ratio(w, title) >= TITLE_WORD_MATCH for w in words if len(w) >= FUZZY_TITLE_WORD_MIN_LENGTH
               for title in _LONG_HEADER_WORDS)


# The top of a page is its header (issuing state, "IDENTITY CARD"), whose words are no names; a value there is
# still one when a small label sits right above it, left-aligned (a card cropped close, a layout printing the
# surname first): dev fronts (seed 462,000) surnames 254 -> 258, given names 251 -> 253 of 300; 240 others
# (seed 468,000) unchanged.
HEADER_BAND = 0.14


def label_above(label, value) -> bool:
    """Boxes (x0, y0, x1, y1): ``label`` sits right above ``value``, left-aligned with it (within 1.5 label
    heights): how documents print a field. Also decides which way up a page without an MRZ is."""
    label_h = label[3] - label[1]
    return abs(value[0] - label[0]) < 1.5 * label_h and 0 <= value[1] - label[3] < 1.5 * label_h


def _under_a_label(value: Phrase, phrases: list[Phrase]) -> bool:
    """A smaller phrase right above ``value`` and left-aligned with it: the label-over-value layout."""
    box = (value.x0, value.y0, value.x1, value.y1)
    return any(p is not value and p.h < 0.75 * value.h and len(p.text.strip()) >= 3
               and label_above((p.x0, p.y0, p.x1, p.y1), box) for p in phrases)


EXPIRY_HORIZON_YEARS = 15


def fill_from_content(fields: dict, phrases: list[Phrase], shape, today: date | None = None) -> None:
    """Fields whose label was not read, recognised by what they look like (in place)."""
    today = today or date.today()
    H, W = shape[:2]
    dates = []
    for p in phrases:
        d = normalise_date(p.text, kind="birth", today=today)
        d_exp = normalise_date(p.text, kind="expiry", today=today)
        if d or d_exp:
            dates.append((p, d, d_exp))
    # A two-digit year that reads as an expiry in the next EXPIRY_HORIZON_YEARS ("12 FEB 33") is that expiry,
    # not a birth 93 years ago: a card's validity is common, a holder that old rare.
    horizon = date(today.year + EXPIRY_HORIZON_YEARS, today.month, min(today.day, 28)).isoformat()
    coming = {id(p) for p, d, e in dates if e is not None and e != d and today.isoformat() < e <= horizon}
    birth_phrase = None
    if "date_of_birth" not in fields:
        # not the labelled expiry again: "14 APR 33" also reads as a birth in 1933
        births = [(d, p) for p, d, e in dates if d and d <= today.isoformat()
                  and (e is None or e != fields.get("expiry_date")) and id(p) not in coming]
        if births:
            fields["date_of_birth"], birth_phrase = min(births, key=lambda dp: dp[0])
    if "expiry_date" not in fields:
        exps = [e for p, _d, e in dates if e and e != fields.get("date_of_birth") and p is not birth_phrase]
        # a date alone is the expiry only when it cannot be a birth date (it is still to come)
        future = [e for p, d, e in dates if e and (d is None or d > today.isoformat() or id(p) in coming)]
        if len(exps) >= 1 and (len(dates) >= 2 or "date_of_birth" in fields or future):
            fields["expiry_date"] = max(exps)
    used = {p.text for p, _d, _e in dates}
    if "document_number" not in fields:
        cands = [printed_document_number(p.text) for p in phrases
                 if _shaped_like_document_number(p.text) and p.text not in used
                 and len(p.text.split()) == 1]
        if cands:
            # printed twice on many cards (field and corner): prefer the repeated one
            best = max(cands, key=lambda c: (cands.count(c), len(c)))
            fields["document_number"] = best
    if "sex" not in fields:
        for p in phrases:
            if p.text.strip().upper() in ("M", "F", "X"):
                fields["sex"] = p.text.strip().upper()
                break
    if "nationality" not in fields:
        for p in phrases:
            code = nationality_code(p.text, strict=True) if len(p.text.split()) <= 2 else None
            if code and p.y0 > 0.15 * H:
                fields["nationality"] = code
                break
    if "surname" in fields and "given_names" in fields:
        return
    # Names: value-sized alphabetic phrases below the header, in reading order. A document prints its values
    # in one size: the dates found give it; without them, the larger phrases (text beside the document, a
    # page of small print, would otherwise set it to a label's size and let label fragments pass for names).
    date_heights = [p.h for p, _d, _e in dates]
    heights = sorted(p.h for p in phrases if len(p.text.strip()) >= 2)
    big = float(np.median(date_heights)) if date_heights else heights[int(len(heights) * 0.7)] if heights else 0
    names = []
    for p in sorted(phrases, key=lambda q: (q.y0, q.x0)):
        t = p.text.strip()
        letters = re.sub(r"[^A-ZÀ-ÞẞŠŽČĆĐŁŃŚŹŻĘĄ' \-]", "", t.upper())
        in_header = p.y0 < HEADER_BAND * H and not _under_a_label(p, phrases)
        if in_header or p.h < 0.8 * big or len(letters) < 2 or len(letters) < 0.8 * len(t.replace(" ", "")):
            continue
        if _mostly_lower_case(t, share=1.0, min_letters=2):
            # a label read badly ("tong agen" for "Given names"), or specks read as "ee", "me": values are
            # printed in capitals
            continue
        if _header_words(letters) or nationality_code(letters, strict=True) or _label_field(t):
            continue
        if letters.strip() in ("M", "F", "X", "P"):
            continue
        names.append((re.sub(r"\s+", " ", letters).strip(), p))
    taken = {fields.get("surname"), fields.get("given_names")}
    others = [p for p, _d, _e in dates] + [p for n, p in names if n in taken]
    names = [n for n, _p in _in_a_value_column([(n, p) for n, p in names if n not in taken], others, big)]
    if "surname" not in fields and names:
        fields["surname"] = names.pop(0)
    if "given_names" not in fields and names:
        fields["given_names"] = names.pop(0)


# How far (in value text heights) a name's left edge may lie from another value's to share its column. On 350
# generated fronts 0.5-3.0 all gave surname wrong 41 -> 38 (given names 46 -> 41-43).
COLUMN_TOLERANCE = 1.0


def _in_a_value_column(names: list[tuple[str, Phrase]], others: list[Phrase], text_h: float
                       ) -> list[tuple[str, Phrase]]:
    """The (name, phrase) candidates whose left edge lines up with another value's (a date's, another name's):
    documents print their values in columns, and a fragment of the portrait or of the background read as
    letters lines up with none. All of them when none does.

    >>> at = lambda x, y: Phrase("X", x, y, x + 100, y + 20, 90.0)
    >>> names = [("LO", at(400, 190)), ("THOMPSON", at(542, 204)), ("EMMA", at(547, 239))]
    >>> [n for n, _p in _in_a_value_column(names, [at(555, 309)], 20)]
    ['THOMPSON', 'EMMA']
    >>> [n for n, _p in _in_a_value_column(names[:1], [at(555, 309)], 20)]
    ['LO']
    """
    tolerance = COLUMN_TOLERANCE * max(text_h, 8.0)
    phrases = [p for _n, p in names] + list(others)
    aligned = [(n, p) for n, p in names if any(q is not p and abs(p.x0 - q.x0) <= tolerance for q in phrases)]
    return aligned or names


def _mostly_lower_case(text: str, share: float = 0.5, min_letters: int = 3) -> bool:
    """More than ``share`` of the letters lower case (all of them at 1.0): a label's small print, read
    badly (documents print names and values in capitals; Tesseract reads some capitals as small letters).

    >>> _mostly_lower_case("tong agen"), _mostly_lower_case("iain SANTOS"), _mostly_lower_case("PETER")
    (True, False, False)
    >>> _mostly_lower_case("Lucia"), _mostly_lower_case("Lucia", share=1.0)
    (True, False)
    >>> _mostly_lower_case("ee", share=1.0), _mostly_lower_case("ee", share=1.0, min_letters=2)
    (False, True)
    """
    letters = [c for c in text if c.isalpha()]
    lower = sum(c.islower() for c in letters)
    return len(letters) >= min_letters and (lower == len(letters) if share >= 1.0 else lower > share * len(letters))


def fields_from_phrases(phrases: list[Phrase], today: date | None = None) -> dict:
    labels = [(name, p) for p in phrases for name in _label_fields(p.text)]
    out: dict = {}
    used = set()
    for name, lab in sorted(labels, key=lambda t: t[1].y0):
        if name in out:
            continue
        best = None
        near = max(2.5 * lab.h, 25)
        # Two labels side by side read as one phrase ('DATE OF BIRTH  DOCUMENT NO'): the field named far into
        # it takes the value that starts nearest before its keyword, not the one under the phrase's start.
        keyword_x = _keyword_x(name, lab)
        merged = keyword_x - lab.x0 > near
        start = _label_start(lab, phrases)
        for i, p in enumerate(phrases):
            if p is lab or i in used or _label_field(p.text):
                continue
            dy = p.y0 - lab.y1
            if not (-0.3 * lab.h <= dy <= 2.2 * max(lab.h, 8)):
                continue
            if merged:
                if not (lab.x0 - near <= p.x0 <= keyword_x + near):
                    continue
                dx = max(0.0, keyword_x - p.x0)
            else:
                dx = abs(p.x0 - start)
                if dx > near:
                    continue
            if p.h < 0.8 * lab.h:
                continue  # another small label, not a value
            score = dy + dx + (3 * lab.h if _mostly_lower_case(p.text) else 0)
            if best is None or score < best[0]:
                best = (score, i, p)
        if best is None:
            continue
        used.add(best[1])
        value = _clean_value(name, best[2].text, today)
        if value is None and name in DATE_FIELDS:
            value = _date_continued_on_the_line(name, best[2], phrases, used, today)
        if value:
            out[name] = value
    return out


DATE_FIELDS = ("date_of_birth", "expiry_date")


def _label_start(label: Phrase, phrases: list[Phrase]) -> float:
    """Where a label begins: its own left edge, or that of its other language's half when Tesseract read the
    two as separate phrases on one line, split at the slash ('Na.' + '/ Surname' for 'Naam / Surname'): the
    value lines up with the whole label, not with its second half.

    >>> at = lambda text, x0, x1: Phrase(text, x0, 119, x1, 132, 90.0)
    >>> _label_start(at("/ Surname", 364, 440), [at("Na.", 321, 337), at("/ Surname", 364, 440)])
    321
    >>> _label_start(at("Surname", 364, 440), [at("Sex", 200, 230), at("Surname", 364, 440)])
    364
    """
    for p in phrases:
        same_line = min(p.y1, label.y1) - max(p.y0, label.y0) > 0.5 * label.h
        before = 0 <= label.x0 - p.x1 <= LABEL_HALVES_GAP * label.h
        split = label.text.lstrip().startswith("/") or p.text.rstrip().endswith("/")
        if p is not label and same_line and before and split and not _label_fields(p.text):
            return p.x0
    return label.x0


LABEL_HALVES_GAP = 2.5  # label heights between a bilingual label's halves read apart (a word and a slash)


def _keyword_x(name: str, label: Phrase) -> float:
    """Where in ``label`` the first keyword of field ``name`` starts (x, in proportion to the characters before
    it); the label's start when no keyword of it is there (a label matched fuzzily).

    >>> _keyword_x("document_number", Phrase("DATE OF BIRTH    DOCUMENT NO", 100, 0, 380, 12, 90.0))
    270.0
    >>> _keyword_x("date_of_birth", Phrase("DATE OF BIRTH    DOCUMENT NO", 100, 0, 380, 12, 90.0))
    100.0
    """
    t = _strip_accents(label.text.lower())
    starts = [m.start() for field_name, keyword in _KEYWORD_PATTERNS if field_name == name for m in keyword.finditer(t)]
    if not starts or not t:
        return label.x0
    return label.x0 + (label.x1 - label.x0) * min(starts) / len(t)


def _date_continued_on_the_line(name: str, start: Phrase, phrases: list[Phrase], used: set, today: date | None
                                ) -> str | None:
    """A labelled date whose value was cut in two text boxes (``07`` | ``JAN/JAN 71``: the day apart from a
    bilingual month): the value with the next one or two phrases to its right on the same line."""
    following = sorted(((i, p) for i, p in enumerate(phrases)
                        if i not in used and p is not start and _same_line_after(start, p) and not _label_field(p.text)),
                       key=lambda ip: ip[1].x0)
    text, last = start.text, start
    for i, p in following[:2]:
        if p.x0 - last.x1 > 2.5 * max(start.h, 8):
            break
        text, last = f"{text} {p.text}", p
        value = _clean_value(name, text, today)
        if value:
            used.add(i)
            return value
    return None


def _same_line_after(left: Phrase, right: Phrase) -> bool:
    overlap = min(left.y1, right.y1) - max(left.y0, right.y0)
    return overlap >= 0.5 * min(left.h, right.h) and right.x0 >= left.x1 - 0.2 * left.h


# Most issuers leave I, O and Q out of document numbers, and Tesseract reads a printed 0 as O about as often
# as not: a printed document number is read with the digits (card fronts: 60 -> 68 % exact on 60 generated
# fronts). Some issuers do use them (two of the real specimens: ID9875401, K682T8YLO): where there is an MRZ its
# value is kept, and the comparison with it, like the text matcher, treats I/O/Q and 1/0 as the same.
_DOCUMENT_NUMBER_DIGITS = str.maketrans("OQI", "001")
# Symbols Tesseract reads for the letter or digit they resemble (``$Z2954432``, ``3WKN&XABR``, ``¥22N1VL1``).
_SYMBOL_LOOKALIKES = str.maketrans({"$": "S", "&": "8", "¥": "Y", "€": "E", "£": "E", "§": "S"})


def printed_document_number(text: str) -> str | None:
    """A document number as printed, without separators, I/O/Q read as the digits they stand for.

    >>> printed_document_number("MOMSLFB2E"), printed_document_number("lyWO5-VGHZ"), printed_document_number("--")
    ('M0MSLFB2E', 'LYW05VGHZ', None)
    >>> printed_document_number("$Z2954432"), printed_document_number("3WKN&XABR")
    ('SZ2954432', '3WKN8XABR')
    """
    text = text.upper().translate(_SYMBOL_LOOKALIKES)
    return re.sub(r"[^A-Z0-9]", "", text).translate(_DOCUMENT_NUMBER_DIGITS) or None


def _clean_value(name: str, text: str, today: date | None) -> str | None:
    text = text.strip()
    if name in ("date_of_birth", "expiry_date"):
        return normalise_date(text, kind="birth" if name == "date_of_birth" else "expiry", today=today)
    if name == "sex":
        m = re.search(r"\b([MFX])\b", text.upper())
        return m.group(1) if m else None
    if name == "document_number":
        tokens = text.split()
        token = max(tokens, key=len)
        joined = "".join(tokens)
        if len(token) < 8 and 6 <= len(joined) <= 10 and joined.isalnum() \
                and all(len(t) <= 3 for t in tokens if t is not token):
            token = joined  # a gap read inside the number ("12WHGF 2K")
        return printed_document_number(token)
    if name == "nationality":
        return nationality_code(text)
    if name in ("surname", "given_names"):
        value = re.sub(r"[^A-ZÀ-ÖØ-ÞẞŠŽČĆĐŁŃŚŹŻĘĄŅĶĻĢĪĀŪĒŌŐŰŘĚŮŤĎŇĹĽŔŞŢĞİ' \-]", "", text.upper())
        return re.sub(r"\s+", " ", value).strip() or None
    return text


_NATIONALITY: dict | None = None


def _nationality_lexicon() -> dict:
    """Printed nationality words -> ICAO code, from the country table the documents use."""
    global _NATIONALITY
    if _NATIONALITY is None:
        table: dict = {}
        try:
            from docauth.synth.identity import COUNTRIES  # (code, english name, local name, adjective)
        except ImportError:
            COUNTRIES = []
        for row in COUNTRIES:
            code = row[0]
            table[code] = code
            for word in row[1:]:
                if word:
                    table[_strip_accents(str(word).upper())] = code
        _NATIONALITY = table
    return _NATIONALITY


def nationality_code(text: str, strict: bool = False) -> str | None:
    t = _strip_accents(text.upper()).strip()
    t = re.sub(r"[^A-Z ]", "", t).strip()
    lex = _nationality_lexicon()
    if t in lex:
        return lex[t]
    for token in t.split():
        if token in lex:
            return lex[token]
    if not strict and re.fullmatch(r"[A-Z]{3}", t):
        return t
    return None
