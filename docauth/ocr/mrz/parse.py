"""Reading an MRZ's text: the format found, the correction rules applied in order, the checks run, the verdict.
Never raises.

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
from dataclasses import dataclass, field
from datetime import date
from itertools import product
from typing import Sequence

from docauth.ocr.mrz.checkdigit import char_value
from docauth.ocr.mrz.format import (FORMATS, LAYOUTS, allowed_chars, checked_positions, classes_hold, detect_format,
                                    essentials_present, extract_fields, run_checks, slice_positions, split_lines)
from docauth.ocr.mrz.rules import (MIN_UNCHECKED_P, apply_position_classes, check_digit_search,
                                   confirm_codes_by_each_other, correction, fix_country_codes, fix_name_filler,
                                   fix_optional_filler, lone_letters_in_digits, replace_foreign_characters,
                                   undouble_document_code)


# Check digits that must pass for a zone's format to be taken as read when the zone as a whole is not valid.
FORMAT_SURE_CHECKS = 2


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
    # The zone's corners in the photo (4 x, y; the first line's start first, its end next); not exported: it
    # serves the capture-quality check (a zone the frame cuts).
    zone: list | None = None
    # (line, pos) the recogniser read with probability under MIN_UNCHECKED_P; None without its alternatives.
    # Not exported: it serves field_is_certain.
    uncertain: list | None = None
    # Per line and position, the recogniser's ranked (char, probability) candidates; None without them.
    # Not exported: it serves confirm_in_print.
    alternatives: list | None = None
    # Pixels of the input image from one character to the next (see at_glyph_pitch); None where not measured.
    glyph_pitch: float | None = None

    def field_is_certain(self, name: str) -> bool:
        """Is this field read well enough to stand on its own when the MRZ as a whole is not valid?

        A field with a check digit: its check passes and no more than one of its characters is uncertain.
        Needs the recogniser's alternatives; without them nothing is certain. (Names have no check digit:
        the reader takes them from any MRZ that has its structure.)
        """
        if self.uncertain is None or not self.structure_ok or self.type not in LAYOUTS:
            return False
        check = self.checks.get(name)
        return bool(check and check.get("ok") and not check.get("doubtful"))

    @property
    def checks_pass(self) -> bool:
        """Does the zone as read have its format and pass every check digit? ``valid`` asks more: that no
        character a check digit cannot vouch for (a name's letters, a code, a check-blind twin) was read
        unsurely. A zone that passes its checks but is not valid is our unsure read, not a failing document.

        >>> parse_mrz(["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
        ...            "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]).checks_pass
        True
        """
        return self.structure_ok and bool(self.checks) and all(c.get("ok") for c in self.checks.values())

    @property
    def format_sure(self) -> bool:
        """Is the zone's format certain even where its check digits fail (a specimen's, a misread digit)? Its
        layout holds (line count and length, letters and digits where they belong) and two of its check
        digits pass: a misread line count or length, which changes the format, leaves no check in place."""
        passing = sum(bool(c.get("ok")) for c in self.checks.values())
        return self.valid or (self.structure_ok and self.type in LAYOUTS and passing >= FORMAT_SURE_CHECKS)

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


def _parse(text_or_lines, alternatives, today: date, correct: bool,
           min_unchecked_p: float = MIN_UNCHECKED_P) -> MRZResult:
    raw = split_lines(text_or_lines)
    result = MRZResult(raw_lines=list(raw))
    type_, idx = detect_format(raw)
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
    layout = LAYOUTS[type_]
    corrections: list[dict] = []

    # 1. characters outside the MRZ set
    replace_foreign_characters(grid, layout, alts, corrections)
    # 2. position classes (digits where digits must be, letters in names/codes)
    if correct:
        undouble_document_code(grid, type_, alts, corrections)
        apply_position_classes(grid, layout, alts, corrections)
        fix_name_filler(grid, type_, corrections)
        fix_optional_filler(grid, type_, corrections)
        # 3. check-digit guided substitutions
        check_digit_search(grid, type_, layout, alts, corrections)
        # 4. issuing state and nationality: no check digit covers them, the list of codes does
        fix_country_codes(grid, type_, alts, corrections, result.warnings)
        confirm_codes_by_each_other(grid, type_, alts, corrections, min_unchecked_p)
        lone_letters_in_digits(grid, layout, alts, corrections, min_unchecked_p)

    grid_before_checks = grid
    result.alternatives = alts
    if alts is not None:
        result.uncertain = [(n, i) for n, row in enumerate(grid) for i, ch in enumerate(row)
                            if i < len(alts[n]) and dict(alts[n][i]).get(ch, 0.0) < min_unchecked_p]
    result.lines = ["".join(r) for r in grid]
    result.corrections = corrections
    result.checks = run_checks(result.lines, type_, layout)
    result.fields = extract_fields(result.lines, type_, today, result.warnings)
    classes_ok = classes_hold(result.lines, layout)
    essentials = essentials_present(result.fields, result.warnings)
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
    twin.corrections.insert(0, correction(0, 0, lines[0][0], letter, f"document code: the {twin_type} check digits hold"))
    return twin


def checks_pass(result: MRZResult) -> bool:
    """Structure sound and every check digit passes, none only after a correction the composite chose."""
    return (result.structure_ok and all(check["ok"] for check in result.checks.values())
            and not any(c["reason"] == "composite check digit" for c in result.corrections))


# A recogniser that reads by frames (CTC) merges a repeated character it saw no gap in, and a run of
# fillers is where that happens: a line a filler or two short is refitted inside its runs when that is
# what puts its check digits back in place.
MAX_REFIT = 2
MAX_REFIT_READINGS = 48  # more ways to refit than this: a line in pieces, not one that lost a filler


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
            refits.extend(correction(n, pos, "", "<", "filler lost in a run of fillers") for pos in added)
        else:
            refits.append(correction(n, at, "<", "", "filler read twice in a run of fillers"))
        r.warnings.append(f"line {n} had {len(lines[n])} characters, {type_} needs {length}: "
                          "refitted in a run of fillers, which puts its check digits in place")
    r.corrections = refits + r.corrections
    return r


# A runner-up the check digit cannot tell from the character read (G and Q, H and R: values 10 apart) leaves the
# field unverified even when the recogniser preferred the one it read: at p >= 0.01 (the substitution search's
# own bound) it is a real alternative.
CHECK_BLIND_ALTERNATIVE_P = 0.01


# A check digit catches one wrong character for certain, but several wrong ones only 9 times in 10. A field
# whose check passes with more uncertain characters than this is not taken as verified.
MAX_UNCERTAIN_IN_CHECKED_FIELD = 1


def _doubtful_unchecked(grid, alts, layout, uncertain) -> list[tuple[int, int]]:
    """Of the ``uncertain`` positions (final character given < MIN_UNCHECKED_P), those no check digit vouches for.

    Outside the check-digit fields that is every uncertain position. Inside them, a check digit cannot
    tell apart characters whose values differ by a multiple of 10 (G and 6, A and 0, B and 1, ...):
    an uncertain choice between two such characters is doubtful too.
    """
    checked = checked_positions(layout)
    uncertain = set(uncertain)
    out = [(n, i) for n, i in sorted(uncertain) if (n, i) not in checked]
    for n, i in sorted(checked):
        if n >= len(grid) or i >= len(grid[n]) or i >= len(alts[n]):
            continue
        ch = grid[n][i]
        value = char_value(ch)
        allowed = allowed_chars(layout["classes"][n][i])
        floor = 0.1 if (n, i) in uncertain else CHECK_BLIND_ALTERNATIVE_P
        if value is not None and any(
                other != ch and other in allowed and q >= floor and (char_value(other) or 0) % 10 == value % 10
                for other, q in alts[n][i]):
            out.append((n, i))
    return out


# Glyphs this few pixels apart in the image they were taken from are drawn by a few pixels each: a name letter
# then reads as a neighbour (M as N, O as D) with a probability a sharp glyph earns, and nothing checks it. The
# unchecked characters of such a zone are trusted only above SMALL_GLYPH_MIN_P. Fitted on generated documents
# downscaled (bench/mrz_small_glyphs.py), where it trades the fewest right zones for each wrong one withheld.
SMALL_GLYPH_PITCH = 6.0
SMALL_GLYPH_MIN_P = 0.95


def at_glyph_pitch(result: MRZResult, pitch: float | None) -> MRZResult:
    """``result`` judged knowing that its glyphs lie ``pitch`` pixels apart in the image they were read from
    (None: not measured). Below SMALL_GLYPH_PITCH a character no check digit covers is uncertain under
    SMALL_GLYPH_MIN_P, so a zone holding one is not valid (its checks still pass: an unsure read of ours, not
    a failing document). Only ever withdraws ``valid``; the result is changed in place and returned.

    >>> lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    >>> alts = [[[(c, 1.0)] for c in line] for line in lines]
    >>> alts[0][9] = [("S", 0.9), ("Z", 0.1)]                  # a surname letter read at 0.9
    >>> at_glyph_pitch(parse_mrz(lines, alternatives=alts), 2 * SMALL_GLYPH_PITCH).valid
    True
    >>> small = at_glyph_pitch(parse_mrz(lines, alternatives=alts), SMALL_GLYPH_PITCH / 2)
    >>> small.valid, small.checks_pass, (0, 9) in small.uncertain
    (False, True, True)
    """
    result.glyph_pitch = pitch
    if pitch is None or pitch >= SMALL_GLYPH_PITCH or result.alternatives is None or result.type not in LAYOUTS:
        return result
    for name in _o_or_zero_undecided(result):
        result.checks[name]["doubtful"] = True
        if result.valid:
            result.valid = False
            result.warnings.append(f"{name}: glyphs {pitch:.1f} px apart, O and 0 read in it, and another choice "
                                   "between them passes every check digit too")
    checked = checked_positions(LAYOUTS[result.type])
    known = set(result.uncertain or ())
    unsure = [(n, i) for n, line in enumerate(result.lines) for i, ch in enumerate(line)
              if (n, i) not in checked and (n, i) not in known and i < len(result.alternatives[n])
              and dict(result.alternatives[n][i]).get(ch, 0.0) < SMALL_GLYPH_MIN_P]
    if not unsure:
        return result
    result.uncertain = sorted(known | set(unsure))
    if result.valid:
        result.valid = False
        result.warnings.append(f"glyphs {pitch:.1f} px apart: characters no check digit vouches for read under "
                               f"{SMALL_GLYPH_MIN_P} at " + ", ".join(f"line {n} pos {i}" for n, i in unsure[:6]))
    return result


# More O-or-0 places in one field than this: the choices between them are not counted out, the field is undecided.
MAX_O_OR_ZERO_PLACES = 8


def _o_or_zero_undecided(result: MRZResult) -> list[str]:
    """Check-digit fields holding an O where letters and digits may stand (a document or personal number) for
    which another choice of O or 0 at its O-or-0 places also passes every check digit. Drawn a few pixels wide,
    O and 0 are one blob to the recogniser; one swap always changes a check digit (O is worth 24, 0 is 0), but two
    swaps whose weights add up to a multiple of 5 (7 and 3) do not.

    >>> from docauth.ocr.mrz.checkdigit import check_digit
    >>> def zone(number):                                  # a made-up holder's zone with this document number
    ...     line = number + check_digit(number) + "UTO7408122F1204159ZE184226B<<<<<1"
    ...     composite = check_digit(line[:10] + line[13:20] + line[21:43])
    ...     return ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", line + composite]
    >>> _o_or_zero_undecided(parse_mrz(zone("K5O213734")))   # one O: as 0 it fails the check digit
    []
    >>> _o_or_zero_undecided(parse_mrz(zone("K5O210734")))   # O and 0 at the same weight: swapped, both pass
    ['document_number']
    """
    layout = LAYOUTS[result.type]
    undecided = []
    for name, (slices, _check) in layout["checks"].items():
        places = [(n, i) for n, i in slice_positions(slices) if result.lines[n][i] in "O0"
                  and {"O", "0"} <= set(allowed_chars(layout["classes"][n][i]))]
        if name == "composite" or not any(result.lines[n][i] == "O" for n, i in places):
            continue
        grid = [list(line) for line in result.lines]
        passing = 0
        for choice in product("O0", repeat=len(places)) if len(places) <= MAX_O_OR_ZERO_PLACES else ():
            for (n, i), c in zip(places, choice):
                grid[n][i] = c
            passing += all(c["ok"] for c in run_checks(["".join(row) for row in grid], result.type, layout).values())
            if passing > 1:
                break
        if passing > 1 or len(places) > MAX_O_OR_ZERO_PLACES:
            undecided.append(name)
    return undecided


def _weakly_checked(uncertain: set, layout) -> list[str]:
    """Check-digit fields (not the composite) holding more uncertain characters than one check can vouch for.

    ``uncertain``: (line, pos) whose final character (after any correction) the recogniser gave less than
    MIN_UNCHECKED_P.
    """
    return [name for name, (slices, check) in layout["checks"].items()
            if name != "composite"
            and len(uncertain & set(slice_positions(slices) + [check])) > MAX_UNCERTAIN_IN_CHECKED_FIELD]


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
