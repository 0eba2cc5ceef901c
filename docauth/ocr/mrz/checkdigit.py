"""ICAO 9303 check digits (weights 7, 3, 1; ``<`` counts 0, ``A``-``Z`` count 10-35).

>>> check_digit("L898902C3")
'6'
>>> check_digit("740812")
'2'
>>> check_digit("<<<<<<<<<<<<<<")
'0'
>>> check_digit("AB2134<<<")
'5'
"""

from __future__ import annotations

_WEIGHTS = (7, 3, 1)


def char_value(ch: str) -> int | None:
    """Numeric value of an MRZ character, or None for a character outside the MRZ set."""
    if "0" <= ch <= "9":
        return ord(ch) - 48
    if "A" <= ch <= "Z":
        return ord(ch) - 55
    if ch == "<":
        return 0
    return None


def check_digit(field: str) -> str | None:
    """The check digit of ``field`` as a character, or None if it holds a non-MRZ character."""
    total = 0
    for i, ch in enumerate(field):
        v = char_value(ch)
        if v is None:
            return None
        total += v * _WEIGHTS[i % 3]
    return str(total % 10)
