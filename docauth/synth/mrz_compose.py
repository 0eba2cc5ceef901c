"""Compose ICAO 9303 machine readable zones from document fields.

Every composer takes plain field values (names may carry diacritics, dates are
``datetime.date`` or ISO strings) and returns the MRZ lines, already padded with
``<`` fillers and carrying correct check digits (:func:`docauth.ocr.mrz.checkdigit.check_digit`).

>>> td3_lines("UTO", "ERIKSSON", "ANNA MARIA", "L898902C3", "UTO", "1974-08-12", "F", "2012-04-15",
...           optional="ZE184226B")
['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10']
>>> td1_lines("UTO", "ERIKSSON", "ANNA MARIA", "D23145890", "UTO", "1974-08-12", "F", "2012-04-15",
...           doc_code="I", optional1="", optional2="")
['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<']
>>> td2_lines("UTO", "ERIKSSON", "ANNA MARIA", "D23145890", "UTO", "1974-08-12", "F", "2012-04-15", doc_code="I")
['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6']
>>> mrva_lines("UTO", "ERIKSSON", "ANNA MARIA", "L8988901C", "XXX", "1940-09-07", "F", "1996-12-10",
...            optional="6ZE184226B")
['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<']
>>> transliterate("Müller-Lüdenscheidt")
'MUELLER<LUEDENSCHEIDT'
>>> transliterate("Lapsurdziņš")
'LAPSURDZINS'
>>> name_field("Jönsson", "Ann-Kristin Marie", 30)
'JOENSSON<<ANN<KRISTIN<MARIE<<<'
"""

from __future__ import annotations

import datetime as _dt

from docauth.ocr.mrz.checkdigit import check_digit
from docauth.ocr.mrz import transliterate  # the reader's ICAO spelling; also imported from here


def name_field(surname: str, given_names: str, length: int) -> str:
    """``SURNAME<<GIVEN<NAMES`` padded or truncated to ``length`` (ICAO truncation: cut from the end).

    A truncated field ends on a letter (it never ends on a filler that would hide the cut).
    """
    primary = transliterate(surname).strip("<")
    secondary = transliterate(given_names).strip("<")
    while "<<" in primary:  # a double filler inside the primary identifier would look like the separator
        primary = primary.replace("<<", "<")
    while "<<" in secondary:
        secondary = secondary.replace("<<", "<")
    full = primary + ("<<" + secondary if secondary else "")
    if len(full) > length:
        full = full[:length].rstrip("<")
        if len(full) < length:
            full = full + "<" * (length - len(full))
        return full
    return full + "<" * (length - len(full))


def _pad(value: str, length: int) -> str:
    value = value.upper().replace(" ", "<")
    if len(value) > length:
        raise ValueError(f"{value!r} is longer than {length}")
    return value + "<" * (length - len(value))


def mrz_date(value) -> str:
    """``date``/ISO string -> ``YYMMDD``; ``None`` or '' -> ``<<<<<<`` (unknown)."""
    if value in (None, ""):
        return "<<<<<<"
    if isinstance(value, str):
        value = _dt.date.fromisoformat(value)
    return value.strftime("%y%m%d")


def _sex(sex: str | None) -> str:
    return sex if sex in ("M", "F") else "<"


def _state(code: str) -> str:
    return _pad(code, 3)


def td1_lines(issuing_state, surname, given_names, document_number, nationality, date_of_birth, sex, expiry,
              doc_code="ID", optional1="", optional2="") -> list[str]:
    """3 x 30 (ID cards). Document numbers over 9 characters use the optional field (ICAO note j)."""
    number = document_number.upper()
    if len(number) <= 9:
        num_field = _pad(number, 9) + check_digit(_pad(number, 9))
        opt1 = _pad(optional1, 15)
    else:
        num_field = number[:9] + "<"
        rest = number[9:] + check_digit(number)
        opt1 = _pad(rest + ("<" + optional1 if optional1 else ""), 15)
    line1 = _pad(doc_code, 2) + _state(issuing_state) + num_field + opt1
    dob = mrz_date(date_of_birth)
    exp = mrz_date(expiry)
    line2 = dob + check_digit(dob) + _sex(sex) + exp + check_digit(exp) + _state(nationality) + _pad(optional2, 11)
    composite = line1[5:30] + line2[0:7] + line2[8:15] + line2[18:29]
    line2 += check_digit(composite)
    line3 = name_field(surname, given_names, 30)
    return [line1, line2, line3]


