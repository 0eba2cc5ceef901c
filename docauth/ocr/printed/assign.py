"""Which printed line is which field: by its caption, or by the value the MRZ says it holds.

A caption (:mod:`docauth.ocr.printed.labels`) names its field; its value is the nearest line below it that
starts near the caption's left edge (the ICAO layout), else the next line to its right on the same row, else
the tail of the caption's own line. A value so found is ``sure`` when the caption was read nearly exactly and
the value itself confidently, and it parses as its field's kind.

Where the document has an MRZ, the page prints what the zone encodes: :func:`find_in_print` looks for each
zone value among all the lines, so a field whose caption was misread is still found (``how="mrz"``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import date

from rapidfuzz.distance import Levenshtein

from docauth.ocr.mrz import transliterate
from docauth.ocr.printed.alignment import LineFrames
from docauth.ocr.printed.compare import strip_accents
from docauth.ocr.printed.dates import all_dates, find_date, same_day
from docauth.ocr.printed.labels import LabelMatch, label_field
from docauth.ocr.printed.rows import row_runs

FIELDS = ("surname", "given_names", "date_of_birth", "document_number", "expiry_date")
DATE_KINDS = {"date_of_birth": "birth", "expiry_date": "expiry"}
SURE_CAPTION = 90.0  # caption keyword score (rapidfuzz) at which its field is taken as read
SURE_VALUE = 0.85  # mean glyph probability at which a value is taken as read
CAPTION_GAP = 1.5  # of a value's height: the furthest its caption stands above it (ICAO 9303 part 3 layouts)
# Cards with a chip print a six-digit card access number (CAN, ICAO 9303 part 11) near the document number, under
# or beside its caption: a number of that shape may be either, so it is never sure enough to accuse the document.
CARD_ACCESS_NUMBER = re.compile(r"\d{6}")
# A printed value accuses the document (differs from the MRZ) only where each differing glyph was read at
# least this surely: a one-letter slip of the recogniser (P read R at 0.8) is no evidence.
SURE_GLYPH = 0.95
# How far a value may sit from its caption, in caption heights: below (gap) and to the right (gap).
BELOW_GAP = 2.2
RIGHT_GAP = 8.0
LEFT_SLACK = 2.0  # a value may start this many caption heights left of its caption


@dataclass
class PrintedLine:
    """One line of printed text on the upright page (page pixels)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    confidence: float
    glyph_confidences: tuple[float, ...] = ()
    label: LabelMatch | None = None
    frames: LineFrames | None = field(default=None, repr=False, compare=False)  # the recogniser's, for a known value

    @property
    def h(self) -> float:
        return self.y1 - self.y0

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def box(self) -> tuple[int, int, int, int]:
        return int(self.x0), int(self.y0), int(self.x1), int(self.y1)


@dataclass
class FieldRead:
    """A field as printed: its value (ISO date, upper-case name, number), the text it came from, how it was
    assigned (``label``, ``mrz``, ``layout``), and whether it is sure enough to accuse the document."""

    value: str
    text: str
    confidence: float
    how: str
    sure: bool
    box: tuple[int, int, int, int] = field(default=(0, 0, 0, 0))
    glyphs: tuple[tuple[str, float], ...] = field(default=(), repr=False)  # the line's characters, as read

    def export(self) -> dict:
        return {"value": self.value, "text": self.text, "confidence": round(float(self.confidence), 3),
                "how": self.how, "sure": bool(self.sure), "box": list(self.box)}


def with_labels(lines: list[PrintedLine]) -> list[PrintedLine]:
    for line in lines:
        line.label = label_field(line.text)
    return lines


def clean_name(text: str) -> str | None:
    """Upper-case letters (diacritics kept), single spaces, hyphens and apostrophes; None when fewer than two
    letters or when digits make up a third of it (a number, not a name)."""
    # A field marker before the value ("(a) MUSTERMANN", "[a MUSTERMANN" with its bracket half read).
    text = re.sub(r"^\s*[\[(]?\s*\w{1,2}\s*[\])]\s*|^\s*[\[(]\s*\w{1,2}\s+", "", text)
    digits = sum(c.isdigit() for c in text)
    letters = [c for c in text if c.isalpha()]
    if len(letters) < 2 or digits * 3 > len(letters):
        return None
    kept = re.sub(r"[^\w\s'\-]|[\d_]", " ", text.upper())
    kept = re.sub(r"\s*-\s*", "-", re.sub(r"\s+", " ", kept)).strip(" -'")
    return kept or None


