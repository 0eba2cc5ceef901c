"""A known value confirmed in print by the recogniser's own probabilities (docauth.ocr.printed.known, .alignment):
the scorer on hand-made frames, then on generated pages with the real recogniser, where the true values are
confirmed and a value one glyph off a clearly printed one (a zone value changed, another person's record) never
is."""

from __future__ import annotations

import pytest

from docauth.ocr.printed.alignment import COLUMN, LineFrames, Token, align
from docauth.ocr.printed.known import confirms, find_aligned, renderings
from printed_support import frames_of as _frames


def _clear(text: str) -> list[dict[str, float]]:
    return [{c: 0.98} for c in text]


def _found(name: str, value: str, frames: LineFrames) -> bool:
    from docauth.ocr.printed.known import APART

    return any(confirms(frames, tokens, APART[name]) is not None for tokens in renderings(name, value, False))


def test_the_scorer_prefers_the_path_the_frames_hold():
    frames = _frames(_clear("AB"))
    fit = align(frames, [Token((COLUMN["A"],)), Token((COLUMN["B"],))])
    assert fit.span == (0, 2) and min(fit.shares) > 0.9 and fit.llr == pytest.approx(0.0, abs=1e-3)
    other = align(frames, [Token((COLUMN["A"],)), Token((COLUMN["C"],))])
    assert other.llr < -5 and min(other.shares) < 1e-3  # C holds nothing where B is printed


def test_a_glyph_the_greedy_read_dropped_or_swapped_is_confirmed_and_a_clear_other_glyph_is_not():
    dropped = _frames(_clear("ERI") + [{"K": 0.35}] + _clear("SSON"))  # greedy: ERISSON
    assert _found("surname", "ERIKSSON", dropped)
    assert not _found("surname", "ERIASSON", dropped) and not _found("surname", "ERIKSSONA", dropped)
    swapped = _frames(_clear("L898902C") + [{"0": 0.55, "3": 0.40}])  # greedy: L898902C0
    assert _found("document_number", "L898902C3", swapped)
    assert not _found("document_number", "L898902C8", swapped)  # 8 holds nothing there
    assert not _found("document_number", "L898903C3", swapped)  # a clearly printed 2 is no 3


def test_a_value_inside_a_longer_word_or_number_is_not_that_value():
    assert _found("surname", "GEORGIOU", _frames(_clear("GEORGIOU")))
    assert not _found("surname", "EORGIOU", _frames(_clear("GEORGIOU")))
    assert not _found("document_number", "2080156", _frames(_clear("832080156")))
    assert not _found("date_of_birth", "1973-08-19", _frames(_clear("119.08.73")))
    assert _found("date_of_birth", "1973-08-19", _frames(_clear("19 08 73")))  # separators optional
    assert _found("date_of_birth", "1973-08-19", _frames(_clear("19AUG1973")))


def test_a_date_with_its_month_in_two_languages_is_confirmed_and_another_day_or_month_is_not():
    blurred = _frames(_clear("26 MA") + [{"P": 0.6, "R": 0.3}] + _clear("/") + [{"N": 0.6, "M": 0.3}]
                      + _clear("AR 91"))  # greedy: 26 MAP/NAR 91
    assert _found("date_of_birth", "1991-03-26", blurred)
    assert _found("date_of_birth", "1982-12-12", _frames(_clear("12 DEC/DEC 82")))
    assert _found("date_of_birth", "1972-03-17", _frames(_clear("17 MAA/MAR 1972")))
    assert not _found("date_of_birth", "1991-04-26", blurred) and not _found("date_of_birth", "1992-03-26", blurred)


# --- generated pages, the real recogniser -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def printed_reader():
    from docauth.ocr.printed import PrintedReader

    return PrintedReader.load(backend="onnxruntime")


def _one_glyph_off(name: str, value: str) -> str:
    """``value`` with one glyph changed: a date's day, a name's middle letter, a number's last glyph."""
    if name == "date_of_birth":
        year, month, day = value.split("-")
        return f"{year}-{month}-{int(day) % 28 + 1:02d}"
    i = len(value) // 2 if name == "surname" else len(value) - 1
    pool = "0123456789" if value[i].isdigit() else "KXWHMV"
    return value[:i] + next(c for c in pool if c not in (value[i], "0", "1")) + value[i + 1:]


FIELDS = ("surname", "date_of_birth", "document_number")


@pytest.fixture(scope="module")
def passport(printed_reader):
    from docauth.ocr.mrz import parse_mrz
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td3_open", TESTS.nth(71))
    zone = parse_mrz(doc.mrz)
    assert zone.valid
    return doc, zone.fields, printed_reader(doc.image, mrz_fields=zone.fields)


def test_the_zones_values_are_confirmed_on_a_generated_page_and_one_glyph_off_they_are_not(printed_reader, passport):
    doc, zone, read = passport
    assert all(line.frames is not None for line in read.lines)
    for name in FIELDS:
        assert find_aligned(name, zone[name], read.lines) is not None, (name, zone[name])
        off = _one_glyph_off(name, zone[name])
        assert find_aligned(name, off, read.lines) is None, (name, off)
        if name == "surname":
            continue  # the text comparison forgives a zone's name one slip (no check digit covers names)
        # The whole reader, told the changed value: the page does not print it.
        changed = printed_reader(doc.image, mrz_fields={**zone, name: off})
        assert name not in changed.fields or changed.fields[name].how != "mrz", changed.export()


def test_another_persons_record_one_glyph_off_is_not_confirmed_on_a_generated_card(printed_reader):
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td1_front", TESTS.nth(62))
    own = {name: doc.fields[name] for name in ("surname", "given_names", "date_of_birth", "document_number")}
    confirmed = printed_reader(doc.image, record=own)
    assert {f.how for n, f in confirmed.fields.items() if n in own} == {"record"}
    for name in own:
        assert find_aligned(name, own[name], confirmed.lines, record=True) is not None, (name, own[name])
    for name in FIELDS:
        other = {**own, name: _one_glyph_off(name, own[name])}
        read = printed_reader(doc.image, record=other)
        assert not any(f.how == "record" for f in read.fields.values()), (name, other[name], read.export())
        assert find_aligned(name, other[name], read.lines, record=True) is None, (name, other[name])
    # A name one letter short of the printed one is no piece of it (the text comparison takes it as one).
    assert find_aligned("surname", own["surname"][1:], confirmed.lines, record=True) is None
