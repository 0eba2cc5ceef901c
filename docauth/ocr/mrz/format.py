"""The ICAO 9303 machine-readable zone as a format: its layouts, position classes, check digits, fields,
dates and the transliteration of names. Pure text; nothing here corrects a read (:mod:`docauth.ocr.mrz.rules`).

>>> layout = LAYOUTS["TD3"]
>>> run_checks(["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"],
...            "TD3", layout)["composite"]
{'ok': True, 'read': '0', 'expected': '0'}
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date
from typing import Iterable

from docauth.dates import full_date
from docauth.ocr.mrz.checkdigit import check_digit

MRZ_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
FORMATS = {  # type -> (lines, line length)
    "TD1": (3, 30),
    "TD2": (2, 36),
    "TD3": (2, 44),
    "MRVA": (2, 44),
    "MRVB": (2, 36),
}
# The check groups that hold a date: a filler read inside one is a digit lost, not a filler.
DATE_FIELDS = frozenset({"date_of_birth", "expiry_date"})


# Position classes: 'A' letters/<, 'N' digits/<, 'X' any, 'S' sex, 'C' check digit; the document
# code's first letter by format (ICAO 9303: cards A/C/I, passports P, visas V), which no check digit covers.
# Check groups: name -> (list of (line, start, stop) field slices, (line, pos) check digit).
LAYOUTS: dict[str, dict] = {}


def _layout(type_, classes: list[str], checks: dict):
    LAYOUTS[type_] = {"classes": classes, "checks": checks}


_TD1_L1 = "1X" + "AAA" + "X" * 9 + "C" + "X" * 15
_TD1_L2 = "NNNNNN" + "C" + "S" + "NNNNNN" + "C" + "AAA" + "X" * 11 + "C"
_layout("TD1", [_TD1_L1, _TD1_L2, "A" * 30], {
    "document_number": ([(0, 5, 14)], (0, 14)),
    "date_of_birth": ([(1, 0, 6)], (1, 6)),
    "expiry_date": ([(1, 8, 14)], (1, 14)),
    "composite": ([(0, 5, 30), (1, 0, 7), (1, 8, 15), (1, 18, 29)], (1, 29)),
})
_L2_COMMON = "X" * 9 + "C" + "AAA" + "NNNNNN" + "C" + "S" + "NNNNNN" + "C"
_layout("TD2", ["1X" + "AAA" + "A" * 31, _L2_COMMON + "X" * 7 + "C"], {
    "document_number": ([(1, 0, 9)], (1, 9)),
    "date_of_birth": ([(1, 13, 19)], (1, 19)),
    "expiry_date": ([(1, 21, 27)], (1, 27)),
    "composite": ([(1, 0, 10), (1, 13, 20), (1, 21, 35)], (1, 35)),
})
_layout("TD3", ["3X" + "AAA" + "A" * 39, _L2_COMMON + "X" * 14 + "C" + "C"], {
    "document_number": ([(1, 0, 9)], (1, 9)),
    "date_of_birth": ([(1, 13, 19)], (1, 19)),
    "expiry_date": ([(1, 21, 27)], (1, 27)),
    "personal_number": ([(1, 28, 42)], (1, 42)),
    "composite": ([(1, 0, 10), (1, 13, 20), (1, 21, 43)], (1, 43)),
})
_layout("MRVA", ["VX" + "AAA" + "A" * 39, _L2_COMMON + "X" * 16], {
    "document_number": ([(1, 0, 9)], (1, 9)),
    "date_of_birth": ([(1, 13, 19)], (1, 19)),
    "expiry_date": ([(1, 21, 27)], (1, 27)),
})
_layout("MRVB", ["VX" + "AAA" + "A" * 31, _L2_COMMON + "X" * 8], {
    "document_number": ([(1, 0, 9)], (1, 9)),
    "date_of_birth": ([(1, 13, 19)], (1, 19)),
    "expiry_date": ([(1, 21, 27)], (1, 27)),
})


DOCUMENT_CODE_LETTERS = {"1": "ACI", "3": "P", "V": "V"}  # classes of a line's first position


def allowed_chars(cls: str) -> str:
    if cls in DOCUMENT_CODE_LETTERS:
        return DOCUMENT_CODE_LETTERS[cls]
    if cls == "A":
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
    if cls in ("N",):
        return "0123456789<"
    if cls == "C":
        return "0123456789<"
    if cls == "S":
        return "MFX<"
    return MRZ_CHARS


def name_slices(type_) -> list[tuple[int, int, int]]:
    if type_ == "TD1":
        return [(2, 0, 30)]
    return [(0, 5, FORMATS[type_][1])]


def code_slices(type_) -> list[tuple[int, int, str]]:
    """(line, start, name) of the three-letter codes: issuing state, nationality."""
    return [(0, 2, "issuing state"), (1, 15, "nationality") if type_ == "TD1" else (1, 10, "nationality")]


# Optional-data fields (line, start, stop): left-aligned, filled with '<' on the right.
OPTIONAL_SLICES = {"TD1": [(0, 15, 30), (1, 18, 29)], "TD2": [(1, 28, 35)], "TD3": [(1, 28, 42)],
                    "MRVA": [(1, 28, 44)], "MRVB": [(1, 28, 36)]}


def slice_positions(slices) -> list[tuple[int, int]]:
    return [(n, i) for n, a, b in slices for i in range(a, b)]


def checked_positions(layout) -> set:
    out = set()
    for slices, (cn, ci) in layout["checks"].values():
        out.update(slice_positions(slices))
        out.add((cn, ci))
    return out


def group_text(grid, slices) -> str:
    return "".join("".join(grid[n][a:b]) for n, a, b in slices)


def check_ok(value: str, digit: str) -> bool:
    expected = check_digit(value)
    if expected is None:
        return False
    if digit == expected:
        return True
    # An empty optional field may carry '<' instead of 0 as its check digit.
    return digit == "<" and set(value) <= {"<"}


def run_checks(lines, type_, layout) -> dict:
    grid = [list(line) for line in lines]
    out = {}
    for name, (slices, (cn, ci)) in layout["checks"].items():
        value = group_text(grid, slices)
        digit = grid[cn][ci]
        if type_ == "TD1" and name == "document_number" and digit == "<":
            value, digit = td1_long_number(lines)
            name_value = value
        else:
            name_value = value
        if type_ == "TD3" and name == "personal_number" and digit == "<" and set(value) <= {"<"}:
            out[name] = {"ok": True, "read": digit, "expected": "<"}
            continue
        expected = check_digit(name_value)
        out[name] = {"ok": check_ok(name_value, digit), "read": digit, "expected": expected}
    return out


def td1_long_number(lines) -> tuple[str, str]:
    """TD1 document numbers over 9 characters continue in the optional data; its last char is the check."""
    head = lines[0][5:14]
    rest = lines[0][15:30].split("<", 1)[0]
    if not rest:
        return head, "<"
    return head + rest[:-1], rest[-1]


def classes_hold(lines, layout) -> bool:
    for n, line in enumerate(lines):
        for i, ch in enumerate(line):
            if ch not in allowed_chars(layout["classes"][n][i]):
                return False
    return True


def split_lines(text_or_lines) -> list[str]:
    if text_or_lines is None:
        return []
    if isinstance(text_or_lines, (bytes, bytearray)):
        text_or_lines = bytes(text_or_lines).decode("latin-1")
    if isinstance(text_or_lines, str):
        parts = re.split(r"[\r\n|]+", text_or_lines)
    else:
        parts = []
        for item in text_or_lines:
            parts.extend(re.split(r"[\r\n|]+", str(item)))
    lines = []
    for p in parts:
        p = re.sub(r"\s+", "", p).upper()
        if p:
            lines.append(p)
    return lines


def detect_format(lines: list[str]) -> tuple[str | None, list[int]]:
    """Best format and which input lines hold it (consecutive block)."""
    best: tuple[float, str | None, list[int]] = (math.inf, None, [])
    for type_, (count, length) in FORMATS.items():
        for start in range(0, max(0, len(lines) - count) + 1):
            idx = list(range(start, start + count))
            if len(idx) != count or idx[-1] >= len(lines):
                continue
            cost = sum(abs(len(lines[i]) - length) for i in idx)
            first = lines[idx[0]]
            if type_.startswith("MRV") and not first.startswith("V"):
                cost += 3
            if type_ in ("TD2", "TD3") and first.startswith("V"):
                cost += 3
            cost += 0.01 * start  # prefer earlier on ties
            if cost < best[0]:
                best = (cost, type_, idx)
    cost, type_, idx = best
    if type_ is None:
        return None, []
    count, length = FORMATS[type_]
    if cost > 0.35 * count * length:
        return None, []
    return type_, idx


def mrz_date(yymmdd: str, *, kind: str, today: date | None = None) -> str | None:
    """ISO date of a YYMMDD MRZ date, or None if it is not a calendar date.

    Century rule (:mod:`docauth.dates`): a birth date is the latest century that does not put it in
    the future; an expiry date is the latest century that puts it no more
    than ``EXPIRY_HORIZON_YEARS`` after today.

    >>> mrz_date("740812", kind="birth", today=date(2026, 1, 1))
    '1974-08-12'
    >>> mrz_date("251231", kind="birth", today=date(2026, 1, 1)), mrz_date("260102", kind="birth", today=date(2026, 1, 1))
    ('2025-12-31', '1926-01-02')
    >>> mrz_date("460101", kind="expiry", today=date(2026, 1, 1)), mrz_date("470101", kind="expiry", today=date(2026, 1, 1))
    ('2046-01-01', '1947-01-01')
    >>> mrz_date("741312", kind="birth") is None, mrz_date("74<<<<", kind="birth") is None
    (True, True)
    """
    if not re.fullmatch(r"\d{6}", yymmdd or ""):
        return None
    found = full_date(int(yymmdd[:2]), int(yymmdd[2:4]), int(yymmdd[4:]),
                      kind="birth" if kind == "birth" else "expiry", today=today)
    return found.isoformat() if found else None


# ICAO 9303 part 3, section 6 (recommended transliteration of Latin multinational characters).
# The capital sharp s (U+1E9E) is listed too: str.upper() turns "ß" into "SS" but leaves "ẞ" as it is.
_TRANSLITERATION = {
    "Ä": "AE", "Æ": "AE", "Å": "AA", "Ö": "OE", "Ø": "OE", "Ü": "UE", "ß": "SS", "ẞ": "SS", "Þ": "TH",
    "Ĳ": "IJ", "Œ": "OE", "Ð": "D", "Đ": "D", "Ł": "L", "Ħ": "H", "Ŋ": "N", "Ŧ": "T",
}


def transliterate(text: str) -> str:
    """Name text -> MRZ characters: upper case A-Z, separators (and fillers already there) become ``<``,
    other diacritics are dropped, apostrophes and dots vanish.

    >>> transliterate("Müller-Straße"), transliterate("STRAẞER"), transliterate("O'Brien Guðmundsdóttir")
    ('MUELLER<STRASSE', 'STRASSER', 'OBRIEN<GUDMUNDSDOTTIR')
    """
    out = []
    for ch in text.upper():
        if "A" <= ch <= "Z":
            out.append(ch)
        elif ch in _TRANSLITERATION:
            out.append(_TRANSLITERATION[ch])
        elif ch in " -,<":
            out.append("<")
        else:
            out.append("".join(c for c in unicodedata.normalize("NFKD", ch) if "A" <= c <= "Z"))
    return "".join(out)


def clean_field(s: str) -> str:
    """An MRZ field's text as words: fillers as spaces, one space between words, none at the ends."""
    return re.sub(r" +", " ", s.replace("<", " ")).strip()