def number_text(text: str) -> str:
    """A number's letters, digits and hyphens, upper case, all else (spaces, dots) dropped."""
    return re.sub(r"[^A-Z0-9\-]", "", text.upper())


def clean_number(text: str) -> str | None:
    """A document number: letters, digits and inner hyphens, spaces dropped; 5 to 18 characters with a digit."""
    kept = number_text(text).strip("-")
    if not 5 <= len(kept) <= 18 or not any(c.isdigit() for c in kept):
        return None
    return kept


def parse_value(name: str, text: str, today: date | None = None) -> str | None:
    if name in DATE_KINDS:
        found = find_date(text, kind=DATE_KINDS[name], today=today)
        return found[0] if found else None
    if name == "document_number":
        return clean_number(text)
    return clean_name(text)


def _below(caption: PrintedLine, line: PrintedLine) -> float | None:
    """How far below ``caption`` the line starts (in caption heights), when it sits where a value would."""
    h = max(caption.h, 1.0)
    gap = (line.y0 - caption.y1) / h
    if line.cy <= caption.cy + 0.4 * h or gap > BELOW_GAP:
        return None
    if caption.x0 - LEFT_SLACK * h <= line.x0 <= caption.x0 + max(0.6 * (caption.x1 - caption.x0), 3 * h):
        return max(gap, 0.0) + abs(line.x0 - caption.x0) / (8 * h)
    # Right-aligned columns (dates and numbers at a card's right edge) end where their caption ends.
    if abs(line.x1 - caption.x1) <= LEFT_SLACK * h:
        return max(gap, 0.0) + abs(line.x1 - caption.x1) / (8 * h)
    return None


def _right_of(caption: PrintedLine, line: PrintedLine) -> float | None:
    h = max(caption.h, line.h, 1.0)
    gap = (line.x0 - caption.x1) / h
    if abs(line.cy - caption.cy) > 0.45 * h or gap < -0.5 or gap > RIGHT_GAP:
        return None
    return max(gap, 0.0)


def assign_by_captions(lines: list[PrintedLine], today: date | None = None) -> dict[str, FieldRead]:
    """Each field's value from under (or beside) its caption; the surest caption wins a field."""
    out: dict[str, FieldRead] = {}
    used: set[int] = set()
    captions = [c for c in lines if c.label is not None and c.label.field in FIELDS]
    _given_names_by_order(captions)
    captions.sort(key=lambda c: -c.label.score)
    for caption in captions:
        name = caption.label.field
        if name in out and out[name].sure:
            continue
        found = _value_for(caption, lines, used, name, today)
        if found is None:
            continue
        read, index = found
        if name not in out or (read.sure and not out[name].sure):
            out[name] = read
            if index is not None:
                used.add(index)
                if caption.label.given_names_next and "given_names" not in out:
                    _given_names_under(lines[index], read.sure, lines, used, out)
    return out


def _given_names_under(surname: PrintedLine, sure: bool, lines: list[PrintedLine], used: set[int],
                       out: dict[str, FieldRead]) -> None:
    """Under one "Surname / Given names" caption, the given names are the value line under the surname's."""
    options = [(distance, i) for i, line in enumerate(lines)
               if i not in used and line.label is None and (distance := _below(surname, line)) is not None]
    for _, i in sorted(options):
        line = lines[i]
        value = clean_name(line.text)
        if value is not None:
            out["given_names"] = FieldRead(value, line.text, line.confidence, "label",
                                           sure and line.confidence >= SURE_VALUE, line.box, _glyphs(line))
            used.add(i)
            return


