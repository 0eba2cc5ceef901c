"""The cheapest read that confirms a person's record on a page without an MRZ (a 1:1 check: the record is known).

The record's values are looked for the way the zone's are: value-sized lines, best-fitting first, one at a
time, until each value is found in print; then the expiry date, which no record gives, under or beside its own
caption. Anything not found (another person's card, a misread, a layout this does not follow) answers None,
and the page is read whole as when no record is given, so a read that confirms nothing costs no reads more;
the record's values that whole read prints are then reported each on its own (``record_values_apart``).

    fields = confirm_record(read, done, boxes, order, dated, {"surname": "ERIKSSON", ...}, today)
    fields["surname"].how   # "record": found in print as the record has it
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date
from typing import Callable, Mapping

from docauth.dates import parse_date
from docauth.ocr.mrz import transliterate
from docauth.ocr.printed.assign import (CAPTION_GAP, DATE_KINDS, FIELDS, FieldRead, PrintedLine, assign_by_captions,
                                        clean_name, find_in_print, number_text, parse_value)
from docauth.ocr.printed.detection import TextBox
from docauth.ocr.printed.known import APART, confirms, find_aligned, glyph, other_name

# What a box read to: its line, or None where it read as nothing.
ReadBoxes = Callable[[list[TextBox]], dict[TextBox, PrintedLine | None]]

CAPTION_ROW = 0.45  # of the value's height: how far a caption beside its value may stand off its row's centre
CAPTION_BESIDE = 8.0  # of the value's height: the furthest a caption stands left of its value


def record_values(record: dict | None) -> dict[str, str]:
    """The record's values of the fields print is searched for, dates as ISO (a record's date that does not
    parse is not looked for).

    >>> record_values({"surname": "Eriksson", "date_of_birth": "19740812", "sex": "F", "given_names": ""})
    {'surname': 'Eriksson', 'date_of_birth': '1974-08-12'}
    """
    out = {}
    for name in FIELDS:
        value = (record or {}).get(name)
        if value in (None, ""):
            continue
        if name in ("date_of_birth", "expiry_date"):
            parsed = parse_date(value, kind="birth" if name == "date_of_birth" else "expiry")
            if parsed is None:
                continue
            value = parsed.isoformat()
        out[name] = str(value)
    return out


def confirm_record(read: ReadBoxes, done: Mapping[TextBox, PrintedLine | None], boxes: list[TextBox],
                   order: list[TextBox], dated: list[TextBox], expected: dict[str, str],
                   today: date | None) -> dict[str, FieldRead] | None:
    """The record's fields as found in print (``how`` "record") and the printed expiry date under its caption:
    ``order`` (value-sized lines, likeliest first) is read one line at a time until each value is found, then
    ``dated`` (lines of a date's size, likeliest first) until the expiry is; None when a value or the expiry is
    not found. ``read`` reads boxes once each (``done``: those read so far)."""
    lines: list[PrintedLine] = []
    found: dict[str, FieldRead | None] = {}
    for box in order:
        line = read([box])[box]
        if line is None:
            continue
        lines.append(line)
        found = {name: found.get(name) or record_value_in(name, lines, expected, today) for name in expected}
        if all(found.values()):
            break
    else:
        return None
    fields = {name: replace(read_, how="record") for name, read_ in found.items()}
    if "expiry_date" not in fields:
        claimed = {read_.box for read_ in fields.values()}
        expiry = _expiry(read, done, boxes, dated, lines, claimed, today)
        if expiry is None:
            return None
        fields["expiry_date"] = expiry
    return fields


def record_value_in(name: str, lines: list[PrintedLine], expected: dict[str, str], today: date | None
                    ) -> FieldRead | None:
    """The record's value of ``name`` (``expected``: the record's values) printed in ``lines``: as read, else by
    the recogniser's probabilities."""
    value = expected[name]
    found = as_printed(name, value, find_in_print(name, value, lines, today))
    if found is not None and name == "document_number":
        found = spelled_as_record(found, value, lines)
    return found or find_aligned(name, value, lines, record=True, others=other_name(name, expected))


def spelled_as_record(read: FieldRead, value: str, lines: list[PrintedLine]) -> FieldRead:
    """``read`` (a number found printed as the record has it up to O/0 and I/1) spelled as the record spells it
    where the recogniser's own probabilities on its line hold the record's very glyphs (:func:`confirms`, whose
    bounds no one-glyph change passes): the greedy read's pick between glyphs many print fonts draw alike is
    then no evidence against the record's. A line whose probabilities give the record's glyph no share keeps
    the number as printed."""
    wanted = _alnum(value)
    if _alnum(read.value) == wanted:
        return read
    line = next((ln for ln in lines if ln.box == read.box and ln.frames is not None), None)
    if line is None or confirms(line.frames, [glyph(c) for c in wanted], APART["document_number"]) is None:
        return read
    return replace(read, value=number_text(value))


