"""Printed values against the MRZ's: the same name, number or date, as OCR reads them.

>>> compare_field("surname", "MÜLLER", "MUELLER"), compare_field("date_of_birth", "1974-08-12", "1974-08-12")
(True, True)
>>> compare_field("document_number", "1D4630718", "ID4630718"), compare_field("document_number", "1D46", "1D47")
(True, False)
>>> compare_field("date_of_birth", "1925-03-04", "2025-03-04"), compare_field("date_of_birth", "1925-03-04", "1925-04-03")
(True, False)
"""

from __future__ import annotations

import re
import unicodedata

from docauth.ocr.mrz.format import clean_field, transliterate


# Letters whose stroke is no combining accent (NFKD keeps them whole): their plain letter, as a recogniser
# without the glyph reads them and as one of ICAO 9303's transliterations spells them.
_STROKED = str.maketrans("ØøŁłĐđĦħ", "OoLlDdHh")


def strip_accents(s: str) -> str:
    """``s`` in plain letters.

    >>> strip_accents("ØVERLIDEN Müller Łukasz Đorđe")
    'OVERLIDEN Muller Lukasz Dorde'
    """
    return "".join(c for c in unicodedata.normalize("NFKD", s.translate(_STROKED)) if not unicodedata.combining(c))


def name_key(s: str | None) -> str:
    """A name as an MRZ spells it: ICAO-transliterated upper-case letters, words apart."""
    if not s:
        return ""
    return clean_field(transliterate(s))


def name_keys(s: str | None) -> set[str]:
    """The ways an MRZ may spell a printed name: ICAO 9303 turns a hyphen into a filler, and some issuers drop it.

    >>> sorted(name_keys("BRUNHOLD-ESCH")), name_keys("ERIKSSON")
    (['BRUNHOLD ESCH', 'BRUNHOLDESCH'], {'ERIKSSON'})
    """
    if not s:
        return {""}
    return {name_key(s), name_key(re.sub(r"\s*-\s*", "", s))}


def same_name(printed: str | None, mrz: str | None) -> bool:
    """Is ``printed`` the name an MRZ spells ``mrz``, either transliteration of its diacritics, its hyphens either
    way (:func:`name_keys`)?

    >>> same_name("Brunhold-Esch", "BRUNHOLDESCH"), same_name("BRUNHOLD ESCH", "BRUNHOLDESCH"), same_name("Müller", "MULLER")
    (True, False, True)
    """
    wanted = name_key(mrz)
    return any(wanted in name_keys(spelling) for spelling in (printed, strip_accents(printed or "")))


def compare_field(name: str, printed: str | None, mrz: str | None, *, zone_full: bool = False) -> bool | None:
    """Does the printed value agree with the MRZ one? None when either is missing. ``zone_full``: the zone's
    names run to the end of its name field, so it may have cut them short however short the cut name is.

    >>> compare_field("given_names", "JEAN EINAR", "JEAN E"), compare_field("given_names", "JEAN EINAR", "JEAN E", zone_full=True)
    (False, True)
    """
    if not printed or not mrz:
        return None
    if name in ("surname", "given_names"):
        m = name_key(mrz)
        # The MRZ truncates long names; a printed name that starts with it agrees.
        return same_name(printed, mrz) or ((len(m) >= 10 or zone_full)
                                           and any(v.startswith(m) for v in name_keys(printed)))
    if name == "document_number":  # a printed number is read with I/O/Q as digits; some issuers use them
        return printed_document_number(printed) == printed_document_number(mrz)
    printed, mrz = printed.strip().upper(), mrz.strip().upper()
    if _ISO_DATE.fullmatch(printed) and _ISO_DATE.fullmatch(mrz):
        return printed[2:] == mrz[2:]  # the zone states two digits of the year: its century is a guess
    return printed == mrz


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


_NAME_DIGITS = str.maketrans("0158", "OISB")  # what OCR reads for letters in a name
# Document numbers as printed are read with I/O/Q where the issuer printed 1/0 (and some issuers do print the
# letters): compared, both sides fold them to the digits.
_DOCUMENT_NUMBER_DIGITS = str.maketrans("OQI", "001")
# Symbols OCR reads for the letter or digit they resemble.
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


def printed_number_texts(lines) -> set[str]:
    """Each printed line's letters and digits as read (upper case, nothing else), for the document number's
    confirmation in print (:func:`docauth.ocr.mrz.confirm_in_print`): digits and letters are not folded into
    each other, as telling them apart is the point.

    >>> from docauth.ocr.printed.assign import PrintedLine
    >>> sorted(printed_number_texts([PrintedLine("N° 051734", 0, 0, 1, 1, 0.9), PrintedLine("ca20804kd", 0, 2, 1, 3, 0.9)]))
    ['CA20804KD', 'N051734']
    """
    return {text for line in lines if (text := re.sub(r"[^A-Z0-9]", "", line.text.upper()))}


def printed_name_words(lines) -> set[str]:
    """Every word printed on the page as an MRZ would spell it (upper case, transliterated; OCR's digits in
    names read as the letters they stand for), for :func:`docauth.ocr.mrz.confirm_in_print`. ``lines``:
    anything with a ``text``.

    >>> from docauth.ocr.printed.assign import PrintedLine
    >>> sorted(printed_name_words([PrintedLine("Surname MÜLLER", 0, 0, 1, 1, 0.9), PrintedLine("C0LLINS", 0, 2, 1, 3, 0.8)]))
    ['COLLINS', 'MUELLER', 'MULLER', 'SURNAME']
    """
    words: set[str] = set()
    for line in lines:
        text = line.text.upper().translate(_NAME_DIGITS)
        for spelling in (transliterate(text), strip_accents(text)):
            words.update(re.findall(r"[A-Z]+", spelling))
    return words