# Keywords that name the surname on some documents and the given names on others ("Name" under "Surname").
AMBIGUOUS_NAME_CAPTIONS = ("name", "nom", "naam", "nume", "nome")


def _given_names_by_order(captions: list[PrintedLine]) -> None:
    """A bare "Name" caption below another surname caption is the given names' (the surname came first)."""
    surnames = [c for c in captions if c.label.field == "surname"]
    for caption in surnames:
        if caption.label.keyword in AMBIGUOUS_NAME_CAPTIONS and any(
                other.y0 < caption.y0 and other is not caption for other in surnames):
            caption.label = replace(caption.label, field="given_names")


def _value_for(caption: PrintedLine, lines: list[PrintedLine], used: set[int], name: str,
               today: date | None) -> tuple[FieldRead, int | None] | None:
    sure_caption = caption.label.score >= SURE_CAPTION
    if caption.label.value_text:  # printed on the caption's own line
        value = parse_value(name, caption.label.value_text, today)
        if value is not None:
            sure = sure_caption and caption.confidence >= SURE_VALUE and not _may_be_access_number(name, value)
            return (FieldRead(value, caption.label.value_text, caption.confidence, "label", sure, caption.box,
                              _glyphs(caption)), None)
    options = []
    for i, line in enumerate(lines):
        if line is caption or i in used or line.label is not None:
            continue
        for where, distance in (("below", _below(caption, line)), ("right", _right_of(caption, line))):
            if distance is not None:
                options.append((distance + (0.5 if where == "right" else 0.0), i))
    runs = None
    for _, i in sorted(options):
        line = lines[i]
        value = parse_value(name, line.text, today)
        if value is None and name in DATE_KINDS:
            # A date the detector cut on its row ("20FEB" "1979"): its parts joined, no caption among them.
            if runs is None:
                runs = [(run[0], joined(run)) for run in row_runs([ln for ln in lines if ln.label is None])]
            line = next((whole for first, whole in runs if first is lines[i] and parse_value(name, whole.text, today)),
                        line)
            value = parse_value(name, line.text, today)
        if value is not None:
            sure = sure_caption and line.confidence >= SURE_VALUE and not _may_be_access_number(name, value)
            return FieldRead(value, line.text, line.confidence, "label", sure, line.box, _glyphs(line)), i
    return None


def _may_be_access_number(name: str, value: str) -> bool:
    """Could this number be the card's access number rather than its document number?

    >>> _may_be_access_number("document_number", "384213"), _may_be_access_number("document_number", "K9WVTR3HM")
    (True, False)
    """
    return name == "document_number" and CARD_ACCESS_NUMBER.fullmatch(value) is not None


def assign_dates_by_order(lines: list[PrintedLine], fields: dict[str, FieldRead], today: date | None = None) -> None:
    """Without a birth-date caption: the earliest printed date that is no caption's value is most likely the
    birth date (issue and expiry come later); never sure."""
    if "date_of_birth" in fields:
        return
    claimed = {f.box for f in fields.values()}
    dated = []
    for line in lines:
        if line.box in claimed or (line.label is not None and line.label.field is not None):
            continue
        iso = parse_value("date_of_birth", line.text, today)
        if iso is not None:
            dated.append((iso, line))
    if len(dated) >= 2:
        iso, line = min(dated, key=lambda d: d[0])
        fields["date_of_birth"] = FieldRead(iso, line.text, line.confidence, "layout", False, line.box, _glyphs(line))


# Names printed without a caption that was read: the surname and the given names are the two value lines over
# the birth date in its column (ICAO 9303 prints the names first, primary identifier over secondary), one
# under the other at most this many value heights apart (a caption between them), of a value's height.
NAME_PITCH = 2.2
NAME_HEIGHT = 0.8