def td2_lines(issuing_state, surname, given_names, document_number, nationality, date_of_birth, sex, expiry,
              doc_code="I", optional="") -> list[str]:
    """2 x 36 (TD2 cards)."""
    line1 = _pad(doc_code, 2) + _state(issuing_state) + name_field(surname, given_names, 31)
    number = _pad(document_number, 9)
    dob, exp = mrz_date(date_of_birth), mrz_date(expiry)
    line2 = (number + check_digit(number) + _state(nationality) + dob + check_digit(dob) + _sex(sex)
             + exp + check_digit(exp) + _pad(optional, 7))
    line2 += check_digit(line2[0:10] + line2[13:20] + line2[21:35])
    return [line1, line2]


def td3_lines(issuing_state, surname, given_names, document_number, nationality, date_of_birth, sex, expiry,
              doc_code="P", optional="") -> list[str]:
    """2 x 44 (passports). An empty personal number gets the check digit ``<`` (ICAO allows ``<`` or ``0``);
    we print ``<`` like most issuers."""
    line1 = _pad(doc_code, 2) + _state(issuing_state) + name_field(surname, given_names, 39)
    number = _pad(document_number, 9)
    dob, exp = mrz_date(date_of_birth), mrz_date(expiry)
    personal = _pad(optional, 14)
    personal_cd = check_digit(personal) if optional else "<"
    line2 = (number + check_digit(number) + _state(nationality) + dob + check_digit(dob) + _sex(sex)
             + exp + check_digit(exp) + personal + personal_cd)
    line2 += check_digit(line2[0:10] + line2[13:20] + line2[21:43])
    return [line1, line2]


def mrva_lines(issuing_state, surname, given_names, document_number, nationality, date_of_birth, sex, expiry,
               doc_code="V", optional="") -> list[str]:
    """2 x 44 (visa type A); no composite check digit."""
    line1 = _pad(doc_code, 2) + _state(issuing_state) + name_field(surname, given_names, 39)
    number = _pad(document_number, 9)
    dob, exp = mrz_date(date_of_birth), mrz_date(expiry)
    line2 = (number + check_digit(number) + _state(nationality) + dob + check_digit(dob) + _sex(sex)
             + exp + check_digit(exp) + _pad(optional, 16))
    return [line1, line2]


def mrvb_lines(issuing_state, surname, given_names, document_number, nationality, date_of_birth, sex, expiry,
               doc_code="V", optional="") -> list[str]:
    """2 x 36 (visa type B); no composite check digit."""
    line1 = _pad(doc_code, 2) + _state(issuing_state) + name_field(surname, given_names, 31)
    number = _pad(document_number, 9)
    dob, exp = mrz_date(date_of_birth), mrz_date(expiry)
    line2 = (number + check_digit(number) + _state(nationality) + dob + check_digit(dob) + _sex(sex)
             + exp + check_digit(exp) + _pad(optional, 8))
    return [line1, line2]


COMPOSERS = {"TD1": td1_lines, "TD2": td2_lines, "TD3": td3_lines, "MRVA": mrva_lines, "MRVB": mrvb_lines}


def compose_mrz(mrz_type: str, fields: dict, **extra) -> list[str]:
    """MRZ lines of ``mrz_type`` (TD1, TD2, TD3, MRVA, MRVB) from a label-style ``fields`` dict."""
    try:
        composer = COMPOSERS[mrz_type.upper().replace("-", "")]
    except KeyError:
        raise ValueError(f"unknown MRZ type {mrz_type!r}; expected one of {sorted(COMPOSERS)}") from None
    return composer(fields["issuing_state"], fields["surname"], fields["given_names"], fields["document_number"],
                    fields["nationality"], fields["date_of_birth"], fields["sex"], fields["expiry"], **extra)
