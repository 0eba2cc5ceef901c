"""An MRZ's unsure letters settled by the document's printed text: names and country codes carry no check digit,
but the visual zone prints them too.
"""

from __future__ import annotations

import itertools
import re
from datetime import date

from docauth.ocr.mrz.countries import is_known_code
from docauth.ocr.mrz.format import LAYOUTS, allowed_chars, check_ok, code_slices, name_slices, slice_positions
from docauth.ocr.mrz.parse import MRZResult, at_glyph_pitch, parse_mrz
from docauth.ocr.mrz.rules import correction


# A name word is looked up in the printed text only when it is this long: shorter ones occur by chance
# among the printed words (codes, abbreviations, months).
MIN_CONFIRMED_NAME_WORD = 3
MAX_UNCERTAIN_IN_NAME_WORD = 3
NAME_ALTERNATIVES = 3  # the recogniser's top candidates tried at an uncertain letter


def confirm_in_print(result: MRZResult, printed_words, *, printed_numbers=(), today: date | None = None
                     ) -> MRZResult:
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

    The document number's characters a check digit cannot tell apart (U and 0, both worth 0 mod 10) are
    settled by the number as the page prints it (``printed_numbers``: each printed line's letters and digits,
    :func:`docauth.ocr.printed.compare.printed_number_texts`; see :func:`_number_in_print`).
    """
    if result.alternatives is None or not result.structure_ok or result.type not in LAYOUTS:
        return result
    settled_number = _number_in_print(result, printed_numbers)
    if not result.uncertain and not settled_number:
        return result
    printed = {w for w in printed_words if len(w) >= MIN_CONFIRMED_NAME_WORD}
    uncertain = set(result.uncertain)
    settled: dict[tuple[int, int], str] = {}
    for n, start, stop in name_slices(result.type):
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
    settled.update(settled_number)
    if not settled:
        return result
    lines = [list(line) for line in result.lines]
    alternatives = [list(row) for row in result.alternatives]
    confirmations = []
    codes = {(n, start + j) for n, start, _name in code_slices(result.type) for j in range(3)}
    for (n, i), c in sorted(settled.items()):
        if lines[n][i] != c:
            reason = ("printed number" if (n, i) in settled_number
                      else "printed code" if (n, i) in codes else "printed name")
            confirmations.append(correction(n, i, lines[n][i], c, reason))
        lines[n][i] = c
        alternatives[n][i] = [(c, 1.0)]
    again = at_glyph_pitch(parse_mrz(["".join(row) for row in lines], alternatives=alternatives, today=today),
                           result.glyph_pitch)
    again.corrections = result.corrections + confirmations + [
        c for c in again.corrections if c not in result.corrections]
    again.zone_top, again.zone = result.zone_top, result.zone
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
    printed = {w for w in printed_words if len(w) == 3 and is_known_code(w)}
    settled: dict[tuple[int, int], str] = {}
    for n, start, _name in code_slices(result.type):
        code = result.lines[n][start:start + 3]
        doubt = [j for j in range(3) if (n, start + j) in uncertain]
        if not doubt or len(code) != 3:
            continue
        fitting = [w for w in printed if all(w[j] == code[j] for j in range(3) if j not in doubt)]
        if len(fitting) == 1:
            settled.update({(n, start + j): fitting[0][j] for j in doubt})
    return settled


# The recogniser's candidates at or above this probability are readings the print may choose between (the
# substitution search's own bound, MAX_SUBSTITUTION_COST); at most this many positions of one number.
NUMBER_ALTERNATIVE_P = 0.01
MAX_DOUBTFUL_IN_NUMBER = 3
# O and 0, I and 1 are one glyph in many print fonts: the print cannot tell them apart (the zone's OCR-B can).
_PRINT_FONT_FOLD = str.maketrans("OI", "01")
# A number shorter than this is found in print by chance (a date, a code).
MIN_CONFIRMED_NUMBER = 6


def _number_in_print(result: MRZResult, printed_numbers) -> dict[tuple[int, int], str]:
    """The document number's doubtful characters, as the one reading of them the page prints.

    A check digit cannot tell apart characters whose values differ by a multiple of 10 (U and 0, B and 1), so
    a zone whose number holds one the recogniser was not sure of stays unverified however its check digit
    falls. The visual zone prints the number too: among the recogniser's own candidates at those positions
    (p >= NUMBER_ALTERNATIVE_P), the one reading printed on the page, letter for letter and digit for digit, is
    taken, and only when exactly one is (O and 0, I and 1 compared alike, as a print font draws them alike, and
    told apart by the check digit).
    Every check digit is checked again afterwards.

    >>> lines = ["C<ITACA208U4KD1<<<<<<<<<<<<<<<", "7904152F3104150ITA<<<<<<<<<<<8", "FERRARO<<GIULIA<<<<<<<<<<<<<<<"]
    >>> alts = [[[(c, 1.0)] for c in line] for line in lines]
    >>> alts[0][10] = [("U", 0.6), ("0", 0.38), ("O", 0.02)]
    >>> read = parse_mrz(lines, alternatives=alts)
    >>> read.valid, read.fields["document_number"]
    (False, 'CA208U4KD')
    >>> _number_in_print(read, {"CARTADIIDENTITA", "CA20804KD"})
    {(0, 10): '0'}
    >>> settled = confirm_in_print(read, set(), printed_numbers={"CA20804KD"})
    >>> settled.valid, settled.fields["document_number"], settled.corrections[-1]["reason"]
    (True, 'CA20804KD', 'printed number')
    >>> _number_in_print(read, {"CA2O804KD"})                  # printed in a font whose 0 is an O
    {(0, 10): '0'}
    >>> _number_in_print(read, {"CA208U4KD1", "CA20804KD"})   # both readings printed: undecided
    {}
    """
    layout = LAYOUTS.get(result.type)
    if not printed_numbers or layout is None or "document_number" not in layout["checks"]:
        return {}
    slices, (cn, ci) = layout["checks"]["document_number"]
    positions = [(n, i) for n, i in slice_positions(slices) if result.lines[n][i] != "<"]
    if len(positions) < MIN_CONFIRMED_NUMBER:
        return {}
    options = []
    doubt = []
    for n, i in positions:
        read = result.lines[n][i]
        allowed = allowed_chars(layout["classes"][n][i])
        others = [c for c, p in result.alternatives[n][i][:NAME_ALTERNATIVES]
                  if c != read and c != "<" and c in allowed and p >= NUMBER_ALTERNATIVE_P]
        if others:
            doubt.append((n, i))
            options.append([read, *others])
    if not doubt or len(doubt) > MAX_DOUBTFUL_IN_NUMBER:
        return {}
    texts = [text.translate(_PRINT_FONT_FOLD) for text in printed_numbers]
    found = set()
    for choice in itertools.product(*options):
        chars = {p: c for p, c in zip(doubt, choice)}
        number = "".join(chars.get((n, i), result.lines[n][i]) for n, i in positions)
        field = "".join(chars.get((n, i), result.lines[n][i]) for n, i in slice_positions(slices))
        # The print cannot tell O from 0; the check digit can (where it stands in its own place).
        if (any(number.translate(_PRINT_FONT_FOLD) in text for text in texts)
                and (result.lines[cn][ci] == "<" or check_ok(field, result.lines[cn][ci]))):
            found.add(choice)
    if len(found) != 1:
        return {}
    return dict(zip(doubt, found.pop()))