def assign_names_by_order(lines: list[PrintedLine], fields: dict[str, FieldRead]) -> None:
    """Without a surname caption: the name lines stacked over the birth date, where they start, the surname over
    the given names; never sure (nothing names them).

    >>> lines = [PrintedLine("IDENTITY CARD", 40, 60, 380, 90, 0.95), PrintedLine("NOWAK", 375, 142, 474, 175, 0.99),
    ...          PrintedLine("JEAN-BAPTISTE", 378, 198, 571, 230, 0.99), PrintedLine("23 FEB 1951", 376, 312, 521, 344, 1.0)]
    >>> fields = {"date_of_birth": FieldRead("1951-02-23", "23 FEB 1951", 1.0, "layout", False, lines[3].box)}
    >>> assign_names_by_order(lines, fields)
    >>> fields["surname"].value, fields["given_names"].value, fields["surname"].how, fields["surname"].sure
    ('NOWAK', 'JEAN-BAPTISTE', 'layout', False)
    """
    if "surname" in fields or "date_of_birth" not in fields:
        return
    anchor = next((line for line in lines if line.box == fields["date_of_birth"].box), None)
    if anchor is None:
        return
    h = max(anchor.h, 1.0)
    claimed = {f.box for f in fields.values()}
    column = sorted((line for line in lines
                     if line.cy < anchor.y0 and abs(line.x0 - anchor.x0) <= h and line.h >= NAME_HEIGHT * h
                     and line.label is None and line.box not in claimed and not any(c.isdigit() for c in line.text)
                     and clean_name(line.text) is not None), key=lambda line: -line.y0)
    given = next((line for line in lines if "given_names" in fields and line.box == fields["given_names"].box), None)
    if given is None:
        if len(column) < 2:
            return
        given, column = column[0], column[1:]
        if given.y0 - column[0].y0 > NAME_PITCH * h:
            return
        fields["given_names"] = FieldRead(clean_name(given.text), given.text, given.confidence, "layout", False,
                                          given.box, _glyphs(given))
    surname = next((line for line in column if line.y0 < given.y0), None)
    if surname is None or given.y0 - surname.y0 > NAME_PITCH * h:
        if fields["given_names"].how == "layout":
            del fields["given_names"]
        return
    fields["surname"] = FieldRead(clean_name(surname.text), surname.text, surname.confidence, "layout", False,
                                  surname.box, _glyphs(surname))


# A document number printed without a caption (card fronts print it alone in a corner): one token of letters
# and digits, as long as ICAO 9303's number field (9) or a character shorter or longer. Card access numbers
# (6 digits) are shorter, personal numbers mostly longer.
UNCAPTIONED_NUMBER = re.compile(r"[A-Z0-9]{8,10}")
MIN_NUMBER_DIGITS = 2


def assign_number_by_shape(lines: list[PrintedLine], fields: dict[str, FieldRead], today: date | None = None
                           ) -> None:
    """Without a number caption: the topmost line that is one token shaped like a document number, no date,
    and no caption's value; never sure (nothing names it), so never evidence against the document.

    >>> lines = [PrintedLine("IDENTITY CARD", 10, 5, 200, 25, 0.99), PrintedLine("F1C00K00", 300, 4, 380, 24, 0.95),
    ...          PrintedLine("09041986", 10, 80, 90, 100, 0.99), PrintedLine("123456", 300, 90, 360, 110, 0.99)]
    >>> fields = {}
    >>> assign_number_by_shape(lines, fields)
    >>> fields["document_number"].value, fields["document_number"].how, fields["document_number"].sure
    ('F1C00K00', 'layout', False)
    """
    if "document_number" in fields:
        return
    claimed = {f.box for f in fields.values()}
    shaped = []
    for line in lines:
        token = line.text.strip().upper()
        if (line.box in claimed or line.label is not None or not UNCAPTIONED_NUMBER.fullmatch(token)
                or sum(c.isdigit() for c in token) < MIN_NUMBER_DIGITS or all_dates(token, today=today)):
            continue
        shaped.append(line)
    if shaped:
        line = min(shaped, key=lambda ln: ln.y0)
        fields["document_number"] = FieldRead(line.text.strip().upper(), line.text, line.confidence, "layout",
                                              False, line.box, _glyphs(line))


def _glyphs(line: PrintedLine) -> tuple[tuple[str, float], ...]:
    if len(line.glyph_confidences) != len(line.text):
        return tuple((c, line.confidence) for c in line.text)
    return tuple(zip(line.text, line.glyph_confidences))


