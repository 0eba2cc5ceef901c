"""The corrections an OCR read of an MRZ needs, one named rule each, in the order
:func:`docauth.ocr.mrz.parse.parse_mrz` applies them. Each works on the read as a grid (a list of character lists per line), appends what it changed to
``corrections`` (:func:`correction`) and says in its docstring which real failure it handles.

``alts``: per line and position, the recogniser's ranked ``(char, probability)`` candidates, or None.
"""

from __future__ import annotations

import math
import re
from itertools import product

from docauth.ocr.mrz.checkdigit import char_value, check_digit
from docauth.ocr.mrz.countries import is_known_code
from docauth.ocr.mrz.format import (DATE_FIELDS, DOCUMENT_CODE_LETTERS, FORMATS, MRZ_CHARS, OPTIONAL_SLICES,
                                    allowed_chars, check_ok, code_slices, group_text, name_slices, slice_positions)

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


# A character outside every check-digit field is trusted for `valid` only above this recogniser
# probability: nothing else vouches for it, and a confident misreading of a name happens below it.
MIN_UNCHECKED_P = 0.8


def correction(line, pos, frm, to, reason) -> dict:
    return {"line": line, "pos": pos, "from": frm, "to": to, "reason": reason}


def _best_alt(alts, n, i, allowed: str) -> str | None:
    if alts is None:
        return None
    for ch, _p in alts[n][i]:
        if ch in allowed:
            return ch
    return None


def _alternative_costs(ranked, read: str, allowed: str) -> dict[str, float]:
    """The recogniser's other candidates at one position (``ranked``: its (char, p) list) that ``allowed``
    admits, each with its cost against the character read: log p(read) - log p(candidate), at least 0."""
    p_read = max(dict(ranked).get(read, 0.0), 1e-6)
    return {c: max(0.0, math.log(p_read) - math.log(p)) for c, p in ranked if c != read and c in allowed and p > 0}


def replace_foreign_characters(grid, layout, alts, corrections):
    """A character no MRZ holds (lower case, punctuation, a symbol an engine made of a smudge), replaced by the
    recogniser's best candidate the position's class allows, else by the filler."""
    for n, row in enumerate(grid):
        for i, ch in enumerate(row):
            if ch not in MRZ_CHARS:
                to = _best_alt(alts, n, i, allowed=allowed_chars(layout["classes"][n][i])) or "<"
                corrections.append(correction(n, i, ch, to, "not an MRZ character"))
                row[i] = to


def undouble_document_code(grid, type_, alts, corrections):
    """A name line whose document code was read with one glyph twice ('PPDAUS' for 'PDAUS...'): the reading
    is held to the format's length, so a doubled glyph pushes the issuing state one place right and drops
    the line's last filler. Taken back only when it is that and nothing else: the state as read is no known
    code, dropping the doubled glyph brings a known one into place, and the line ends in fillers (no check
    digit covers this line, the list of codes does).

    >>> grid = [list("PPDAUSWEISS<<EMMA" + "<" * 27), list("X" * 44)]
    >>> fixes = []
    >>> undouble_document_code(grid, "TD3", None, fixes)
    >>> "".join(grid[0][:11]), [(c["pos"], c["from"], c["to"]) for c in fixes]
    ('PDAUSWEISS<', [(0, 'P', ''), (43, '', '<')])
    >>> grid = [list("PPAUTRODRIGUEZ<<OMAR" + "<" * 24), list("X" * 44)]    # AUT is a code: left as read
    >>> undouble_document_code(grid, "TD3", None, [])
    >>> "".join(grid[0][:8])
    'PPAUTROD'
    """
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
            corrections += [correction(0, k, line[k], "", "glyph read twice in the document code"),
                            correction(0, len(line) - 1, "", "<", "filler pushed out by the doubled glyph")]
            return


def apply_position_classes(grid, layout, alts, corrections):
    """A letter where the format wants a digit (or the reverse, or a sex code, or a document code's letter):
    the recogniser's best candidate of the right class, else the look-alike the tables give (O for 0, 1 for I)."""
    for n, row in enumerate(grid):
        classes = layout["classes"][n]
        for i, ch in enumerate(row):
            cls = classes[i]
            allowed = allowed_chars(cls)
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
            corrections.append(correction(n, i, ch, to, reason))
            row[i] = to


def fix_name_filler(grid, type_, corrections):
    """After a run of three '<' a name holds only filler: ICAO names never contain '<<<'."""
    for n, start, stop in name_slices(type_):
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
            corrections.append(correction(n, pos, ch, "<", "name filler"))
            grid[n][pos] = "<"


