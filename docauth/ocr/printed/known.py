"""A value the page should print, confirmed by the recogniser's own probabilities where its greedy read missed it.

On a small or blurred print the greedy read drops or swaps a glyph ("ERIKSONANNA" for ERIKSSON ANNA) and the
text comparisons of :mod:`docauth.ocr.printed.assign` and :mod:`docauth.ocr.printed.record` find nothing.
Here the value is spelled as tokens (names word by word with the space optional, dates in the renderings
the date parser knows with their separators optional, numbers with O/0 and I/1 alike) and aligned on each
line's frames (:func:`docauth.ocr.printed.alignment.align`). It counts as printed only when the path that
spells it is nearly as likely as the line's greedy read: every glyph holds a real share of its frames
(``SHARE``), no frame contradicts the path much (``WORST_FRAME``: a glyph printed clearly that the value
lacks), and the path loses at most ``LLR_PER_GLYPH`` per glyph against the greedy one. A glyph printed
clearly as another (one digit of another person's number) holds next to nothing, so it is never found.

    read = find_aligned("surname", "ERIKSSON", lines)          # FieldRead(how="mrz") or None
    read = find_aligned("surname", "Eriksson", lines, record=True)  # the record's spelling, how="record"
"""

from __future__ import annotations

import functools
import re

from docauth.ocr.mrz import transliterate
from docauth.ocr.printed.alignment import (COLUMN, DIGIT_KIND, LETTER_KIND, SEPARATORS, LineFrames, Token, align)
from docauth.ocr.printed.assign import FieldRead, PrintedLine, number_text
from docauth.ocr.printed.compare import strip_accents
from docauth.ocr.printed.dates import ICAO_ABBREVIATIONS, MONTHS
from docauth.ocr.printed.rows import row_runs

# Bounds fitted on generated pages (`docauth synth` captures, validation seeds) against the true values and the
# same values one glyph changed: the lowest probability an aligned glyph may hold on its frames; the lowest
# ratio, in log, of any frame's probability on the path over the greedy class's there (a glyph read clearly
# that the path calls blank or another glyph, which a value's length would dilute in the mean); the path's mean
# log-likelihood ratio per glyph against the greedy read. No changed value passed them all, and the closest
# held a glyph share of little more than half the bound.
SHARE = 0.1
WORST_FRAME = -2.5
LLR_PER_GLYPH = -0.7
# What may not touch a value on either side in the greedy read: a name, a date or a number found inside a longer
# one (a record's name one letter short of the printed one) is not the value.
APART = {"surname": (LETTER_KIND,), "given_names": (LETTER_KIND,), "date_of_birth": (DIGIT_KIND,),
         "expiry_date": (DIGIT_KIND,), "document_number": (LETTER_KIND, DIGIT_KIND)}
MIN_NUMBER = 5  # glyphs: shorter numbers are no one's document number
_FOLDS = {"0": "0O", "O": "O0", "1": "1I", "I": "I1"}  # one glyph in many print fonts
_SEPARATOR = Token(SEPARATORS, optional=True)
# How long a month abbreviation paired with its English or French one (``ICAO_ABBREVIATIONS``) is at most.
BILINGUAL_LETTERS = 4
_NAME_BREAK = Token((COLUMN[" "], COLUMN["-"], COLUMN["'"]), optional=True)


def glyph(ch: str, folds: str = "") -> Token:
    """The token of one glyph; ``folds``: the glyphs it may print as (the fold table's, where listed).

    >>> glyph("A"), glyph("0", "0").columns == (COLUMN["0"], COLUMN["O"])
    (Token(columns=(1,), optional=False), True)
    """
    alike = _FOLDS.get(ch, ch) if ch in folds else ch
    return Token(tuple(COLUMN[c] for c in alike))


def name_tokens(words: list[str]) -> list[Token]:
    """A name's letters, the break between its words optional (the recogniser often drops the space)."""
    tokens: list[Token] = []
    for i, word in enumerate(words):
        if i:
            tokens.append(_NAME_BREAK)
        tokens += [glyph(c, "O") for c in word]
    return tokens


def digits(text: str) -> list[Token]:
    return [glyph(c, "01") for c in text]