def surely_differs(name: str, read: FieldRead, mrz_value: str) -> bool:
    """Does the printed read differ from the MRZ's value in glyphs the recogniser read surely? Names and
    numbers are aligned glyph by glyph (letters and digits only, accents dropped); dates need every digit of
    the printed line read surely."""
    if not read.sure:
        return False
    glyphs = [(c, p) for c, p in read.glyphs if c.isalnum()]
    if name in DATE_KINDS:  # every digit and month letter of the date's line
        return bool(glyphs) and min(p for _, p in glyphs) >= SURE_GLYPH
    printed = "".join(_plain_letter(c) for c, _ in glyphs)
    wanted = re.sub(r"[^A-Z0-9]", "", _plain_text(mrz_value))
    confidences = [p for _, p in glyphs]
    involved = []
    for op in Levenshtein.editops(printed, wanted):
        if op.tag in ("replace", "delete"):
            involved.append(confidences[op.src_pos])
        else:  # a glyph the print lacks: its neighbours vouch for the gap
            involved.extend(confidences[max(0, op.src_pos - 1):op.src_pos + 1])
    return bool(involved) and min(involved) >= SURE_GLYPH


def _plain_text(text: str) -> str:
    return "".join(_plain_letter(c) for c in text)


def _plain_letter(c: str) -> str:
    base = unicodedata.normalize("NFKD", c.upper())[:1]
    return base if base.isascii() else "?"


# --- the MRZ's values in print --------------------------------------------------------------------------------
_NUMBER_FOLD = str.maketrans("OQDILZSB", "00011258")


def _name_letters(text: str) -> str:
    return " ".join(re.findall(r"[A-Z]+", transliterate(text.upper().replace("0", "O"))))


# A name glued to the next is found by its letters at the start or end of the glued word only from this many
# letters: shorter ones begin or end other words by chance.
GLUED_NAME_LETTERS = 6
# What a name is glued to is another word, of two letters or more: one letter more is a name altered by it.
GLUED_WORD_LETTERS = 2


def _printed_name(text: str, wanted: str) -> str | None:
    """The words of ``text`` that print the MRZ name ``wanted`` (its letters transliterated, words apart), or
    None. Spaces the recogniser lost are put back where the zone has them; a long name the zone truncates
    matches by its start; a name read with its diacritics matches the zone's in their base letters.
    A name read in plain letters one letter apart is not found here: whether that letter is the recogniser's
    slip or printed so (a name altered by a letter) is for its probabilities to say (:mod:`.known`)."""
    words = (clean_name(text) or "").split()
    glued = wanted.replace(" ", "")
    runs = [" ".join(words[i:j]) for i in range(len(words)) for j in range(len(words), i, -1)]
    candidates = [(run, got) for run, got in ((run, _name_letters(run)) for run in runs) if got]
    # The name exactly as the zone has it first: a longer run of words that merely starts with it is the
    # truncated-name case, and may be this name followed by the next field's.
    base = _base_letters_pattern(wanted)
    for candidate, got in candidates:
        if got == wanted:
            return candidate
        if got.replace(" ", "") == glued:
            return _spaced_like(candidate, wanted)
        if base.fullmatch(got):
            return wanted
    for candidate, got in candidates:
        if len(wanted) >= 10 and got.startswith(wanted):
            return candidate
        if (len(glued) >= GLUED_NAME_LETTERS and " " not in got and len(got) >= len(glued) + GLUED_WORD_LETTERS
                and (got.startswith(glued) or got.endswith(glued))):
            # One word of many letters that begins or ends with the name: the recogniser lost the spaces between
            # the names printed on one line ("ERIKSSONANNAMARIA"); the page prints the zone's name there.
            return wanted
        if not candidate.isascii() and re.sub(r"[^A-Z]", "", strip_accents(candidate)) == glued:
            # Read with its diacritics, the name is as printed: the zone spells them the other way ICAO 9303
            # allows, their base letter alone (or the recogniser took one accent for another).
            return candidate
    return None