def split_name(field_text: str) -> tuple[str, str]:
    """Surname and given names of an MRZ name field.

    >>> split_name("ERIKSSON<<ANNA<MARIA<<<<<")
    ('ERIKSSON', 'ANNA MARIA')
    >>> split_name("SORIANO<MEDINA<<LUCIA<<<")
    ('SORIANO MEDINA', 'LUCIA')
    >>> split_name("BORGANI<ELLA<<<<")
    ('BORGANI ELLA', '')
    """
    text = field_text.rstrip("<")
    if "<<" in text:
        surname, given = text.split("<<", 1)
    else:
        surname, given = text, ""
    return clean_field(surname), clean_field(given)


def extract_fields(lines, type_, today, warnings) -> dict:
    f: dict = {}
    l1 = lines[0]
    f["document_code"] = l1[0:2].replace("<", "")
    f["issuing_state"] = l1[2:5].replace("<", "")
    if type_ == "TD1":
        l2, l3 = lines[1], lines[2]
        if l1[14] == "<" and l1[15:30].strip("<"):
            number, _ = td1_long_number(lines)
            f["document_number"] = number.replace("<", "")
            f["optional_data"] = clean_field(l1[15:30][len(l1[15:30].split("<", 1)[0]):])
        else:
            f["document_number"] = l1[5:14].replace("<", "")
            f["optional_data"] = clean_field(l1[15:30])
        dob, sex, exp, nat = l2[0:6], l2[7], l2[8:14], l2[15:18]
        f["optional_data_2"] = clean_field(l2[18:29])
        name = l3
    else:
        l2 = lines[1]
        name = l1[5:]
        f["document_number"] = l2[0:9].replace("<", "")
        nat, dob, sex, exp = l2[10:13], l2[13:19], l2[20], l2[21:27]
        if type_ == "TD3":
            f["personal_number"] = clean_field(l2[28:42])
        elif type_ == "TD2":
            f["optional_data"] = clean_field(l2[28:35])
        else:
            f["optional_data"] = clean_field(l2[28:])
    f["surname"], f["given_names"] = split_name(name)
    f["nationality"] = nat.replace("<", "")
    f["sex"] = sex if sex in ("M", "F") else ("X" if sex in ("X", "<") else None)
    f["date_of_birth"] = mrz_date(dob, kind="birth", today=today)
    f["expiry_date"] = mrz_date(exp, kind="expiry", today=today)
    f["date_of_birth_raw"], f["expiry_date_raw"] = dob, exp
    if f["date_of_birth"] is None:
        warnings.append(f"date of birth {dob!r} is not a calendar date")
    if f["expiry_date"] is None:
        warnings.append(f"expiry date {exp!r} is not a calendar date")
    return f


def essentials_present(fields: dict, warnings: list) -> bool:
    """A document number, a name and two calendar dates: an MRZ of fillers checks to zero but says nothing."""
    missing = [k for k in ("document_number", "surname", "date_of_birth", "expiry_date") if not fields.get(k)]
    if missing:
        warnings.append("missing " + ", ".join(missing))
    return not missing


def mrz_char_error_count(a: Iterable[str], b: Iterable[str]) -> int:
    """Characters that differ between two MRZ line lists (length differences count in full).

    >>> mrz_char_error_count(["AB<", "12"], ["AB<", "13"])
    1
    """
    a, b = list(a), list(b)
    n = abs(len(a) - len(b)) * 44
    for x, y in zip(a, b):
        n += sum(1 for p, q in zip(x, y) if p != q) + abs(len(x) - len(y))
    return n