def date_renderings(iso: str) -> list[list[Token]]:
    """The ways a page prints the day ``iso`` names, as :mod:`docauth.ocr.printed.dates` reads them: day month
    year in digits (two- or four-digit year, day first, or the year first in four), or with the month's name
    in any of its languages, alone or beside its English or French abbreviation ("26 MAR/MAR 91", "12 DEC/DÉC
    82"); separators optional.

    >>> len(date_renderings("1973-08-19")), len(date_renderings("1973-08-19")[0])  # 19.08.73 and so on
    (79, 8)
    """
    year, month, day = iso.split("-")
    days = [day] + ([day[1]] if day[0] == "0" else [])
    out = []
    for y in (year[2:], year):
        for d in days:
            out.append(_joined([digits(d), digits(month), digits(y)]))
    out.append(_joined([digits(year), digits(month), digits(day)]))
    names = sorted(name for name, number in MONTHS.items() if number == int(month))
    for spelled in names + _bilingual(names):
        for y in (year[2:], year):
            out.append(_joined([digits(day)] + [[glyph(c, "O") for c in name] for name in spelled.split("/")]
                               + [digits(y)]))
    return out


def _bilingual(names: list[str]) -> list[str]:
    """A month's abbreviations (``BILINGUAL_LETTERS`` letters at most) paired with its English or French one,
    either first, as a page in a language other than those prints its dates ("MAA/MAR", "MAR/MAR", "DEC/DEC")."""
    short = [name for name in names if len(name) <= BILINGUAL_LETTERS]
    second = [name for name in short if name in ICAO_ABBREVIATIONS]
    pairs = {f"{a}/{b}" for b in second for a in short} | {f"{b}/{a}" for b in second for a in short}
    return sorted(pairs)


def _joined(groups: list[list[Token]]) -> list[Token]:
    tokens: list[Token] = []
    for i, group in enumerate(groups):
        tokens += ([_SEPARATOR] if i else []) + group
    return tokens


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Z]+", text)


def name_spellings(value: str, record: bool) -> list[list[str]]:
    """The spellings of a name to look for: the zone's letters and, where the zone spells a letter the page
    prints with a diacritic in two (Ö as OE, Å as AA), its base letter alone; a record's name transliterated
    as a zone would, and in its plain letters.

    >>> name_spellings("OEZTUERK", record=False), name_spellings("Müller", record=True)
    ([['OEZTUERK'], ['OZTURK']], [['MUELLER'], ['MULLER']])
    """
    upper = value.upper()
    if record:
        options = [_words(transliterate(upper)), _words(strip_accents(upper))]
    else:
        letters = _words(transliterate(upper.replace("0", "O")))
        options = [letters, [re.sub(r"([AOU])E|AA", lambda m: m.group(1) or "A", w) for w in letters]]
    out: list[list[str]] = []
    for words in options:
        if words and words not in out:
            out.append(words)
    return out


def renderings(name: str, value: str, record: bool, others: tuple[str, ...] = ()) -> list[list[Token]]:
    """Every token sequence that prints ``value`` of field ``name`` (dates as ISO); a name also glued before or
    after the document's other name (``others``), as the recogniser reads two names on one line.

    >>> len(renderings("surname", "ERIKSSON", False)), len(renderings("surname", "ERIKSSON", False, ("ANNA",)))
    (1, 3)
    """
    if name in ("date_of_birth", "expiry_date"):
        return date_renderings(value)
    if name == "document_number":
        kept = re.sub(r"[^A-Z0-9]", "", value.upper())
        return [digits(kept)] if len(kept) >= MIN_NUMBER else []
    own = [words for words in name_spellings(value, record) if len("".join(words)) >= 2]
    out = [name_tokens(words) for words in own]
    for other in others:
        for words in own:
            for other_words in name_spellings(other, record):
                out += [name_tokens(words + other_words), name_tokens(other_words + words)]
    return out


