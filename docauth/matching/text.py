"""Text matching: what the document says against the person on record.

Each field gives a score in [0, 1] (or None when it cannot be compared), a
``match`` flag and a machine-readable ``reason``:

``exact``            identical after Unicode normalisation and case folding
``transliteration``  identical once written the ICAO 9303 way (``MÜLLER`` = ``MUELLER`` = ``MULLER``)
``token_order``      the same name parts in another order, or run together
``truncated``        the document's name is the record's, cut as the MRZ cuts long names
``fuzzy``            similar enough (rapidfuzz) to be the same name with a typo or OCR slip
``century``          a birth date the same but for its century (an MRZ states two digits of the year)
``ocr_confusion``    document number equal up to characters OCR confuses (O/0, I/1, B/8, S/5, ...)
``mismatch``         different
``missing``          absent on the document or in the record
``expired``          the document's expiry date is before ``today``
``not_expired``      the expiry date is valid (the record has none to compare with)
``invalid``          the value cannot be read as what it should be (e.g. a date)

>>> m = match_person({"surname": "MUELLER", "given_names": "JOERG"}, {"surname": "Müller", "given_names": "Jörg"})
>>> (m.fields["surname"].reason, m.fields["surname"].match)
('transliteration', True)
>>> fold_name("Łukasz  Żółć-Błąd")
'LUKASZ ZOLC BLAD'
>>> sorted(name_variants("Ä"))
['A', 'AE']
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

from docauth.config import DEFAULT_NAME_THRESHOLD
from docauth.dates import parse_date

# ICAO 9303 Part 3, section 6 (transliteration of Latin multi-letter and
# Cyrillic characters). Letters with two recommended forms list both.
_LATIN_MULTI: dict[str, tuple[str, ...]] = {
    "Ä": ("AE", "A"),
    "Ö": ("OE", "O"),
    "Ü": ("UE", "U"),
    "ß": ("SS",),
    "ẞ": ("SS",),
    "Æ": ("AE",),
    "Ø": ("OE", "O"),
    "Å": ("AA", "A"),
    "Œ": ("OE",),
    "Ĳ": ("IJ",),
    "Þ": ("TH",),
    "Ð": ("D",),
    "Đ": ("D",),
    "Ł": ("L",),
    "Ħ": ("H",),
    "Ŋ": ("N",),
    "Ñ": ("N", "NXX"),
    "ı": ("I",),
}
_CYRILLIC: dict[str, str] = {
    "А": "A", "Б": "B", "В": "V", "Г": "G", "Ґ": "G", "Д": "D", "Е": "E", "Ё": "E", "Є": "IE",
    "Ж": "ZH", "З": "Z", "И": "I", "І": "I", "Ї": "I", "Й": "I", "К": "K", "Л": "L", "М": "M",
    "Н": "N", "О": "O", "П": "P", "Р": "R", "С": "S", "Т": "T", "У": "U", "Ў": "U", "Ф": "F",
    "Х": "KH", "Ц": "TS", "Ч": "CH", "Ш": "SH", "Щ": "SHCH", "Ъ": "IE", "Ы": "Y", "Ь": "",
    "Э": "E", "Ю": "IU", "Я": "IA", "Ђ": "D", "Ј": "J", "Љ": "LJ", "Њ": "NJ", "Ћ": "C", "Џ": "DZ",
}  # fmt: skip

# Characters OCR mistakes for one another, mapped to one representative.
_OCR_CLASSES = {"O": "0", "Q": "0", "D": "0", "I": "1", "L": "1", "T": "1", "B": "8", "S": "5", "Z": "2", "G": "6"}

_FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "surname": ("surname", "last_name", "primary_identifier"),
    "given_names": ("given_names", "given_name", "first_names", "first_name", "names", "secondary_identifier"),
    "date_of_birth": ("date_of_birth", "birth_date", "dob"),
    "document_number": ("document_number", "number", "passport_number"),
    "expiry": ("date_of_expiry", "expiry_date", "expiry", "document_expiry", "expiration_date"),
    "nationality": ("nationality",),
    "sex": ("sex",),
}

# MRZ name field lengths (TD1, TD2, TD3); a name of exactly this length may be cut.
_MRZ_NAME_LENGTHS = (30, 31, 39)


def _strip_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _letters_only(text: str) -> str:
    # ICAO drops apostrophes (O'NEILL -> ONEILL); the MRZ filler '<', hyphens and
    # other punctuation separate name parts.
    text = re.sub(r"['\u2019`]", "", text)
    text = re.sub(r"[^A-Z0-9 ]+", " ", text)
    return " ".join(text.split())


def _same_spelling(text: str) -> str:
    """Case- and punctuation-insensitive, diacritics kept (for ``exact``)."""
    text = re.sub(r"['\u2019`]", "", _upper(text))
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def _upper(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text)).replace("ß", "ẞ")
    return text.upper()


def name_variants(text: str, limit: int = 16) -> set[str]:
    """Every ICAO spelling of a name, uppercase ASCII letters and single spaces."""
    text = _upper(text)
    pieces: list[tuple[str, ...]] = []
    for ch in text:
        if ch in _LATIN_MULTI:
            pieces.append(_LATIN_MULTI[ch])
        elif ch in _CYRILLIC:
            pieces.append((_CYRILLIC[ch],))
        else:
            pieces.append((_strip_marks(ch),))
    variants: set[str] = set()
    for combo in itertools.islice(itertools.product(*pieces), limit):
        variants.add(_letters_only("".join(combo)))
    # the plain diacritics-stripped form (Ä -> A everywhere) is always one of them
    variants.add(_letters_only("".join(p[-1] if len(p) > 1 and p[-1] != "NXX" else p[0] for p in pieces)))
    return {v for v in variants if v}


def fold_name(text: str) -> str:
    """The canonical (first ICAO) spelling: uppercase, diacritics folded, punctuation as spaces."""
    text = _upper(text)
    out = []
    for ch in text:
        if ch in _LATIN_MULTI:
            out.append(_LATIN_MULTI[ch][0])
        elif ch in _CYRILLIC:
            out.append(_CYRILLIC[ch])
        else:
            out.append(_strip_marks(ch))
    return _letters_only("".join(out))


def ocr_canonical(value: str) -> str:
    """A document number with OCR-confusable characters collapsed.

    >>> ocr_canonical("L898902C3") == ocr_canonical("1898902C3")
    True
    """
    return "".join(_OCR_CLASSES.get(c, c) for c in normalise_document_number(value))


def normalise_document_number(value: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", _upper(value))


@dataclass(frozen=True)
class FieldMatch:
    field: str
    score: float | None
    match: bool | None
    reason: str
    document_value: str | None = None
    record_value: str | None = None
    details: dict = field(default_factory=dict)

    def export(self, include_values: bool = True) -> dict:
        out: dict[str, Any] = {
            "score": None if self.score is None else round(float(self.score), 4),
            "match": self.match,
            "reason": self.reason,
        }
        if self.details:
            out["details"] = dict(self.details)
        if include_values:
            out["document_value"] = self.document_value
            out["record_value"] = self.record_value
        return out


@dataclass(frozen=True)
class TextMatch:
    fields: dict[str, FieldMatch]
    today: dt.date

    @property
    def match(self) -> bool:
        """No compared field disagrees, the document has not expired, and the name was compared."""
        compared = [f for f in self.fields.values() if f.match is not None]
        names_compared = any(self.fields[n].match is not None for n in ("surname", "given_names") if n in self.fields)
        return names_compared and all(f.match for f in compared)

    @property
    def score(self) -> float | None:
        scores = [f.score for f in self.fields.values() if f.score is not None]
        return round(sum(scores) / len(scores), 4) if scores else None

    @property
    def expired(self) -> bool:
        return "expiry" in self.fields and self.fields["expiry"].reason == "expired"

    @property
    def reasons(self) -> list[str]:
        """``field:reason`` for every field that did not match (the why of a rejection)."""
        return [f"{name}:{f.reason}" for name, f in self.fields.items() if f.match is False]

    def export(self, include_values: bool = True) -> dict:
        return {
            "match": self.match,
            "score": self.score,
            "expired": self.expired,
            "today": self.today.isoformat(),
            "reasons": self.reasons,
            "fields": {name: f.export(include_values) for name, f in self.fields.items()},
        }

    def audit(self) -> dict:
        """Scores and reason codes only (no names, numbers or dates): fit for the audit record."""
        return self.export(include_values=False)


def _get(mapping: dict, key: str) -> Any:
    for alias in _FIELD_ALIASES[key]:
        value = mapping.get(alias)
        if value not in (None, ""):
            return value
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


# The narrowest name field of an MRZ: TD1's third line (TD2 has 31, TD3 39 characters).
ZONE_NAME_FIELD_MIN = 30


def fills_zone_name_field(surname: str | None, given_names: str | None) -> bool:
    """Do the names, written as an MRZ writes them (``SURNAME<<GIVEN<NAMES``), fill a whole name field? Then
    the zone may have cut the given names short.

    >>> fills_zone_name_field("ABERCROMBIE FITZGERALD", "JEAN E"), fills_zone_name_field("SMITH", "JOHN")
    (True, False)
    """
    if not surname or not given_names:
        return False
    return len(f"{surname}<<{given_names}".replace(" ", "<")) >= ZONE_NAME_FIELD_MIN


def compare_names(document: str | None, record: str | None, field: str = "name", threshold: float = DEFAULT_NAME_THRESHOLD,
                  *, zone_full: bool = False) -> FieldMatch:
    """``zone_full``: the document's names fill an MRZ's whole name field, so its last word may be cut short
    however short the name (a cut name of fewer than ten letters is taken as such only then)."""
    doc_text, rec_text = _text(document), _text(record)
    if not doc_text or not rec_text or not fold_name(doc_text) or not fold_name(rec_text):
        return FieldMatch(field, None, None, "missing", doc_text, rec_text)
    if _same_spelling(doc_text) == _same_spelling(rec_text):
        return FieldMatch(field, 1.0, True, "exact", doc_text, rec_text)
    doc_vars, rec_vars = name_variants(doc_text), name_variants(rec_text)
    if doc_vars & rec_vars:
        return FieldMatch(field, 1.0, True, "transliteration", doc_text, rec_text)
    if {" ".join(sorted(v.split())) for v in doc_vars} & {" ".join(sorted(v.split())) for v in rec_vars}:
        return FieldMatch(field, 1.0, True, "token_order", doc_text, rec_text)
    # The parts run together: a reader loses the space between two printed names more often than a letter.
    if {v.replace(" ", "") for v in doc_vars} & {v.replace(" ", "") for v in rec_vars}:
        return FieldMatch(field, 0.95, True, "token_order", doc_text, rec_text)
    # MRZ names are cut at the field length; the document then holds a prefix.
    for d, r in itertools.product(doc_vars, rec_vars):
        mrz_form = r.replace(" ", "")
        if (len(d) >= 10 or zone_full) and (r.startswith(d) or mrz_form.startswith(d.replace(" ", ""))) \
                and len(d) < len(r):
            return FieldMatch(field, 0.95, True, "truncated", doc_text, rec_text)
    best = max(fuzz.token_sort_ratio(d, r) / 100.0 for d, r in itertools.product(doc_vars, rec_vars))
    if best >= threshold:
        return FieldMatch(field, best, True, "fuzzy", doc_text, rec_text)
    return FieldMatch(field, best, False, "mismatch", doc_text, rec_text)


def compare_birth_dates(document: Any, record: Any, today: dt.date) -> FieldMatch:
    doc_text, rec_text = _text(document), _text(record)
    if document in (None, "") or record in (None, ""):
        return FieldMatch("date_of_birth", None, None, "missing", doc_text, rec_text)
    doc_date, rec_date = parse_date(document, today=today), parse_date(record, today=today)
    if doc_date is None or rec_date is None:
        return FieldMatch("date_of_birth", 0.0, False, "invalid", doc_text, rec_text)
    if doc_date == rec_date:
        return FieldMatch("date_of_birth", 1.0, True, "exact", doc_text, rec_text)
    # An MRZ states two digits of the year and its print may state another century than the zone's rule
    # gives: the same day, month and two digits a whole number of centuries apart are the same birth.
    if (doc_date.month, doc_date.day, doc_date.year % 100) == (rec_date.month, rec_date.day, rec_date.year % 100):
        return FieldMatch("date_of_birth", 1.0, True, "century", doc_text, rec_text)
    return FieldMatch("date_of_birth", 0.0, False, "mismatch", doc_text, rec_text)


def compare_document_numbers(document: Any, record: Any) -> FieldMatch:
    doc_text, rec_text = _text(document), _text(record)
    if not doc_text or not rec_text:
        return FieldMatch("document_number", None, None, "missing", doc_text, rec_text)
    doc, rec = normalise_document_number(doc_text), normalise_document_number(rec_text)
    if doc == rec:
        return FieldMatch("document_number", 1.0, True, "exact", doc_text, rec_text)
    if len(doc) == len(rec) and ocr_canonical(doc) == ocr_canonical(rec):
        positions = [i for i, (a, b) in enumerate(zip(doc, rec)) if a != b]
        pairs = [f"{rec[i]}->{doc[i]}" for i in positions]
        return FieldMatch(
            "document_number", 0.9, True, "ocr_confusion", doc_text, rec_text,
            details={"positions": positions, "substitutions": pairs},
        )  # fmt: skip
    return FieldMatch("document_number", round(Levenshtein.normalized_similarity(doc, rec), 4), False, "mismatch", doc_text, rec_text)


def compare_expiry(document: Any, record: Any, today: dt.date) -> FieldMatch:
    doc_text, rec_text = _text(document), _text(record)
    if document in (None, ""):
        return FieldMatch("expiry", None, None, "missing", doc_text, rec_text)
    doc_date = parse_date(document, kind="expiry", today=today)
    if doc_date is None:
        return FieldMatch("expiry", 0.0, False, "invalid", doc_text, rec_text)
    details = {"days_left": (doc_date - today).days}
    if doc_date < today:
        return FieldMatch("expiry", 0.0, False, "expired", doc_text, rec_text, details=details)
    if record in (None, ""):
        return FieldMatch("expiry", None, True, "not_expired", doc_text, rec_text, details=details)
    rec_date = parse_date(record, kind="expiry", today=today)
    if rec_date == doc_date:
        return FieldMatch("expiry", 1.0, True, "exact", doc_text, rec_text, details=details)
    # A renewed document is legitimate; the record is what is out of date.
    return FieldMatch("expiry", 0.0, False, "mismatch", doc_text, rec_text, details=details)


_NATIONALITY_ALIASES = {"D": "DEU"}  # Germany writes "D<<" in the MRZ


def compare_codes(name: str, document: Any, record: Any) -> FieldMatch:
    doc_text, rec_text = _text(document), _text(record)
    if not doc_text or not rec_text:
        return FieldMatch(name, None, None, "missing", doc_text, rec_text)
    doc, rec = (re.sub(r"[^A-Z]", "", _upper(v)) for v in (doc_text, rec_text))
    doc, rec = _NATIONALITY_ALIASES.get(doc, doc), _NATIONALITY_ALIASES.get(rec, rec)
    if doc == rec:
        return FieldMatch(name, 1.0, True, "exact", doc_text, rec_text)
    return FieldMatch(name, 0.0, False, "mismatch", doc_text, rec_text)


def match_person(
    fields: dict,
    person: dict,
    today: dt.date | None = None,
    *,
    name_threshold: float = DEFAULT_NAME_THRESHOLD,
) -> TextMatch:
    """Compare the fields read from a document with a person record.

    ``fields``: what OCR read (``surname``, ``given_names``, ``date_of_birth``,
    ``document_number``, ``date_of_expiry``/``expiry_date``, ``nationality``,
    ``sex``); ``person``: a record (``PersonRecord.export()`` or the same keys).
    Dates may be ``date`` objects, ISO strings or MRZ ``YYMMDD``.
    """
    if hasattr(person, "export"):
        person = person.export()
    today = today or dt.date.today()
    results = {
        "surname": compare_names(_get(fields, "surname"), _get(person, "surname"), "surname", name_threshold),
        "given_names": compare_names(_get(fields, "given_names"), _get(person, "given_names"), "given_names", name_threshold,
                                     zone_full=fills_zone_name_field(_get(fields, "surname"), _get(fields, "given_names"))),
        "date_of_birth": compare_birth_dates(_get(fields, "date_of_birth"), _get(person, "date_of_birth"), today),
        "document_number": compare_document_numbers(_get(fields, "document_number"), _get(person, "document_number")),
        "expiry": compare_expiry(_get(fields, "expiry"), _get(person, "expiry"), today),
        "nationality": compare_codes("nationality", _get(fields, "nationality"), _get(person, "nationality")),
        "sex": compare_codes("sex", _get(fields, "sex"), _get(person, "sex")),
    }
    return TextMatch(fields=results, today=today)