def fix_optional_filler(grid, type_, corrections):
    """An empty optional field whose filler was read as ``0`` in places.

    Check digits cannot tell them apart (both count 0), so ``<<<<<<0`` would pass every check with a digit
    nobody printed, even when the recogniser was sure of its 0. Data in these fields is left-aligned: a field
    that starts with filler holds no data, and its zeros are filler; a 0 alone at the end, after the data and
    its filler, is filler too.

    >>> grid, fixes = [list("IDPERG2PT7YUE<3<<<<<<<<<<<<<<0")], []
    >>> fix_optional_filler(grid + [list("<" * 30)], "TD1", fixes)
    >>> "".join(grid[0]), [(f["pos"], f["from"], f["to"]) for f in fixes]
    ('IDPERG2PT7YUE<3<<<<<<<<<<<<<<<', [(29, '0', '<')])
    >>> grid, fixes = [list("IRIRLYB36566962207681907<<<<<0")], []
    >>> fix_optional_filler(grid + [list("<" * 30)], "TD1", fixes)
    >>> "".join(grid[0]), fixes[0]["reason"]
    ('IRIRLYB36566962207681907<<<<<<', 'filler after the optional data')
    """
    for n, start, stop in OPTIONAL_SLICES.get(type_, []):
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
            corrections.append(correction(n, pos, "0", "<", reason))
            grid[n][pos] = "<"


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


def check_digit_search(grid, type_, layout, alts, corrections):
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
        if check_ok(group_text(grid, slices), grid[cn][ci]):
            continue
        if type_ == "TD1" and name == "document_number" and grid[0][14] == "<":
            continue  # long document number: its check digit sits in the optional data
        positions = slice_positions(slices) + [(cn, ci)]
        options = []
        for n, i in positions:
            in_date = name in DATE_FIELDS and (n, i) != (cn, ci)
            for c, cost in _candidates(grid, alts, n, i, allowed_chars(classes[n][i]), in_date=in_date):
                old = grid[n][i]
                grid[n][i] = c
                if check_ok(group_text(grid, slices), grid[cn][ci]):
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
        new_corr.append(correction(n, i, old, c, f"{name} check digit"))

    if "composite" in checks:
        slices, (cn, ci) = checks["composite"]
        if not check_ok(group_text(grid, slices), grid[cn][ci]):
            # Only positions outside the individually-checked fields may change now
            # (a checked field that passes is trusted).
            covered = set()
            for name, (s, (dn, di)) in checks.items():
                if name != "composite" and check_ok(group_text(grid, s), grid[dn][di]):
                    covered.update(slice_positions(s))
                    covered.add((dn, di))
            free = [p for p in slice_positions(slices) + [(cn, ci)] if p not in covered]
            options = []
            for n, i in free:
                if alts is None:
                    break  # nothing confirms a composite-only fix but the recogniser's own doubt
                for c, cost in _candidates(grid, alts, n, i, allowed_chars(classes[n][i])):
                    if cost >= TABLE_COST:
                        continue
                    old = grid[n][i]
                    grid[n][i] = c
                    if check_ok(group_text(grid, slices), grid[cn][ci]):
                        options.append((cost, n, i, old, c))
                    grid[n][i] = old
            choice = _unique_best(options)
            if choice is not None:
                _cost, n, i, old, c = choice
                grid[n][i] = c
                new_corr.append(correction(n, i, old, c, "composite check digit"))
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
    ok = check_ok(group_text(grid, slices), grid[cn][ci])
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


def fix_country_codes(grid, type_, alts, corrections, warnings):
    """A code that is no country's, respelled as the likeliest one that is.

    From the recogniser's candidates (its top three per letter, each within the cost a check digit would be
    allowed, MAX_SUBSTITUTION_COST); failing that, as the document's other code when one letter apart.
    A code that cannot be respelled is left as read, with a warning: an unknown code on a sharp read is the
    document's, not OCR's.

    >>> alts = [[("E", 0.6), ("C", 0.4)], [("Z", 1.0)], [("E", 1.0)]]
    >>> grid, fixes = [list("P<EZE"), list("0" * 10 + "EZE")], []
    >>> fix_country_codes(grid, "TD3", [[[("P", 1.0)], [("<", 1.0)]] + alts, [[("0", 1.0)]] * 10 + alts], fixes, [])
    >>> "".join(grid[0][2:5]), "".join(grid[1][10:13]), [(f["line"], f["pos"], f["to"]) for f in fixes]
    ('CZE', 'CZE', [(0, 2, 'C'), (1, 10, 'C')])

    Without the recogniser's candidates, only a code one letter from the document's other code is respelled:

    >>> grid, fixes = [list("P<NLD"), list("0" * 10 + "NLR")], []
    >>> fix_country_codes(grid, "TD3", None, fixes, [])
    >>> "".join(grid[1][10:13]), fixes[0]["reason"]
    ('NLD', 'nationality code')
    """
    slices = code_slices(type_)
    for k, (n, start, name) in enumerate(slices):
        read = "".join(grid[n][start:start + 3])
        if len(read) < 3 or is_known_code(read):
            continue
        best: tuple[float, str] | None = None
        if alts is not None and all(start + j < len(alts[n]) for j in range(3)):
            options = []
            for j in range(3):
                costs = _alternative_costs(alts[n][start + j], read[j], allowed_chars("A"))
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
                corrections.append(correction(n, start + j, frm, to, f"{name} code"))
                grid[n][start + j] = to


