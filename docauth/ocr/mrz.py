"""ICAO 9303 machine-readable zone: parse, check, correct. Never raises.

``parse_mrz`` accepts a string (lines separated by newlines or ``|``) or a list
of lines, guesses the format from the line count and lengths, fixes what the
check digits and the character class of each position justify, and scores the
result instead of failing (PassportEye style).

TD3 passport (ICAO 9303 part 4 specimen):

>>> r = parse_mrz("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<|"
...               "L898902C36UTO7408122F1204159ZE184226B<<<<<10", today=date(2026, 1, 1))
>>> r.type, r.valid, r.score
('TD3', True, 100)
>>> r.fields["surname"], r.fields["given_names"], r.fields["document_number"]
('ERIKSSON', 'ANNA MARIA', 'L898902C3')
>>> r.fields["date_of_birth"], r.fields["expiry_date"], r.fields["personal_number"]
('1974-08-12', '2012-04-15', 'ZE184226B')
>>> sorted(r.checks)
['composite', 'date_of_birth', 'document_number', 'expiry_date', 'personal_number']

TD2 (ICAO specimen) and TD1 (ICAO-style specimen with a long document number):

>>> r = parse_mrz(["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
...                "D231458907UTO7408122F1204159<<<<<<<6"])
>>> r.type, r.valid, r.fields["document_number"], r.fields["nationality"]
('TD2', True, 'D23145890', 'UTO')
>>> r = parse_mrz("I<UTOD231458907<<<<<<<<<<<<<<<\\n7408122F1204159UTO<<<<<<<<<<<6\\nERIKSSON<<ANNA<MARIA<<<<<<<<<<")
>>> r.type, r.valid, r.fields["document_number"], r.fields["sex"]
('TD1', True, 'D23145890', 'F')
>>> r = parse_mrz(["I<UTOD23145890<7349<<<<<<<<<<<", "3407127M9507122UTO<<<<<<<<<<<2",
...                "STEVENSON<<PETER<JOHN<<<<<<<<<"], today=date(2026, 1, 1))
>>> r.type, r.valid, r.fields["document_number"], r.checks["document_number"]["read"], r.fields["expiry_date"]
('TD1', True, 'D23145890734', '9', '1995-07-12')

MRV-A and MRV-B visas (ICAO specimens; no composite check):

>>> r = parse_mrz("V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<|L8988901C4XXX4009078F96121096ZE184226B<<<<<<")
>>> r.type, r.valid, r.fields["nationality"], r.fields["optional_data"], sorted(r.checks)
('MRVA', True, 'XXX', '6ZE184226B', ['date_of_birth', 'document_number', 'expiry_date'])
>>> r = parse_mrz("V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<|L8988901C4XXX4009078F9612109<<<<<<<<")
>>> r.type, r.valid, r.fields["date_of_birth"], r.fields["expiry_date"]
('MRVB', True, '1940-09-07', '1996-12-10')

A deliberately wrong check digit is reported, not "fixed" (digits have no
look-alike to swap in without recogniser evidence):

>>> r = parse_mrz("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<|L898902C36UTO7408121F1204159ZE184226B<<<<<10")
>>> r.valid, r.checks["date_of_birth"]["ok"], r.checks["composite"]["ok"], r.corrections
(False, False, False, [])

OCR confusions are corrected where the position's class or a check digit
justifies it, and every correction is reported:

>>> r = parse_mrz("P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<|L898902C36UT07408I22F12O4159ZE184226B<<<<<1O")
>>> r.valid, r.lines[1]
(True, 'L898902C36UTO7408122F1204159ZE184226B<<<<<10')
>>> [(c["line"], c["pos"], c["from"], c["to"]) for c in r.corrections]
[(1, 12, '0', 'O'), (1, 17, 'I', '1'), (1, 23, 'O', '0'), (1, 43, 'O', '0')]

In a field that may hold letters and digits only the check digit can decide;
the filler read as ``K`` after a name is put back:

>>> r = parse_mrz(["P<UTOERIKSSON<<ANNA<MARIA<<<<K<<<<<<<<<<<<<<",
...                "L8989O2C36UTO7408122F1204159ZE184226B<<<<<10"])
>>> r.valid, [(c["pos"], c["from"], c["to"], c["reason"]) for c in r.corrections]
(True, [(29, 'K', '<', 'name filler'), (5, 'O', '0', 'document_number check digit')])

Garbage never raises; it scores 0:

>>> r = parse_mrz("not an MRZ at all ☃")
>>> r.type, r.valid, r.score
(None, False, 0)
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date
from typing import Iterable, Sequence

from docauth.dates import full_date
from docauth.ocr.checkdigit import check_digit

MRZ_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
FORMATS = {  # type -> (lines, line length)
    "TD1": (3, 30),
    "TD2": (2, 36),
    "TD3": (2, 44),
    "MRVA": (2, 44),
    "MRVB": (2, 36),
}

# Look-alikes an OCR engine swaps. Digit <-> letter pairs are applied by
# position class; the filler '<' is misread as one of these letters.
LETTER_TO_DIGIT = {"O": "0", "Q": "0", "D": "0", "U": "0", "I": "1", "L": "1", "T": "1", "Z": "2",
                   "S": "5", "G": "6", "B": "8", "A": "4", "E": "3"}
DIGIT_TO_LETTER = {"0": "O", "1": "I", "2": "Z", "4": "A", "5": "S", "6": "G", "8": "B", "7": "T"}
FILLER_LOOKALIKES = set("KXCLE")
# Cost (negative log probability) given to a table look-alike when the
# recogniser gave no probabilities for it.
TABLE_COST = 3.0
MAX_SUBSTITUTION_COST = 4.6  # ~ p >= 0.01: weaker evidence never flips a character
# A filler read inside a date: every digit is a candidate at this cost (weaker than any look-alike, so a
# recogniser alternative wins where there is one). The composite check must confirm the choice.
LOST_DIGIT_COST = 4.0
DATE_FIELDS = frozenset({"date_of_birth", "expiry_date"})

# Position classes: 'A' letters/<, 'N' digits/<, 'X' any, 'S' sex, 'C' check digit; the document
# code's first letter by format (ICAO 9303: cards A/C/I, passports P, visas V), which no check digit covers.
# Check groups: name -> (list of (line, start, stop) field slices, (line, pos) check digit).
_LAYOUTS: dict[str, dict] = {}


def _layout(type_, classes: list[str], checks: dict):
    _LAYOUTS[type_] = {"classes": classes, "checks": checks}


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


@dataclass
class MRZResult:
    """What was read, what was checked, what was corrected."""

    type: str | None = None
    lines: list[str] = field(default_factory=list)
    raw_lines: list[str] = field(default_factory=list)
    valid: bool = False
    score: int = 0
    structure_ok: bool = False
    checks: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)
    corrections: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    zone_top: float | None = None  # where the reader found the zone (fraction of the page height); not exported
    # (line, pos) the recogniser read with probability under MIN_UNCHECKED_P; None without its alternatives.
    # Not exported: it serves field_is_certain.
    uncertain: list | None = None
    # Per line and position, the recogniser's ranked (char, probability) candidates; None without them.
    # Not exported: it serves confirm_in_print.
    alternatives: list | None = None

    def field_is_certain(self, name: str) -> bool:
        """Is this field read well enough to stand on its own when the MRZ as a whole is not valid?

        A field with a check digit: its check passes and no more than one of its characters is uncertain.
        Needs the recogniser's alternatives; without them nothing is certain. (Names have no check digit:
        the reader takes them from any MRZ that has its structure.)
        """
        if self.uncertain is None or not self.structure_ok or self.type not in _LAYOUTS:
            return False
        check = self.checks.get(name)
        return bool(check and check.get("ok") and not check.get("doubtful"))

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def export(self) -> dict:
        return {
            "type": self.type,
            "lines": list(self.lines),
            "valid": bool(self.valid),
            "score": int(self.score),
            "checks": {k: dict(v) for k, v in self.checks.items()},
            "fields": dict(self.fields),
            "corrections": [dict(c) for c in self.corrections],
            "warnings": list(self.warnings),
        }


# ---------------------------------------------------------------------------
def parse_mrz(
    text_or_lines: str | Sequence[str] | None,
    *,
    alternatives: Sequence[Sequence[Sequence[tuple[str, float]]]] | None = None,
    today: date | None = None,
    correct: bool = True,
) -> MRZResult:
    """Parse an MRZ read by any OCR; never raises.

    ``alternatives`` optionally gives, per line and position, the recogniser's
    ranked ``(char, probability)`` candidates; check-digit correction then
    prefers substitutions the recogniser itself found likely.
    """
    try:
        return _parse(text_or_lines, alternatives, today or date.today(), correct)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError) as exc:
        # A bug must not turn noisy input into a crash; report it as unreadable.
        return MRZResult(warnings=[f"unparseable input: {type(exc).__name__}"])


def _split_lines(text_or_lines) -> list[str]:
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


def _detect_format(lines: list[str]) -> tuple[str | None, list[int]]:
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


# A character outside every check-digit field is trusted for `valid` only above this recogniser
# probability. 0.6 let a confident misreading of a name through (SOPHZE for SOPHIE at p 0.71, 2 of 230
# synthetic captures reported valid but wrong); 0.8 flagged them, at the cost of more MRZs for review.
MIN_UNCHECKED_P = 0.8


def _parse(text_or_lines, alternatives, today: date, correct: bool,
           min_unchecked_p: float = MIN_UNCHECKED_P) -> MRZResult:
    raw = _split_lines(text_or_lines)
    result = MRZResult(raw_lines=list(raw))
    type_, idx = _detect_format(raw)
    if type_ is None:
        result.lines = raw
        result.warnings.append("no MRZ format matches the line count and lengths")
        return result
    count, length = FORMATS[type_]
    lines = [raw[i] for i in idx]
    alts = None
    if alternatives is not None:
        try:
            alts = [list(alternatives[i]) for i in idx]
        except (IndexError, TypeError):
            alts = None
    if correct and any(len(line) != length for line in lines):
        refitted = _refit_filler_runs(lines, alts, type_, today, min_unchecked_p)
        if refitted is not None:
            refitted.raw_lines = list(raw)
            return refitted
    result.type = type_
    structure_ok = True
    fixed = []
    for n, line in enumerate(lines):
        if len(line) != length:
            structure_ok = False
            result.warnings.append(f"line {n} has {len(line)} characters, {type_} needs {length}")
            line = (line + "<" * length)[:length]
            if alts is not None:
                alts[n] = (list(alts[n]) + [[("<", 1.0)]] * length)[:length]
        fixed.append(line)
    grid = [list(line) for line in fixed]
    layout = _LAYOUTS[type_]
    corrections: list[dict] = []

    # 1. characters outside the MRZ set
    for n, row in enumerate(grid):
        for i, ch in enumerate(row):
            if ch not in MRZ_CHARS:
                to = _best_alt(alts, n, i, allowed=_allowed(layout["classes"][n][i])) or "<"
                corrections.append(_corr(n, i, ch, to, "not an MRZ character"))
                row[i] = to
    # 2. position classes (digits where digits must be, letters in names/codes)
    if correct:
        _undouble_document_code(grid, type_, alts, corrections)
        _apply_classes(grid, layout, alts, corrections)
        _fix_name_filler(grid, type_, corrections)
        _fix_optional_filler(grid, type_, corrections)
        # 3. check-digit guided substitutions
        _check_digit_search(grid, type_, layout, alts, corrections)
        # 4. issuing state and nationality: no check digit covers them, the list of codes does
        _fix_country_codes(grid, type_, alts, corrections, result.warnings)
        _confirm_codes_by_each_other(grid, type_, alts, corrections, min_unchecked_p)
        _lone_letters_in_digits(grid, layout, alts, corrections, min_unchecked_p)

    grid_before_checks = grid
    result.alternatives = alts
    if alts is not None:
        result.uncertain = [(n, i) for n, row in enumerate(grid) for i, ch in enumerate(row)
                            if i < len(alts[n]) and dict(alts[n][i]).get(ch, 0.0) < min_unchecked_p]
    result.lines = ["".join(r) for r in grid]
    result.corrections = corrections
    result.checks = _run_checks(result.lines, type_, layout)
    result.fields = _extract_fields(result.lines, type_, today, result.warnings)
    classes_ok = _classes_hold(result.lines, layout)
    essentials = _essentials_present(result.fields, result.warnings)
    result.structure_ok = structure_ok and classes_ok and essentials
    result.valid = result.structure_ok and all(c["ok"] for c in result.checks.values())
    if result.valid and alts is not None:
        # Check digits cover numbers and dates only; names, codes and optional data are
        # trusted only when the recogniser itself was sure of every character.
        doubtful = _doubtful_unchecked(grid_before_checks, alts, layout, result.uncertain)
        if doubtful:
            result.valid = False
            result.warnings.append("uncertain characters no check digit vouches for at "
                                   + ", ".join(f"line {n} pos {i}" for n, i in doubtful[:6]))
    if result.valid and any(c["reason"] == "composite check digit" for c in corrections):
        # The composite chose that substitution among the recogniser's candidates: passing it afterwards
        # verifies nothing (a digit read twice in the optional data, then one 'corrected', passed so).
        result.valid = False
        result.warnings.append("a correction only the composite check digit chose: no other check confirms it")
    if result.uncertain is not None:
        for name in _weakly_checked(set(result.uncertain), layout):
            if result.checks.get(name, {}).get("ok"):
                result.checks[name]["doubtful"] = True
                result.valid = False
                result.warnings.append(f"{name}: {MAX_UNCERTAIN_IN_CHECKED_FIELD + 1}+ uncertain characters "
                                       "pass its check digit (1 in 10 would by chance)")
    result.score = _score(result, structure_ok, classes_ok)
    if correct and type_ in _VISA_TWINS and result.uncertain and (0, 0) in result.uncertain:
        twin = _read_as_twin(lines, alts, type_, today, min_unchecked_p)
        if twin is not None:
            twin.raw_lines = list(raw)
            return twin
    return result


# A visa's zone has the lines of a passport's (MRV-A: TD3) or a card's (MRV-B: TD2); only the first letter and
# the check digits a visa lacks (the personal number's, the composite) tell them apart. A first letter read
# unsurely (a blurred P read V 0.47 / W 0.42) is settled by those check digits: when the passport's or card's
# all pass, the zone is one (by chance 1 in 10 to 100; a visa's optional data, fillers mostly, fails them).
# The letter stays uncertain (it was not read), so such a zone is reported invalid.
_VISA_TWINS = {"MRVA": ("TD3", "P"), "MRVB": ("TD2", "ACI")}


def _read_as_twin(lines, alts, type_, today, min_unchecked_p) -> MRZResult | None:
    """The zone parsed as the passport or card format with a visa's lines, if every check digit passes.

    >>> lines = ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    >>> alts = [[[(c, 1.0)] for c in line] for line in lines]
    >>> alts[0][0] = [("V", 0.47), ("W", 0.42), ("<", 0.02)]      # a blurred P
    >>> r = parse_mrz(lines, alternatives=alts)
    >>> r.type, r.lines[0][:5], r.corrections[0]["reason"], r.valid
    ('TD3', 'P<UTO', 'document code: the TD3 check digits hold', False)

    A visa's own zone fails the passport's checks and stays a visa:

    >>> visa = ["V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L8988901C4XXX4009078F96121096ZE184226B<<<<<<"]
    >>> visa_alts = [[[(c, 1.0)] for c in line] for line in visa]
    >>> visa_alts[0][0] = [("V", 0.47), ("W", 0.42), ("<", 0.02)]
    >>> parse_mrz(visa, alternatives=visa_alts).type
    'MRVA'
    """
    twin_type, letters = _VISA_TWINS[type_]
    candidates = [c for c, _p in alts[0][0] if c in letters]
    if not candidates and len(letters) > 1:
        return None  # which of a card's letters (A, C, I) it is, the recogniser must say
    letter = candidates[0] if candidates else letters
    first = letter + lines[0][1:]
    twin = _parse([first, *lines[1:]], alts, today, True, min_unchecked_p)
    if twin.type != twin_type or not checks_pass(twin):
        return None
    twin.corrections.insert(0, _corr(0, 0, lines[0][0], letter, f"document code: the {twin_type} check digits hold"))
    return twin


def checks_pass(result: MRZResult) -> bool:
    """Structure sound and every check digit passes, none only after a correction the composite chose."""
    return (result.structure_ok and all(check["ok"] for check in result.checks.values())
            and not any(c["reason"] == "composite check digit" for c in result.corrections))


# A recogniser that reads by frames (CTC) merges a repeated character it saw no gap in, and a run of
# fillers is where that happens: a line a filler or two short is refitted inside its runs when that is
# what puts its check digits back in place.
MAX_REFIT = 2
MAX_REFIT_READINGS = 48


def _filler_run_edits(line: str, missing: int) -> list[tuple[str, list[int], int]]:
    """Each way of putting ``missing`` fillers back into (or, negative, taking them out of) one run of
    fillers: (line, positions changed, position of the edit), the run at the line's end last.

    >>> [text for text, _, _ in _filler_run_edits("AB<C<<D", 1)]
    ['AB<<C<<D', 'AB<C<<<D', 'AB<C<<D<']
    >>> [text for text, _, _ in _filler_run_edits("AB<C<<D", -1)]
    ['ABC<<D', 'AB<C<D']
    """
    out = []
    for run in re.finditer(r"<+", line):
        end = run.end()
        if missing > 0:
            out.append((line[:end] + "<" * missing + line[end:], list(range(end, end + missing)), end))
        elif len(run.group()) >= -missing:
            out.append((line[:end + missing] + line[end:], [], end + missing))
    if missing > 0 and not line.endswith("<"):
        out.append((line + "<" * missing, list(range(len(line), len(line) + missing)), len(line)))
    out.sort(key=lambda o: o[2] >= len(line))  # stable: the line's own end (plain padding) last
    return out


def _refit_filler_runs(lines, alts, type_, today, min_unchecked_p) -> MRZResult | None:
    """The block read again with each misfit line refitted inside one of its filler runs; the refit is
    taken only when exactly one text makes every check digit pass (a line no check digit reads, a name
    line, never qualifies: any refit would pass, so none is chosen). None when no refit is taken.
    """
    from itertools import product

    length = FORMATS[type_][1]
    per_line = []
    for n, line in enumerate(lines):
        missing = length - len(line)
        if missing == 0:
            per_line.append([(line, None if alts is None else list(alts[n]), [], None)])
            continue
        if abs(missing) > MAX_REFIT:
            return None
        options = []
        for text, added, at in _filler_run_edits(line, missing):
            line_alts = None
            if alts is not None:
                a = list(alts[n])
                line_alts = (a[:at] + [[("<", 1.0)]] * missing + a[at:]) if missing > 0 else (a[:at] + a[at - missing:])
            options.append((text, line_alts, added, at))
        per_line.append(options)
    if math.prod(len(options) for options in per_line) > MAX_REFIT_READINGS:
        return None  # a line in pieces, not one that lost a filler
    passing = {}
    for combo in product(*per_line):
        texts = [o[0] for o in combo]
        cand_alts = None if alts is None else [o[1] for o in combo]
        r = _parse(texts, cand_alts, today, True, min_unchecked_p)
        if r.type == type_ and r.structure_ok and r.checks and all(c["ok"] for c in r.checks.values()):
            passing.setdefault(tuple(r.lines), (r, combo))
    if len(passing) != 1:
        return None
    (r, combo), = passing.values()
    refits = []
    for n, (text, _a, added, at) in enumerate(combo):
        if len(text) == len(lines[n]):
            continue
        if added:
            refits.extend(_corr(n, pos, "", "<", "filler lost in a run of fillers") for pos in added)
        else:
            refits.append(_corr(n, at, "<", "", "filler read twice in a run of fillers"))
        r.warnings.append(f"line {n} had {len(lines[n])} characters, {type_} needs {length}: "
                          "refitted in a run of fillers, which puts its check digits in place")
    r.corrections = refits + r.corrections
    return r


# A name word is looked up in the printed text only when it is this long: shorter ones occur by chance
# among the printed words (codes, abbreviations, months).
MIN_CONFIRMED_NAME_WORD = 3
MAX_UNCERTAIN_IN_NAME_WORD = 3
NAME_ALTERNATIVES = 3  # the recogniser's top candidates tried at an uncertain letter


def confirm_in_print(result: MRZResult, printed_words, *, today: date | None = None) -> MRZResult:
    """The MRZ's uncertain name and country-code letters settled by the document's printed text; the same
    result if none is (codes: :func:`_codes_in_print`, reason ``printed code``).

    Names carry no check digit, so an uncertain letter in one (the recogniser gave it under MIN_UNCHECKED_P)
    keeps the MRZ from being valid. The visual zone prints the same names: a name word whose read, or exactly
    one variant over the recogniser's own top candidates at its uncertain letters, is a word printed on the
    page is taken as confirmed (corrections name the reason ``printed name``). ``printed_words``: the page's
    words, upper case, MRZ-transliterated (see :func:`docauth.ocr.printed.compare.printed_name_words`).

    >>> lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    >>> alts = [[[(c, 1.0)] for c in line] for line in lines]
    >>> alts[0][9] = [("Z", 0.55), ("S", 0.4), ("5", 0.05)]                 # ERIKZSON: is it an S?
    >>> read = parse_mrz([lines[0][:9] + "Z" + lines[0][10:], lines[1]], alternatives=alts)
    >>> read.valid, read.fields["surname"]
    (False, 'ERIKZSON')
    >>> settled = confirm_in_print(read, {"ERIKSSON", "ANNA", "MARIA", "PASSPORT"})
    >>> settled.valid, settled.fields["surname"], settled.corrections[-1]["reason"]
    (True, 'ERIKSSON', 'printed name')
    >>> confirm_in_print(read, {"ANNA", "MARIA"}).valid      # not printed: stays unsure
    False
    """
    import itertools

    if (result.alternatives is None or not result.uncertain or not result.structure_ok
            or result.type not in _LAYOUTS):
        return result
    printed = {w for w in printed_words if len(w) >= MIN_CONFIRMED_NAME_WORD}
    uncertain = set(result.uncertain)
    settled: dict[tuple[int, int], str] = {}
    for n, start, stop in _name_slices(result.type):
        line = result.lines[n]
        for word in re.finditer(r"[A-Z]+", line[start:stop]):
            a, b = start + word.start(), start + word.end()
            doubt = [i for i in range(a, b) if (n, i) in uncertain]
            if not doubt or len(doubt) > MAX_UNCERTAIN_IN_NAME_WORD or b - a < MIN_CONFIRMED_NAME_WORD:
                continue
            options = []
            for i in doubt:
                ranked = [c for c, _p in result.alternatives[n][i] if c.isalpha()][:NAME_ALTERNATIVES]
                options.append(list(dict.fromkeys([line[i], *ranked])))
            found = set()
            for choice in itertools.product(*options):
                chars = list(line[a:b])
                for i, c in zip(doubt, choice):
                    chars[i - a] = c
                if "".join(chars) in printed:
                    found.add(choice)
            if len(found) == 1:
                for i, c in zip(doubt, found.pop()):
                    settled[(n, i)] = c
    settled.update(_codes_in_print(result, printed_words, uncertain))
    if not settled:
        return result
    lines = [list(line) for line in result.lines]
    alternatives = [list(row) for row in result.alternatives]
    confirmations = []
    codes = {(n, start + j) for n, start, _name in _code_slices(result.type) for j in range(3)}
    for (n, i), c in sorted(settled.items()):
        if lines[n][i] != c:
            confirmations.append(_corr(n, i, lines[n][i], c, "printed code" if (n, i) in codes else "printed name"))
        lines[n][i] = c
        alternatives[n][i] = [(c, 1.0)]
    again = parse_mrz(["".join(row) for row in lines], alternatives=alternatives, today=today)
    again.corrections = result.corrections + confirmations + [
        c for c in again.corrections if c not in result.corrections]
    again.zone_top = result.zone_top
    again.raw_lines = result.raw_lines
    return again


def _codes_in_print(result: MRZResult, printed_words, uncertain: set) -> dict[tuple[int, int], str]:
    """The uncertain letters of the issuing-state and nationality codes, as the one known code printed on the
    page that has the code's sure letters: data pages print the issuing state's code (and often the holder's
    nationality) in their visual zone. A letter blurred past reading (CHE's E read L 0.39 / < 0.16 / C 0.07)
    has no candidate to go by, so the print alone decides, and only when exactly one printed code fits.

    >>> lines = ["P<CHLKELLY<<ANTONIO<<<<<<<<<<<<<<<<<<<<<<<<<", "8664501376CHE9505036M1503070<<<<<<<<<<<<<<<4"]
    >>> read = MRZResult(type="TD3", lines=lines)
    >>> _codes_in_print(read, {"CHE", "SEX", "KELLY"}, {(0, 4)})
    {(0, 4): 'E'}
    >>> _codes_in_print(read, {"CHE", "CHN"}, {(0, 4)})          # two printed codes fit: undecided
    {}
    """
    from docauth.ocr.countries import is_known_code

    printed = {w for w in printed_words if len(w) == 3 and is_known_code(w)}
    settled: dict[tuple[int, int], str] = {}
    for n, start, _name in _code_slices(result.type):
        code = result.lines[n][start:start + 3]
        doubt = [j for j in range(3) if (n, start + j) in uncertain]
        if not doubt or len(code) != 3:
            continue
        fitting = [w for w in printed if all(w[j] == code[j] for j in range(3) if j not in doubt)]
        if len(fitting) == 1:
            settled.update({(n, start + j): fitting[0][j] for j in doubt})
    return settled


def _corr(line, pos, frm, to, reason) -> dict:
    return {"line": line, "pos": pos, "from": frm, "to": to, "reason": reason}


DOCUMENT_CODE_LETTERS = {"1": "ACI", "3": "P", "V": "V"}  # classes of a line's first position


def _allowed(cls: str) -> str:
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


def _best_alt(alts, n, i, allowed: str) -> str | None:
    if alts is None:
        return None
    for ch, _p in alts[n][i]:
        if ch in allowed:
            return ch
    return None


def _apply_classes(grid, layout, alts, corrections):
    for n, row in enumerate(grid):
        classes = layout["classes"][n]
        for i, ch in enumerate(row):
            cls = classes[i]
            allowed = _allowed(cls)
            if ch in allowed:
                continue
            to = _best_alt(alts, n, i, allowed)
            if to is None:
                if cls in ("N", "C"):
                    to = LETTER_TO_DIGIT.get(ch)
                elif cls == "A":
                    to = DIGIT_TO_LETTER.get(ch)
                elif cls == "S":
                    to = {"H": "M", "N": "M", "P": "F", "E": "F", "K": "X"}.get(ch)
                elif cls in DOCUMENT_CODE_LETTERS:
                    letters = DOCUMENT_CODE_LETTERS[cls]
                    to = letters if len(letters) == 1 else {"J": "I", "T": "I", "1": "I", "L": "I", "<": "I",
                                                            "O": "C", "G": "C", "0": "C", "4": "A"}.get(ch)
            if to is None:
                continue  # leave it; the structure check reports it
            reason = {"N": "digit position", "C": "check digit position", "A": "letter position",
                      "S": "sex position"}.get(cls, "document code")
            corrections.append(_corr(n, i, ch, to, reason))
            row[i] = to


def _name_slices(type_) -> list[tuple[int, int, int]]:
    if type_ == "TD1":
        return [(2, 0, 30)]
    return [(0, 5, FORMATS[type_][1])]


def _fix_name_filler(grid, type_, corrections):
    """After a run of three '<' a name holds only filler: ICAO names never contain '<<<'."""
    for n, start, stop in _name_slices(type_):
        text = "".join(grid[n][start:stop])
        k = text.find("<<<")
        if k < 0:
            continue
        tail = text[k:]
        letters = [j for j, ch in enumerate(tail) if ch != "<"]
        if not letters or len(letters) > 0.3 * len(tail):
            continue  # a real name continues (or the read is garbage): leave it
        for j in letters:
            pos = start + k + j
            ch = grid[n][pos]
            corrections.append(_corr(n, pos, ch, "<", "name filler"))
            grid[n][pos] = "<"


def _undouble_document_code(grid, type_, alts, corrections):
    """A name line whose document code was read with one glyph twice ('PPDAUS' for 'PDAUS...'): the reading
    is held to the format's length, so a doubled glyph pushes the issuing state one place right and drops
    the line's last filler. Taken back only when it is that and nothing else: the state as read is no known
    code, dropping the doubled glyph brings a known one into place, and the line ends in fillers (no check
    digit covers this line, the list of codes does).

    >>> grid = [list("PPDAUSWEISS<<EMMA" + "<" * 27), list("X" * 44)]
    >>> fixes = []
    >>> _undouble_document_code(grid, "TD3", None, fixes)
    >>> "".join(grid[0][:11]), [(c["pos"], c["from"], c["to"]) for c in fixes]
    ('PDAUSWEISS<', [(0, 'P', ''), (43, '', '<')])
    >>> grid = [list("PPAUTRODRIGUEZ<<OMAR" + "<" * 24), list("X" * 44)]    # AUT is a code: left as read
    >>> _undouble_document_code(grid, "TD3", None, [])
    >>> "".join(grid[0][:8])
    'PPAUTROD'
    """
    from docauth.ocr.countries import is_known_code

    if FORMATS[type_][0] != 2:  # TD1's first line carries the document number and its check digit instead
        return
    line = grid[0]
    if is_known_code("".join(line[2:5])) or line[-1] != "<":
        return
    for k in (0, 1):
        if line[k] == line[k + 1] and is_known_code("".join(line[3:6])):
            del line[k]
            line.append("<")
            if alts is not None:
                alts[0] = list(alts[0][:k]) + list(alts[0][k + 1:]) + [[("<", 1.0)]]
            corrections += [_corr(0, k, line[k], "", "glyph read twice in the document code"),
                            _corr(0, len(line) - 1, "", "<", "filler pushed out by the doubled glyph")]
            return


def _code_slices(type_) -> list[tuple[int, int, str]]:
    """(line, start, name) of the three-letter codes: issuing state, nationality."""
    return [(0, 2, "issuing state"), (1, 15, "nationality") if type_ == "TD1" else (1, 10, "nationality")]


def _fix_country_codes(grid, type_, alts, corrections, warnings):
    """A code that is no country's, respelled as the likeliest one that is.

    From the recogniser's candidates (its top three per letter, each within the cost a check digit would be
    allowed, MAX_SUBSTITUTION_COST); failing that, as the document's other code when one letter apart.
    A code that cannot be respelled is left as read, with a warning: an unknown code on a sharp read is the
    document's, not OCR's.

    >>> alts = [[("E", 0.6), ("C", 0.4)], [("Z", 1.0)], [("E", 1.0)]]
    >>> grid, fixes = [list("P<EZE"), list("0" * 10 + "EZE")], []
    >>> _fix_country_codes(grid, "TD3", [[[("P", 1.0)], [("<", 1.0)]] + alts, [[("0", 1.0)]] * 10 + alts], fixes, [])
    >>> "".join(grid[0][2:5]), "".join(grid[1][10:13]), [(f["line"], f["pos"], f["to"]) for f in fixes]
    ('CZE', 'CZE', [(0, 2, 'C'), (1, 10, 'C')])

    Without the recogniser's candidates, only a code one letter from the document's other code is respelled:

    >>> grid, fixes = [list("P<NLD"), list("0" * 10 + "NLR")], []
    >>> _fix_country_codes(grid, "TD3", None, fixes, [])
    >>> "".join(grid[1][10:13]), fixes[0]["reason"]
    ('NLD', 'nationality code')
    """
    from itertools import product

    from docauth.ocr.countries import is_known_code

    slices = _code_slices(type_)
    for k, (n, start, name) in enumerate(slices):
        read = "".join(grid[n][start:start + 3])
        if len(read) < 3 or is_known_code(read):
            continue
        best: tuple[float, str] | None = None
        if alts is not None and all(start + j < len(alts[n]) for j in range(3)):
            options = []
            for j in range(3):
                costs = _alternative_costs(alts[n][start + j], read[j], _allowed("A"))
                options.append([(read[j], 0.0)] + [(c, cost) for c, cost in costs.items()
                                                   if cost <= MAX_SUBSTITUTION_COST])
            for combo in product(*options):
                code = "".join(c for c, _ in combo)
                cost = sum(cost for _, cost in combo)
                if code != read and is_known_code(code) and (best is None or cost < best[0]):
                    best = (cost, code)
        if best is None:
            # Most documents' holders are nationals of the issuing state: a code one letter from the
            # document's other code, which is a code, is read as that one; so is one whose differing
            # letters were all lost into filler ('L<<' beside 'LTU': letters under glare read as '<').
            on, ostart, _ = slices[1 - k]
            other = "".join(grid[on][ostart:ostart + 3])
            differ = [j for j, (a, b) in enumerate(zip(read, other)) if a != b]
            lost_into_filler = len(differ) == 2 and read[0] != "<" and all(read[j] == "<" for j in differ)
            if is_known_code(other) and (len(differ) == 1 or lost_into_filler):
                best = (TABLE_COST, other)
        if best is None:
            warnings.append(f"{name} {read.replace('<', '')!r} is not an ICAO country code")
            continue
        for j, (frm, to) in enumerate(zip(read, best[1])):
            if frm != to:
                corrections.append(_corr(n, start + j, frm, to, f"{name} code"))
                grid[n][start + j] = to


def _confirm_codes_by_each_other(grid, type_, alts, corrections, min_p: float = MIN_UNCHECKED_P):
    """An issuing-state code with letters the recogniser was unsure of, confirmed by a nationality code read
    surely (or the other way round) where the two agree, and respelled as it where they differ only in those
    letters and the recogniser had the other code's letter among its candidates.

    Most documents' holders are nationals of the issuing state, so the surely read code is the likeliest
    reading of the unsure one; a letter read surely is never changed (GBR beside GBD stays as read). The
    confirmed letters count as certain, as names confirmed by the print do. Dev captures: a blurred 'E' of
    CHE read L 0.45 / C 0.44 / E 0.05 beside a sure CHE left a whole passport zone invalid.

    >>> grid = [list("P<CHL"), list("0" * 10 + "CHE")]
    >>> sure = [[("C", 1.0)], [("H", 1.0)]]
    >>> alts = [[[("P", 1.0)], [("<", 1.0)]] + sure + [[("L", 0.45), ("C", 0.44), ("E", 0.05)]],
    ...         [[("0", 1.0)]] * 10 + sure + [[("E", 1.0)]]]
    >>> fixes = []
    >>> _confirm_codes_by_each_other(grid, "TD3", alts, fixes)
    >>> "".join(grid[0][2:5]), alts[0][4], [(f["line"], f["pos"], f["to"]) for f in fixes]
    ('CHE', [('E', 1.0)], [(0, 4, 'E')])

    A letter read surely where the codes differ leaves both as read:

    >>> grid = [list("P<GBR"), list("0" * 10 + "GBD")]
    >>> alts[0][4] = [("R", 1.0)]; alts[1][12] = [("D", 1.0)]; alts[1][11] = [("B", 0.6), ("8", 0.4)]
    >>> _confirm_codes_by_each_other(grid, "TD3", alts, [])
    >>> "".join(grid[0][2:5]), "".join(grid[1][10:13])
    ('GBR', 'GBD')
    """
    from docauth.ocr.countries import is_known_code

    if alts is None:
        return
    slices = _code_slices(type_)
    if any(start + 3 > min(len(grid[n]), len(alts[n])) for n, start, _ in slices):
        return
    codes = ["".join(grid[n][start:start + 3]) for n, start, _ in slices]
    unsure = [[j for j in range(3) if dict(alts[n][start + j]).get(codes[k][j], 0.0) < min_p]
              for k, (n, start, _) in enumerate(slices)]
    for k, (n, start, name) in enumerate(slices):
        other = codes[1 - k]
        if not unsure[k] or unsure[1 - k] or not is_known_code(other):
            continue
        if any(codes[k][j] != other[j] for j in range(3) if j not in unsure[k]):
            continue
        costs = [_alternative_costs(alts[n][start + j], codes[k][j], _allowed("A")) for j in unsure[k]]
        if any(codes[k][j] != other[j] and costs[m].get(other[j], math.inf) > MAX_SUBSTITUTION_COST
               for m, j in enumerate(unsure[k])):
            continue
        for j in unsure[k]:
            if grid[n][start + j] != other[j]:
                corrections.append(_corr(n, start + j, grid[n][start + j], other[j], f"{name} code as the other code"))
                grid[n][start + j] = other[j]
            alts[n][start + j] = [(other[j], 1.0)]


# Optional-data fields (line, start, stop): left-aligned, filled with '<' on the right.
_OPTIONAL_SLICES = {"TD1": [(0, 15, 30), (1, 18, 29)], "TD2": [(1, 28, 35)], "TD3": [(1, 28, 42)],
                    "MRVA": [(1, 28, 44)], "MRVB": [(1, 28, 36)]}


# A number of digits with one letter inside it, read unsurely, whose digit twin the check digit cannot tell from it
# (G and 6: 16 and 6) is most likely all digits: 634676646149 read 63467G646149 at G 0.68 / 6 0.22 passed its check
# either way. A letter first in the field is left alone (letter prefixes are common: G1234567).
NUMBER_FIELDS = ("document_number", "personal_number")


def _lone_letters_in_digits(grid, layout, alts, corrections, min_p: float = MIN_UNCHECKED_P):
    """The one unsure letter inside an otherwise all-digit number, as the check-blind digit the recogniser also
    gave for it.

    >>> grid = [list("634676G646149<<")]
    >>> alts = [[[(c, 1.0)] for c in "634676G646149<<"]]
    >>> alts[0][6] = [("G", 0.68), ("6", 0.22), ("4", 0.09)]
    >>> layout = {"checks": {"personal_number": ([(0, 0, 14)], (0, 14))}}
    >>> fixes = []
    >>> _lone_letters_in_digits(grid, layout, alts, fixes)
    >>> "".join(grid[0]), fixes[0]["reason"]
    ('6346766646149<<', 'lone letter in a number')
    >>> grid = [list("G34676")]; alts = [[[("G", 0.6), ("6", 0.4)]] + [[(c, 1.0)] for c in "34676"]]
    >>> _lone_letters_in_digits(grid, {"checks": {"document_number": ([(0, 0, 6)], (0, 6))}}, alts, [])
    >>> "".join(grid[0])                                              # a prefix stays a letter
    'G34676'
    """
    from docauth.ocr.checkdigit import char_value

    if alts is None:
        return
    for name in NUMBER_FIELDS:
        if name not in layout["checks"]:
            continue
        for n, start, stop in layout["checks"][name][0]:
            field = [i for i in range(start, min(stop, len(grid[n]), len(alts[n]))) if grid[n][i] != "<"]
            letters = [i for i in field if grid[n][i].isalpha()]
            if len(letters) != 1 or letters[0] == field[0] or len(field) < 6:
                continue
            i = letters[0]
            ranked = dict(alts[n][i])
            twin = str(char_value(grid[n][i]) % 10)
            if ranked.get(grid[n][i], 0.0) < min_p and twin in ranked:
                corrections.append(_corr(n, i, grid[n][i], twin, "lone letter in a number"))
                grid[n][i] = twin


def _fix_optional_filler(grid, type_, corrections):
    """An empty optional field whose filler was read as ``0`` in places.

    Check digits cannot tell them apart (both count 0), so ``<<<<<<0`` would pass every check with a digit
    nobody printed (2 of 1,520 generated MRZs reported valid but wrong had exactly this, with the recogniser
    sure of its 0). Data in these fields is left-aligned: a field that starts with filler holds no data, and
    its zeros are filler; a 0 alone at the end, after the data and its filler, is filler too.

    >>> grid, fixes = [list("IDPERG2PT7YUE<3<<<<<<<<<<<<<<0")], []
    >>> _fix_optional_filler(grid + [list("<" * 30)], "TD1", fixes)
    >>> "".join(grid[0]), [(f["pos"], f["from"], f["to"]) for f in fixes]
    ('IDPERG2PT7YUE<3<<<<<<<<<<<<<<<', [(29, '0', '<')])
    >>> grid, fixes = [list("IRIRLYB36566962207681907<<<<<0")], []
    >>> _fix_optional_filler(grid + [list("<" * 30)], "TD1", fixes)
    >>> "".join(grid[0]), fixes[0]["reason"]
    ('IRIRLYB36566962207681907<<<<<<', 'filler after the optional data')
    """
    for n, start, stop in _OPTIONAL_SLICES.get(type_, []):
        text = "".join(grid[n][start:stop])
        if text.startswith("<") and set(text) == {"<", "0"}:
            zeros = [pos for pos in range(start, stop) if grid[n][pos] == "0"]
            reason = "filler of an empty optional field"
        elif re.fullmatch(r".*[^<]<{2,}0", text) and check_digit(text[:-1]) != "0":
            # Data, filler, then a lone 0 in the field's last place: filler, unless it is the check digit of
            # the data before it (some issuers end their optional data with one).
            zeros, reason = [stop - 1], "filler after the optional data"
        else:
            continue
        for pos in zeros:
            corrections.append(_corr(n, pos, "0", "<", reason))
            grid[n][pos] = "<"


def _group_text(grid, slices) -> str:
    return "".join("".join(grid[n][a:b]) for n, a, b in slices)


def _check_ok(value: str, digit: str) -> bool:
    expected = check_digit(value)
    if expected is None:
        return False
    if digit == expected:
        return True
    # An empty optional field may carry '<' instead of 0 as its check digit.
    return digit == "<" and set(value) <= {"<"}


def _alternative_costs(ranked, read: str, allowed: str) -> dict[str, float]:
    """The recogniser's other candidates at one position (``ranked``: its (char, p) list) that ``allowed``
    admits, each with its cost against the character read: log p(read) - log p(candidate), at least 0."""
    p_read = max(dict(ranked).get(read, 0.0), 1e-6)
    return {c: max(0.0, math.log(p_read) - math.log(p)) for c, p in ranked if c != read and c in allowed and p > 0}


def _candidates(grid, alts, n, i, allowed: str, *, in_date: bool = False) -> list[tuple[str, float]]:
    """Alternative characters for one position with their costs (-log p).

    ``in_date``: a filler read inside a date is a digit the recogniser lost (a smudge, a glare spot);
    any digit may stand there, and the check digit picks the one that fits (exactly one does: the
    weights 7, 3, 1 are prime to 10).
    """
    ch = grid[n][i]
    out: dict[str, float] = {}
    if in_date and ch == "<":
        out.update({d: LOST_DIGIT_COST for d in "0123456789"})
    if alts is not None and i < len(alts[n]):
        out.update(_alternative_costs(alts[n][i], ch, allowed))
    for c in (LETTER_TO_DIGIT.get(ch), DIGIT_TO_LETTER.get(ch)):
        if c and c in allowed and c not in out:
            out[c] = TABLE_COST
    row = grid[n]
    beside_filler = (i > 0 and row[i - 1] == "<") or (i + 1 < len(row) and row[i + 1] == "<")
    if ch in FILLER_LOOKALIKES and "<" in allowed and "<" not in out and beside_filler:
        out["<"] = TABLE_COST
    return [(c, cost) for c, cost in out.items() if cost <= MAX_SUBSTITUTION_COST]


def _positions(slices) -> list[tuple[int, int]]:
    return [(n, i) for n, a, b in slices for i in range(a, b)]


def _check_digit_search(grid, type_, layout, alts, corrections):
    """Single substitutions (two for a failing composite) that make failing checks pass.

    A substitution is taken only when it is the unique cheapest way to satisfy
    the check, with a clear margin; afterwards the composite must hold too,
    or every substitution made here is undone (reported invalid instead).
    """
    checks = layout["checks"]
    classes = layout["classes"]
    made: list[tuple[int, int, str]] = []  # (line, pos, previous char)
    new_corr: list[dict] = []
    for name, (slices, (cn, ci)) in checks.items():
        if name == "composite":
            continue
        if _check_ok(_group_text(grid, slices), grid[cn][ci]):
            continue
        if type_ == "TD1" and name == "document_number" and grid[0][14] == "<":
            continue  # long document number: its check digit sits in the optional data
        positions = _positions(slices) + [(cn, ci)]
        options = []
        for n, i in positions:
            in_date = name in DATE_FIELDS and (n, i) != (cn, ci)
            for c, cost in _candidates(grid, alts, n, i, _allowed(classes[n][i]), in_date=in_date):
                old = grid[n][i]
                grid[n][i] = c
                if _check_ok(_group_text(grid, slices), grid[cn][ci]):
                    options.append((cost, n, i, old, c))
                grid[n][i] = old
        # Without a composite to confirm it, a fix must be the only look-alike that works.
        choice = _unique_best(options) if "composite" in checks or len(options) == 1 else None
        if choice is None and len(options) > 1 and "composite" in checks:
            # Several look-alikes satisfy the field: the composite may single one out.
            confirmed = [o for o in options if _composite_ok_with(grid, checks["composite"], o)]
            choice = confirmed[0] if len(confirmed) == 1 else None
        if choice is None:
            continue
        _cost, n, i, old, c = choice
        grid[n][i] = c
        made.append((n, i, old))
        new_corr.append(_corr(n, i, old, c, f"{name} check digit"))

    if "composite" in checks:
        slices, (cn, ci) = checks["composite"]
        if not _check_ok(_group_text(grid, slices), grid[cn][ci]):
            # Only positions outside the individually-checked fields may change now
            # (a checked field that passes is trusted).
            covered = set()
            for name, (s, (dn, di)) in checks.items():
                if name != "composite" and _check_ok(_group_text(grid, s), grid[dn][di]):
                    covered.update(_positions(s))
                    covered.add((dn, di))
            free = [p for p in _positions(slices) + [(cn, ci)] if p not in covered]
            options = []
            for n, i in free:
                if alts is None:
                    break  # nothing confirms a composite-only fix but the recogniser's own doubt
                for c, cost in _candidates(grid, alts, n, i, _allowed(classes[n][i])):
                    if cost >= TABLE_COST:
                        continue
                    old = grid[n][i]
                    grid[n][i] = c
                    if _check_ok(_group_text(grid, slices), grid[cn][ci]):
                        options.append((cost, n, i, old, c))
                    grid[n][i] = old
            choice = _unique_best(options)
            if choice is not None:
                _cost, n, i, old, c = choice
                grid[n][i] = c
                new_corr.append(_corr(n, i, old, c, "composite check digit"))
            elif made:
                # The field corrections did not convince the composite: undo them.
                for n, i, old in made:
                    grid[n][i] = old
                new_corr = []
    corrections.extend(new_corr)


def _composite_ok_with(grid, composite, option) -> bool:
    slices, (cn, ci) = composite
    _cost, n, i, _old, c = option
    old = grid[n][i]
    grid[n][i] = c
    ok = _check_ok(_group_text(grid, slices), grid[cn][ci])
    grid[n][i] = old
    return ok


def _unique_best(options):
    if not options:
        return None
    options.sort(key=lambda o: o[0])
    if len(options) == 1:
        return options[0]
    if options[1][0] - options[0][0] >= 1.0:
        return options[0]
    return None  # ambiguous: several look-alikes satisfy the check


def _run_checks(lines, type_, layout) -> dict:
    grid = [list(line) for line in lines]
    out = {}
    for name, (slices, (cn, ci)) in layout["checks"].items():
        value = _group_text(grid, slices)
        digit = grid[cn][ci]
        if type_ == "TD1" and name == "document_number" and digit == "<":
            value, digit = _td1_long_number(lines)
            name_value = value
        else:
            name_value = value
        if type_ == "TD3" and name == "personal_number" and digit == "<" and set(value) <= {"<"}:
            out[name] = {"ok": True, "read": digit, "expected": "<"}
            continue
        expected = check_digit(name_value)
        out[name] = {"ok": _check_ok(name_value, digit), "read": digit, "expected": expected}
    return out


def _td1_long_number(lines) -> tuple[str, str]:
    """TD1 document numbers over 9 characters continue in the optional data; its last char is the check."""
    head = lines[0][5:14]
    rest = lines[0][15:30].split("<", 1)[0]
    if not rest:
        return head, "<"
    return head + rest[:-1], rest[-1]


# ---------------------------------------------------------------------------
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


def _clean(s: str) -> str:
    return re.sub(r" +", " ", s.replace("<", " ")).strip()


def split_name(field_text: str) -> tuple[str, str]:
    """Surname and given names of an MRZ name field.

    >>> split_name("ERIKSSON<<ANNA<MARIA<<<<<")
    ('ERIKSSON', 'ANNA MARIA')
    >>> split_name("ESPANOLA<ESPANOLA<<CARMEN<<<")
    ('ESPANOLA ESPANOLA', 'CARMEN')
    >>> split_name("SPITERI<MANDY<<<<")
    ('SPITERI MANDY', '')
    """
    text = field_text.rstrip("<")
    if "<<" in text:
        surname, given = text.split("<<", 1)
    else:
        surname, given = text, ""
    return _clean(surname), _clean(given)


def _extract_fields(lines, type_, today, warnings) -> dict:
    f: dict = {}
    l1 = lines[0]
    f["document_code"] = l1[0:2].replace("<", "")
    f["issuing_state"] = l1[2:5].replace("<", "")
    if type_ == "TD1":
        l2, l3 = lines[1], lines[2]
        if l1[14] == "<" and l1[15:30].strip("<"):
            number, _ = _td1_long_number(lines)
            f["document_number"] = number.replace("<", "")
            f["optional_data"] = _clean(l1[15:30][len(l1[15:30].split("<", 1)[0]):])
        else:
            f["document_number"] = l1[5:14].replace("<", "")
            f["optional_data"] = _clean(l1[15:30])
        dob, sex, exp, nat = l2[0:6], l2[7], l2[8:14], l2[15:18]
        f["optional_data_2"] = _clean(l2[18:29])
        name = l3
    else:
        l2 = lines[1]
        name = l1[5:]
        f["document_number"] = l2[0:9].replace("<", "")
        nat, dob, sex, exp = l2[10:13], l2[13:19], l2[20], l2[21:27]
        if type_ == "TD3":
            f["personal_number"] = _clean(l2[28:42])
        elif type_ == "TD2":
            f["optional_data"] = _clean(l2[28:35])
        else:
            f["optional_data"] = _clean(l2[28:])
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


def _essentials_present(fields: dict, warnings: list) -> bool:
    """A document number, a name and two calendar dates: an MRZ of fillers checks to zero but says nothing."""
    missing = [k for k in ("document_number", "surname", "date_of_birth", "expiry_date") if not fields.get(k)]
    if missing:
        warnings.append("missing " + ", ".join(missing))
    return not missing


def _checked_positions(layout) -> set:
    out = set()
    for slices, (cn, ci) in layout["checks"].values():
        out.update(_positions(slices))
        out.add((cn, ci))
    return out


def _doubtful_unchecked(grid, alts, layout, uncertain) -> list[tuple[int, int]]:
    """Of the ``uncertain`` positions (final character given < MIN_UNCHECKED_P), those no check digit vouches for.

    Outside the check-digit fields that is every uncertain position. Inside them, a check digit cannot
    tell apart characters whose values differ by a multiple of 10 (G and 6, A and 0, B and 1, ...):
    an uncertain choice between two such characters is doubtful too.
    """
    from docauth.ocr.checkdigit import char_value

    checked = _checked_positions(layout)
    uncertain = set(uncertain)
    out = [(n, i) for n, i in sorted(uncertain) if (n, i) not in checked]
    for n, i in sorted(checked):
        if n >= len(grid) or i >= len(grid[n]) or i >= len(alts[n]):
            continue
        ch = grid[n][i]
        value = char_value(ch)
        allowed = _allowed(layout["classes"][n][i])
        floor = 0.1 if (n, i) in uncertain else CHECK_BLIND_ALTERNATIVE_P
        if value is not None and any(
                other != ch and other in allowed and q >= floor and (char_value(other) or 0) % 10 == value % 10
                for other, q in alts[n][i]):
            out.append((n, i))
    return out


# A runner-up the check digit cannot tell from the character read (G and Q, H and R: values 10 apart) leaves the
# field unverified even when the recogniser preferred the one it read: at p >= 0.01 (the substitution search's
# own bound) it is a real alternative. Dev captures (recogniser v5, 300 passport pages + 300 card backs): reported
# valid but wrong 2 -> 1 (Q9N74A1HB2 for G9N74A1HB2, G at p 0.01-0.02), no valid exact read lost.
CHECK_BLIND_ALTERNATIVE_P = 0.01


# A check digit catches one wrong character for certain, but several wrong ones only 9 times in 10. A field
# whose check passes with more uncertain characters than this is not taken as verified: on 2,000 captures a
# document number read with four wrong characters (WCSS59Q9A7 for WC5559G947) passed both its own check
# digit and the composite.
MAX_UNCERTAIN_IN_CHECKED_FIELD = 1


def _weakly_checked(uncertain: set, layout) -> list[str]:
    """Check-digit fields (not the composite) holding more uncertain characters than one check can vouch for.

    ``uncertain``: (line, pos) whose final character (after any correction) the recogniser gave less than
    MIN_UNCHECKED_P.
    """
    return [name for name, (slices, check) in layout["checks"].items()
            if name != "composite"
            and len(uncertain & set(_positions(slices) + [check])) > MAX_UNCERTAIN_IN_CHECKED_FIELD]


def _classes_hold(lines, layout) -> bool:
    for n, line in enumerate(lines):
        for i, ch in enumerate(line):
            if ch not in _allowed(layout["classes"][n][i]):
                return False
    return True


def _score(result: MRZResult, lengths_ok: bool, classes_ok: bool) -> int:
    """0-100: 100 only for a structurally sound MRZ whose every check passes, read as is."""
    if result.type is None:
        return 0
    score = 100.0
    for name, check in result.checks.items():
        if not check["ok"]:
            score -= 25 if name == "composite" else 20
    if not lengths_ok:
        score -= 20
    if not classes_ok:
        score -= 15
    if result.fields.get("date_of_birth") is None:
        score -= 5
    if result.fields.get("expiry_date") is None:
        score -= 5
    score -= 1 * len(result.corrections)
    if result.lines and result.type and result.lines[0][0] not in "ACIPV":
        score -= 5
    return int(max(0, min(100, round(score))))


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


__all__ = ["MRZResult", "parse_mrz", "mrz_date", "split_name", "transliterate", "FORMATS", "MRZ_CHARS"]
