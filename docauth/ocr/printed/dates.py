"""Printed dates in the formats documents use, as OCR reads them.

Numeric (``31.12.2000``, ``31/12/2000``, ``2000-12-31``), with a month name in one or two languages
(``12 DEC 1982``, ``12 DEC/DÉC 82``, ``17 MAA/MAR 1972``, ``19 BEA/MAY 1993``), glued by OCR
(``17MAA/MAR1972``) or with O read for 0. Two-digit years take their century from :mod:`docauth.dates`.
Day first, as ICAO 9303 prints dates.

>>> from datetime import date
>>> today = date(2026, 1, 1)
>>> [parse_date(t, today=today) for t in ("31.12.2000", "12 DEC/DÉC 82", "17MAA/MAR1972", "2000-12-31")]
['2000-12-31', '1982-12-12', '1972-03-17', '2000-12-31']
>>> parse_date("06 MAY/MAI 1996"), parse_date("09 NOV/NOV.14", kind="birth", today=today)
('1996-05-06', '2014-11-09')
>>> parse_date("06MAY/MAI1996"), parse_date("07DEC/DEC89", today=today), parse_date("01OCT2001")
('1996-05-06', '1989-12-07', '2001-10-01')
>>> parse_date("09041986"), parse_date("21 091992"), parse_date("91.06.14-473.62")
('1986-04-09', '1992-09-21', None)
>>> parse_date("2O.11.2O35", kind="expiry"), parse_date("21 N0V 1980"), parse_date("170 cm")
('2035-11-20', '1980-11-21', None)
>>> parse_date("01JANI986"), parse_date("12 JUNI 1988")
('1986-01-01', '1988-06-12')
>>> parse_date("260CT2026", kind="expiry"), parse_date("07,02.2022"), parse_date("20JAN1990")
('2026-10-26', '2022-02-07', '1990-01-20')
>>> parse_date("12 AUGUST/AG0 74", today=today), parse_date("12 AG0 1974"), parse_date("12 AG0 1974 10")
('1974-08-12', '1974-08-12', '1974-08-12')
>>> parse_date("AB0 12 03 1974"), parse_date("12 SEP/SEP0 1974")
('1974-03-12', '1974-09-12')
>>> parse_date("01JAN7JAN 85", today=today), parse_date("14 JAN JAN 13", today=today), parse_date("12 MAY LONDON 82")
('1985-01-01', '2013-01-14', None)
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from docauth.dates import full_date

# Month abbreviations and names (upper case, no accents) in the languages of Latin-script documents.
MONTHS: dict[str, int] = {}
for _number, _names in enumerate((
    "JAN JANV JANVIER JANUARY JANUAR JANUARI ENE ENERO GEN GENNAIO STY EAN TAMMI OCA JANUARO",
    "FEB FEV FEVR FEVRIER FEBRUARY FEBRUAR FEBRERO FEBBRAIO LUT FEA HELMI SUB FEBR",
    "MAR MARS MARCH MAERZ MARZ MRZ MARZO MRT MAA MAART MARCO MAALIS MARC",
    "APR AVR AVRIL APRIL ABR ABRIL APRILE KWI AIB HUHTI NIS APRI",
    "MAY MAI MAJ MAG MAGGIO MAYO MEI BEA TOUKO",
    "JUN JUIN JUNE JUNI JUNIO GIU GIUGNO CZE MEH KESA HAZ JUNHO",
    "JUL JUIL JUILLET JULY JULI JULIO LUG LUGLIO LIP IUIL HEINA TEM JULHO",
    "AUG AOU AOUT AUGUST AGO AGOSTO SIE LUN ELO AGU",
    "SEP SEPT SEPTEMBER SEPTEMBRE SEPTIEMBRE SET SETTEMBRE WRZ MFO SYYS EYL SZEPT",
    "OCT OCTOBER OCTOBRE OKT OKTOBER OCTUBRE OTT OTTOBRE OUT PAZ DFO LOKA EKI",
    "NOV NOVEMBER NOVEMBRE NOVIEMBRE LIS SAM MARRAS KAS",
    "DEC DECEMBER DECEMBRE DEZ DEZEMBER DIC DICIEMBRE DICEMBRE GRU NOL JOULU ARA",
), start=1):
    for _name in _names.split():
        MONTHS[_name] = _number

# The English and French abbreviations ICAO 9303 part 3 pairs a page's own language's with (where that is not
# English, French or Spanish): in a pair whose names disagree (Croatian LIS is October, Czech and Polish LIS
# November), these say which month is meant.
ICAO_ABBREVIATIONS = frozenset("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC "
                               "JANV FEVR MARS AVR MAI JUIN JUIL AOUT SEPT".split())

_DIGITS_FOR_LETTERS = str.maketrans("OoQIl|", "000111")
# A separator's dot may read as a comma ("07,02.2022").
_NUMERIC = re.compile(r"(?<!\d)(\d{1,2})\s*[.,/\-]\s*(\d{1,2})\s*[.,/\-]\s*(\d{4}|\d{2})(?!\d)")
# Day, month and four-digit year apart, spaces and separators mixed: one separator lost in reading ("19.07 1987").
_NUMERIC_SPACED = re.compile(r"(?<!\d)(\d{1,2})(?: |\s*[./\-]\s*)(\d{1,2})(?: |\s*[./\-]\s*)(\d{4})(?!\d)")
# Day, month and year printed apart ("09 04 1986", "17.09.2023"), spaces or separators lost in reading: eight
# digits alone, or with what is left of their separators ("1709-2023").
_NUMERIC_GLUED = re.compile(r"(?<![\d.\-/])(\d{2})[ ./\-]?(\d{2})[ ./\-]?(\d{4})(?![\d.\-/])")
_ISO = re.compile(r"(?<!\d)(\d{4})\s*[./\-]\s*(\d{1,2})\s*[./\-]\s*(\d{1,2})(?!\d)")
# The month in several languages ("MAR/MAR"): a translation after the first may have lost a letter ("MAR/AR"),
# or its slash, when a space is left between two month names ("JAN JAN"). The first may be in a script other
# than Latin ("ΔΕΚ/DEC"), which its translation names; day, month and year may be joined by hyphens
# ("12-DEC-1982").
_MONTH_NAME = "|".join(sorted(MONTHS, key=len, reverse=True))
_NAMED = re.compile(r"(?<![0-9])(\d{1,2})\s*[.,\-]?\s*([^\W\d_]{3,9}(?:\s*[/|.,]\s*[A-Z]{2,9}|\s+(?:%s)\b)*)"
                    r"\s*[.,/\-]?\s*(\d{4}|\d{2})(?!\d)" % _MONTH_NAME)

_PATTERNS = ((_ISO, "ymd"), (_NUMERIC, "dmy"), (_NAMED, "dMy"), (_NUMERIC_SPACED, "dmy"), (_NUMERIC_GLUED, "dmy"))


def _plain(text: str) -> str:
    upper = "".join(c for c in unicodedata.normalize("NFKD", text.upper()) if not unicodedata.combining(c))
    # O for 0 and I/l for 1 beside a digit and no letter (a month name glued to its digits stays a word).
    upper = re.sub(r"(?<=\d)[OoQIl|](?![A-Za-z])|(?<![A-Za-z])[OoQIl|](?=\d)",
                   lambda m: m.group(0).translate(_DIGITS_FOR_LETTERS), upper)
    # October's names all begin with O, which after the day's digits may read as a 0 ("260CT2026").
    upper = re.sub(r"(?<=\d)(\s?)0(?=(?:CT|KT|TT)[A-Z]*[\s./,|\d])", r"\1O", upper)
    # A year glued to its month name reads its first 1 as I ("01JANI988"): I before three digits is a 1.
    return re.sub(r"(?<=[A-Z]{3})[Il|](?=9\d\d(?!\d))", "1", upper)


def _month(word: str) -> int | None:
    """The month a name or a pair of names gives, the English or French name deciding where the pair disagrees.

    >>> _month("LIS/OCT"), _month("LIS/NOV"), _month("LIS"), _month("MAA/MAR"), _month("SEPTEMBRE/SEPT")
    (10, 11, 11, 3, 9)
    """
    found: list[tuple[bool, int]] = []
    for part in re.split(r"[/|.,\s]+", word):
        part = part.replace("0", "O")
        name = part if part in MONTHS else next(
            (part[:size] for size in (4, 3) if len(part) > size and part[:size] in MONTHS), None)
        if name is not None:
            found.append((name in ICAO_ABBREVIATIONS, MONTHS[name]))
    return next((month for icao, month in found if icao), found[0][1] if found else None)


def _letters_in_words(plain: str) -> str:
    """O read as 0 inside a month name: between two letters ("N0V"), or ending a word of letters that no digit
    follows ("AG0 74", a translation's last O); and the slash between two month names read as a 7 or a 1
    ("JAN7JAN"), which would otherwise be taken for a day."""
    plain = re.sub(r"(?<=[A-Z])0(?=[A-Z])|(?<=[A-Z]{2})0(?![\dA-Z])", "O", plain)
    return re.sub(r"(?<=[A-Z]{3})[71](?=[A-Z]{2})", "/", plain)


def find_date(text: str, *, kind: str = "birth", today: date | None = None) -> tuple[str, tuple[int, int]] | None:
    """(ISO date, the span of ``text`` it was read from) of the first date in ``text``, or None."""
    if not text:
        return None
    plain = _letters_in_words(_plain(text))
    for pattern, order in _PATTERNS:
        for m in pattern.finditer(plain):
            iso = _to_iso(m, order, kind, today)
            if iso is not None:
                return iso, m.span()
    return None


def parse_date(text: str | None, *, kind: str = "birth", today: date | None = None) -> str | None:
    """The ISO date printed in ``text``, or None."""
    found = find_date(text or "", kind=kind, today=today)
    return found[0] if found else None


def all_dates(text: str, *, today: date | None = None) -> list[tuple[int, int, int, bool]]:
    """Every date in ``text`` as (day, month, year, the year had four digits), century unresolved for two."""
    out = []
    plain = _letters_in_words(_plain(text or ""))
    for pattern, order in _PATTERNS:
        for m in pattern.finditer(plain):
            parts = _parts(m, order)
            if parts is not None:
                out.append(parts)
    return out


def _parts(m: re.Match, order: str) -> tuple[int, int, int, bool] | None:
    if order == "ymd":
        year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
        four = True
    elif order == "dmy":
        day, month, year, four = int(m.group(1)), int(m.group(2)), int(m.group(3)), len(m.group(3)) == 4
    else:
        month = _month(m.group(2))
        if month is None:
            return None
        day, year, four = int(m.group(1)), int(m.group(3)), len(m.group(3)) == 4
    if not (1 <= month <= 12 and 1 <= day <= 31) or (four and not 1900 <= year <= 2100):
        return None
    return day, month, year, four


def _to_iso(m: re.Match, order: str, kind: str, today: date | None) -> str | None:
    parts = _parts(m, order)
    if parts is None:
        return None
    day, month, year, four = parts
    if four:
        try:
            return date(year, month, day).isoformat()
        except ValueError:
            return None
    full = full_date(year, month, day, kind=kind, today=today)
    return full.isoformat() if full else None


def same_day(zone_iso: str, printed: tuple[int, int, int, bool]) -> bool:
    """Does a printed date (as :func:`all_dates` gives it) name the day an MRZ gives as ``zone_iso``? The zone
    states two digits of the year, so the century is not compared."""
    year, month, day = (int(v) for v in zone_iso.split("-"))
    p_day, p_month, p_year, _ = printed
    return p_day == day and p_month == month and p_year % 100 == year % 100