# Cyrillic capitals that a recogniser of Latin script reads as the Latin letters they look like (С as C, Р as P),
# each mapped to ICAO 9303's transliteration of the Cyrillic letter: a name a page prints in Cyrillic alone
# (ТЕСТ, read TECT) is then compared with the zone's Latin spelling (TEST). Look-alikes that transliterate to
# themselves (А Е К М О Т Ј) are left as read.
_CYRILLIC_AS_LATIN = str.maketrans({"C": "S", "P": "R", "H": "N", "B": "V", "Y": "U", "X": "KH"})


def as_cyrillic(text: str) -> str:
    """``text`` as the transliteration of the Cyrillic letters its Latin look-alikes may have been.

    >>> as_cyrillic("TECT"), as_cyrillic("HOBAK")  # ТЕСТ, НОВАК
    ('TEST', 'NOVAK')
    """
    return text.upper().translate(_CYRILLIC_AS_LATIN)


def _base_letters_pattern(wanted: str) -> re.Pattern:
    """The zone's name as a recogniser without Ä Ö Ü Å Ø glyphs reads it: their base letter alone, where the
    zone spells them in two letters (ICAO 9303: Ö is OE, Å is AA).

    >>> bool(_base_letters_pattern("BROWN OEZTUERK").fullmatch("BROWN OZTURK"))
    True
    """
    return re.compile(re.sub(r"([AOU])E|AA", lambda m: f"{m.group(1)}E?" if m.group(1) else "AA?", wanted))


def _spaced_like(printed: str, wanted: str) -> str:
    """``printed`` (its spaces lost) with the word breaks of the zone's ``wanted``, where its letters map one to
    one (no letter the transliteration widens)."""
    letters = printed.replace(" ", "")
    if len(letters) != len(wanted.replace(" ", "")):
        return printed
    out, k = [], 0
    for word in wanted.split():
        out.append(letters[k:k + len(word)])
        k += len(word)
    return " ".join(out)


def _stacked_pairs(lines: list[PrintedLine]):
    """Lines printed one under the other as one value: a name of several words that the page breaks over
    two lines, left-aligned, of one height, at the print's leading (the boxes, grown by the detector, may
    overlap); a field printed under another has its caption between them, half a line or more."""
    for upper in lines:
        for lower in lines:
            if (lower is not upper and abs(lower.x0 - upper.x0) < upper.h
                    and -0.3 * upper.h <= lower.y0 - upper.y1 < 0.5 * upper.h
                    and abs(lower.h - upper.h) < 0.3 * upper.h):
                yield upper, lower


def joined(run: list[PrintedLine]) -> PrintedLine:
    """The parts of one value that the detector cut apart on its row, read as one line (a space between).

    >>> run = [PrintedLine("20FEB", 497, 226, 625, 257, 0.98, (0.9,) * 5), PrintedLine("1979", 637, 225, 723, 254, 1.0)]
    >>> line = joined(run)
    >>> line.text, line.box, line.confidence, len(line.glyph_confidences)
    ('20FEB 1979', (497, 225, 723, 257), 0.98, 10)
    """
    glyphs: list[float] = []
    for i, part in enumerate(run):
        confidences = [c for _, c in _glyphs(part)]
        glyphs += ([min(glyphs[-1:] + confidences[:1])] if i else []) + confidences  # the space: its neighbours
    return PrintedLine(" ".join(part.text for part in run), min(p.x0 for p in run), min(p.y0 for p in run),
                       max(p.x1 for p in run), max(p.y1 for p in run), min(p.confidence for p in run), tuple(glyphs))


def find_in_print(name: str, mrz_value: str, lines: list[PrintedLine], today: date | None = None
                  ) -> FieldRead | None:
    """The line that prints the MRZ's value of ``name`` (names up to one OCR slip in five letters or more,
    dates the same day, numbers up to OCR's digit/letter confusions), as printed; a value the detector cut in
    parts on its row is looked for in its parts joined, after the lines as detected."""
    if not mrz_value:
        return None
    found = _find_in_lines(name, mrz_value, lines)
    if found is None:
        found = _find_in_lines(name, mrz_value, [joined(run) for run in row_runs(lines)])
    return found