def confirms(frames: LineFrames, tokens: list[Token], apart: tuple[int, ...]) -> float | None:
    """The per-glyph likelihood ratio of ``tokens`` on the line's frames against its greedy read, when the
    value is printed there by the bounds above, else None. ``apart``: the kinds of glyph (letter, digit) that
    may not touch the value on either side (a value is no piece of a longer word or number)."""
    glyphs = [t for t in tokens if not t.optional]
    if not all(_held(frames, t) for t in glyphs):
        return None  # a glyph the line nowhere gives a share: no path can confirm it
    fit = align(frames, tokens)
    if (fit is None or min(fit.shares) < SHARE or fit.worst < WORST_FRAME
            or fit.llr / len(glyphs) < LLR_PER_GLYPH):
        return None
    if frames.neighbour(fit.span[0], -1) in apart or frames.neighbour(fit.span[1], 1) in apart:
        return None
    return fit.llr / len(glyphs)


def _held(frames: LineFrames, token: Token) -> bool:
    """Does some frame of the line give ``token`` a share (``SHARE``)? Asked once per glyph and line: a value's
    many renderings share their glyphs."""
    key = ("held", token.columns)
    if key not in frames.fits:
        frames.fits[key] = bool(frames.peak[list(token.columns)].sum() >= SHARE)
    return frames.fits[key]


def find_aligned(name: str, value: str, lines: list[PrintedLine], *, record: bool = False,
                 others: tuple[str, ...] = ()) -> FieldRead | None:
    """The line that prints ``value`` (the zone's, or with ``record`` the person's record's) by the recogniser's
    probabilities, best first; the parts of a value the detector cut apart on its row are looked at joined.
    ``others``: the document's other name, which a name may be glued to. The value is reported as expected,
    the line's text as read; ``how`` is "mrz" (the caller renames it)."""
    others = tuple(o for o in others if o)
    key = (name, value, record, others)
    options: list[list[Token]] = []

    def score(line: PrintedLine) -> float | None:
        """The line's best rendering's score, kept with its frames: the reader asks again after each line read."""
        if key not in line.frames.fits:
            if not options:
                options.extend(_renderings(name, value, record, others))
            scores = [s for tokens in options if (s := confirms(line.frames, tokens, APART[name])) is not None]
            line.frames.fits[key] = max(scores) if scores else None
        return line.frames.fits[key]

    best = _best(score, [line for line in lines if line.frames is not None])
    if best is None and name != "document_number":
        best = _best(score, [_joined_line(run) for run in row_runs([ln for ln in lines if ln.frames is not None])])
    if best is None:
        return None
    return FieldRead(_reported(name, value, record), best.text, best.confidence, "mrz", True, best.box,
                     tuple((c, best.confidence) for c in best.text))


@functools.lru_cache(maxsize=256)
def _renderings(name: str, value: str, record: bool, others: tuple[str, ...]) -> tuple[tuple[Token, ...], ...]:
    """:func:`renderings`, made once per value: the reader asks for a value again after each line it reads."""
    return tuple(tuple(tokens) for tokens in renderings(name, value, record, others))


def other_name(name: str, values: dict) -> tuple[str, ...]:
    """The document's other name (``values``: field -> value), which the recogniser may read glued to ``name``.

    >>> other_name("surname", {"surname": "ERIKSSON", "given_names": "ANNA"}), other_name("date_of_birth", {})
    (('ANNA',), ())
    """
    other = {"surname": "given_names", "given_names": "surname"}.get(name)
    return (values[other],) if other and values.get(other) else ()


def _best(score, lines: list[PrintedLine]) -> PrintedLine | None:
    scored = [(s, line) for line in lines if (s := score(line)) is not None]
    return max(scored, key=lambda pair: pair[0])[1] if scored else None


def _joined_line(run: list[PrintedLine]) -> PrintedLine:
    """The run's parts as one line, its frames made once per run (kept with the first part's)."""
    key = ("joined",) + tuple(id(p.frames) for p in run[1:])
    if key not in run[0].frames.fits:
        run[0].frames.fits[key] = LineFrames.concatenated([p.frames for p in run])
    return PrintedLine(" ".join(p.text for p in run), min(p.x0 for p in run), min(p.y0 for p in run),
                       max(p.x1 for p in run), max(p.y1 for p in run), min(p.confidence for p in run),
                       frames=run[0].frames.fits[key])


def _reported(name: str, value: str, record: bool) -> str:
    if name in ("date_of_birth", "expiry_date"):
        return value
    if name == "document_number":
        return number_text(value) if record else re.sub(r"[^A-Z0-9]", "", value.upper())
    return " ".join(value.upper().split()) if record else " ".join(_words(transliterate(value.upper())))