def record_values_apart(lines: list[PrintedLine], expected: dict[str, str], today: date | None
                        ) -> dict[str, FieldRead]:
    """Each of the record's values that a page read whole prints, on its own (``how`` "record"): where the record
    was not confirmed whole (a value or the expiry not found: small print, another person's card), a value
    printed as the record has it still says what the page prints better than a layout's guess, and a value the
    page prints otherwise is not among these, so it is judged on what the page says."""
    found = {name: record_value_in(name, lines, expected, today) for name in expected}
    return {name: replace(read_, how="record") for name, read_ in found.items() if read_ is not None}


def as_printed(name: str, value: str, read: FieldRead | None) -> FieldRead | None:
    """``read`` when its line prints the record's ``value`` (names letter for letter as ICAO 9303 writes them,
    spaces aside; dates the same day, which the finder checks), or None: the finder also forgives a letter's
    slip, which the zone's check digits may, and a record may not (the record is what is checked). A number
    may differ in the glyphs print fonts share (O and 0, I and 1), and is then reported as printed.

    >>> line = FieldRead("ERIKSSON", "ERIKSON", 0.9, "mrz", True)
    >>> as_printed("surname", "Eriksson", line) is None, as_printed("surname", "Eriksson", replace(line, text="ERIKSSON")).value
    (True, 'ERIKSSON')
    >>> as_printed("document_number", "0WANRZ7KT", FieldRead("0WANRZ7KT", "No. OWANRZ7KT", 0.9, "mrz", True)).value
    'OWANRZ7KT'
    >>> as_printed("document_number", "592-4417306-07", FieldRead("", "N 592-4417306-07", 0.9, "mrz", True)).value
    '592-4417306-07'
    """
    if read is None or name in DATE_KINDS:
        return read
    if name == "document_number":
        kept = [i for i, c in enumerate(read.text.upper()) if c.isascii() and c.isalnum()]
        printed, wanted = "".join(read.text.upper()[i] for i in kept), _alnum(value)
        at = printed.translate(_NUMBER_FOLD).find(wanted.translate(_NUMBER_FOLD)) if wanted else -1
        if at < 0:
            return None
        # As printed, its inner hyphens kept ("592-4417306-07"), spaces dropped.
        span = read.text.upper()[kept[at]:kept[at + len(wanted) - 1] + 1]
        return replace(read, value=number_text(span))
    printed, wanted = _letters(clean_name(read.text) or ""), _letters(value)
    return read if wanted and wanted in printed else None


_NUMBER_FOLD = str.maketrans("OQDIL", "00011")  # glyphs one in many print fonts


def _alnum(text: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", text.upper())


def _letters(text: str) -> str:
    return re.sub(r"[^A-Z]", "", transliterate(text.upper()))


def _expiry(read: ReadBoxes, done: Mapping[TextBox, PrintedLine | None], boxes: list[TextBox], dated: list[TextBox],
            lines: list[PrintedLine], claimed: set, today: date | None) -> FieldRead | None:
    """The expiry date: lines of a date's size (those read already first, then the others one at a time); a
    date among them is the expiry when its caption (over it or beside it, read then) says so."""
    lines = list(lines)
    for box in sorted(dated, key=lambda b: b not in done):
        line = read([box])[box]
        if line is None or line.box in claimed:
            continue
        if line not in lines:
            lines.append(line)
        if parse_value("expiry_date", line.text, today) is None and line.label is None:
            continue
        near = [ln for ln in read(captions_of(box, boxes)).values() if ln is not None]
        lines += [ln for ln in near if ln not in lines]
        expiry = assign_by_captions(lines, today).get("expiry_date")
        # Only this line's date (or one printed on its caption's line): another caption's value may be a line
        # not read yet.
        if expiry is not None and expiry.box in {line.box} | {ln.box for ln in near}:
            return expiry
    return None


def captions_of(box: TextBox, boxes: list[TextBox]) -> list[TextBox]:
    """The lines that may be ``box``'s caption: the nearest one over it (sharing some of its width) and the
    nearest one left of it on its row.

    >>> caption, value, other = TextBox(10, 100, 120, 112, 1), TextBox(10, 114, 90, 130, 1), TextBox(300, 100, 360, 112, 1)
    >>> captions_of(value, [caption, value, other]) == [caption], captions_of(caption, [caption, value, other])
    (True, [])
    """
    h = max(box.height, 1.0)
    above = [b for b in boxes if b is not box and min(b.x1, box.x1) > max(b.x0, box.x0)
             and b.cy < box.cy and -0.5 * h <= box.y0 - b.y1 <= CAPTION_GAP * h]
    beside = [b for b in boxes if b is not box and abs(b.cy - box.cy) <= CAPTION_ROW * h
              and b.x1 <= box.x0 + 0.5 * h and box.x0 - b.x1 <= CAPTION_BESIDE * h]
    out = []
    if above:
        out.append(max(above, key=lambda b: b.y1))
    if beside:
        out.append(max(beside, key=lambda b: b.x1))
    return out