def _find_in_lines(name: str, mrz_value: str, lines: list[PrintedLine]) -> FieldRead | None:
    if name in ("surname", "given_names"):
        wanted = _name_letters(mrz_value)
        if len(wanted.replace(" ", "")) < 2:
            return None
        for line in lines:
            value = _printed_name(line.text, wanted)
            if value is None and _printed_name(as_cyrillic(line.text), wanted) is not None:
                value = wanted  # printed in Cyrillic: the zone's spelling is its transliteration
            if value is not None:
                return FieldRead(value, line.text, line.confidence, "mrz", True, line.box, _glyphs(line))
        if " " in wanted:
            for upper, lower in _stacked_pairs(lines):
                text = f"{upper.text} {lower.text}"
                value = _printed_name(text, wanted)
                if value is not None:
                    box = (int(upper.x0), int(upper.y0), int(max(upper.x1, lower.x1)), int(lower.y1))
                    return FieldRead(value, text, min(upper.confidence, lower.confidence), "mrz", True, box,
                                     _glyphs(upper) + _glyphs(lower))
        return None
    if name in DATE_KINDS:
        # Some issuers print a date as six bare digits, day month year (DDMMYY): read alone that is no date
        # (a number prints the same way), but the zone's own day written so confirms it.
        compact = re.compile(r"(?<!\d)%s%s%s(?!\d)" % (mrz_value[8:10], mrz_value[5:7], mrz_value[2:4]))
        for line in lines:
            for printed in all_dates(line.text):
                if same_day(mrz_value, printed):
                    day, month, year, four = printed
                    # The zone gives the year in two digits; a printed four-digit year settles the century.
                    value = date(year, month, day).isoformat() if four else mrz_value
                    return FieldRead(value, line.text, line.confidence, "mrz", True, line.box, _glyphs(line))
        for line in lines:
            if compact.search(re.sub(r"\s", "", line.text)):
                return FieldRead(mrz_value, line.text, line.confidence, "mrz", True, line.box, _glyphs(line))
        # Issuers in the United States print the month first ("10/04/49"): the zone's day so written, separators
        # and all, is that day.
        month_first = re.compile(r"(?<![\d.\-/])%s\s*([./\-])\s*%s\s*\1\s*(19|20)?%s(?![\d.\-/])"
                                 % (mrz_value[5:7], mrz_value[8:10], mrz_value[2:4]))
        # Spaces alone may stand for the separators ("07 23 85"), or none be read ("072385"), where the day is no
        # month, so the digits read day first are no date (bare DDMMYY is ``compact``'s), and are no part of a
        # longer run of digits (an empty group in the separator's place keeps the century the second group).
        month_spaced = re.compile(r"(?<![\d.\-/])(?<!\d\s)%s\s*%s\s*(?P<sep>)(19|20)?%s(?![\d.\-/])(?!\s\d)"
                                  % (mrz_value[5:7], mrz_value[8:10], mrz_value[2:4]))
        day_no_month = int(mrz_value[8:10]) > 12
        for line in lines:
            m = month_first.search(line.text) or (month_spaced.search(line.text) if day_no_month else None)
            if m is not None:
                value = f"{m.group(2)}{mrz_value[2:]}" if m.group(2) else mrz_value
                return FieldRead(value, line.text, line.confidence, "mrz", True, line.box, _glyphs(line))
        return None
    if name == "document_number":
        wanted = re.sub(r"[^A-Z0-9]", "", mrz_value.upper()).translate(_NUMBER_FOLD)
        if len(wanted) < 5:
            return None
        value = re.sub(r"[^A-Z0-9]", "", mrz_value.upper())
        for line in lines:
            got = re.sub(r"[^A-Z0-9]", "", line.text.upper())
            if wanted in got.translate(_NUMBER_FOLD):
                # O and 0, I and 1 are one glyph in many print fonts: the zone's OCR-B and check digit say which.
                return FieldRead(value, line.text, line.confidence, "mrz", True, line.box, _glyphs(line))
        return None
    return None