def confirm_codes_by_each_other(grid, type_, alts, corrections, min_p: float = MIN_UNCHECKED_P):
    """An issuing-state code with letters the recogniser was unsure of, confirmed by a nationality code read
    surely (or the other way round) where the two agree, and respelled as it where they differ only in those
    letters and the recogniser had the other code's letter among its candidates.

    Most documents' holders are nationals of the issuing state, so the surely read code is the likeliest
    reading of the unsure one; a letter read surely is never changed (GBR beside GBD stays as read). The
    confirmed letters count as certain, as names confirmed by the print do: a blurred letter of a code otherwise
    leaves a whole zone invalid.

    >>> grid = [list("P<CHL"), list("0" * 10 + "CHE")]
    >>> sure = [[("C", 1.0)], [("H", 1.0)]]
    >>> alts = [[[("P", 1.0)], [("<", 1.0)]] + sure + [[("L", 0.45), ("C", 0.44), ("E", 0.05)]],
    ...         [[("0", 1.0)]] * 10 + sure + [[("E", 1.0)]]]
    >>> fixes = []
    >>> confirm_codes_by_each_other(grid, "TD3", alts, fixes)
    >>> "".join(grid[0][2:5]), alts[0][4], [(f["line"], f["pos"], f["to"]) for f in fixes]
    ('CHE', [('E', 1.0)], [(0, 4, 'E')])

    A letter read surely where the codes differ leaves both as read:

    >>> grid = [list("P<GBR"), list("0" * 10 + "GBD")]
    >>> alts[0][4] = [("R", 1.0)]; alts[1][12] = [("D", 1.0)]; alts[1][11] = [("B", 0.6), ("8", 0.4)]
    >>> confirm_codes_by_each_other(grid, "TD3", alts, [])
    >>> "".join(grid[0][2:5]), "".join(grid[1][10:13])
    ('GBR', 'GBD')
    """
    if alts is None:
        return
    slices = code_slices(type_)
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
        costs = [_alternative_costs(alts[n][start + j], codes[k][j], allowed_chars("A")) for j in unsure[k]]
        if any(codes[k][j] != other[j] and costs[m].get(other[j], math.inf) > MAX_SUBSTITUTION_COST
               for m, j in enumerate(unsure[k])):
            continue
        for j in unsure[k]:
            if grid[n][start + j] != other[j]:
                corrections.append(correction(n, start + j, grid[n][start + j], other[j], f"{name} code as the other code"))
                grid[n][start + j] = other[j]
            alts[n][start + j] = [(other[j], 1.0)]


# A number of digits with one letter inside it, read unsurely, whose digit twin the check digit cannot tell from it
# (G and 6: 16 and 6) is most likely all digits. A letter first in the field is left alone (letter prefixes are
# common: G1234567).
NUMBER_FIELDS = ("document_number", "personal_number")


def lone_letters_in_digits(grid, layout, alts, corrections, min_p: float = MIN_UNCHECKED_P):
    """The one unsure letter inside an otherwise all-digit number, as the check-blind digit the recogniser also
    gave for it.

    >>> grid = [list("634676G646149<<")]
    >>> alts = [[[(c, 1.0)] for c in "634676G646149<<"]]
    >>> alts[0][6] = [("G", 0.68), ("6", 0.22), ("4", 0.09)]
    >>> layout = {"checks": {"personal_number": ([(0, 0, 14)], (0, 14))}}
    >>> fixes = []
    >>> lone_letters_in_digits(grid, layout, alts, fixes)
    >>> "".join(grid[0]), fixes[0]["reason"]
    ('6346766646149<<', 'lone letter in a number')
    >>> grid = [list("G34676")]; alts = [[[("G", 0.6), ("6", 0.4)]] + [[(c, 1.0)] for c in "34676"]]
    >>> lone_letters_in_digits(grid, {"checks": {"document_number": ([(0, 0, 6)], (0, 6))}}, alts, [])
    >>> "".join(grid[0])                                              # a prefix stays a letter
    'G34676'
    """
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
                corrections.append(correction(n, i, grid[n][i], twin, "lone letter in a number"))
                grid[n][i] = twin
