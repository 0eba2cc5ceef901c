"""One photo's zone search made once (docauth.ocr.photo_search, docauth.ocr.mrz.reader.ZoneReading): what is
asked for again is what a fresh search gives, and the copies handed out are the caller's to change (real glyph
model, generated pages)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from docauth.ocr import locate
from docauth.ocr.mrz.parse import at_glyph_pitch
from docauth.ocr.photo_search import PhotoSearch
from docauth.synth import generate_sample
from docauth.synth.seeds import TESTS

SEED = TESTS.nth(71)


@pytest.fixture(scope="module")
def mrz_reader():
    from docauth.ocr.reader import DocumentReader

    return DocumentReader.load(read_viz=False).mrz_reader


def _same(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and a.result == b.result
                                         and a.confidence == b.confidence and a.reading_angle == b.reading_angle
                                         and np.array_equal(a.zone_in_reading_order(), b.zone_in_reading_order()))


@pytest.mark.parametrize("index, scale", [(61, 1.0), (4, 0.5), (0, 0.5)])  # halved: enlarged to be searched
def test_a_zone_searched_again_expecting_one_reads_as_a_fresh_search_does(mrz_reader, index, scale):
    """A front's search (no zone expected) and then the search expecting one on the same image, sharing its glyph
    map, levelled images and block reads, give what a search of its own gives."""
    gray = cv2.cvtColor(generate_sample(SEED, index, category="td3_open").image, cv2.COLOR_RGB2GRAY)
    gray = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale != 1.0 else gray
    reading = mrz_reader.reading(gray)
    assert _same(reading.read(expected=False), mrz_reader.read(gray, expected=False))
    again = reading.read(expected=True)
    assert again is not None and _same(again, mrz_reader.read(gray, expected=True))


def test_a_photo_search_hands_out_copies_of_what_it_made_once(mrz_reader):
    """Reads and outlines asked for again are equal copies: judging one (its glyph pitch) or cutting an outline
    leaves the next as made."""
    image = generate_sample(SEED, 61, category="td3_open").image
    search = PhotoSearch(mrz_reader, None, image, again=True)
    first, second = search.read_photo(expected=True), search.read_photo(expected=True)
    assert first is not None and first is not second and first.result is not second.result
    assert _same(first, second)
    at_glyph_pitch(first.result, 1.0)  # as find_zone judges the zone it takes, in place
    assert first.result.glyph_pitch == 1.0 and search.read_photo(expected=True).result.glyph_pitch is None
    located = search.locate(shapes=None)
    fresh = locate.locate_document(image, shapes=None)
    assert np.array_equal(located.corners, fresh.corners) and located.info == fresh.info
    located.corners = located.corners[::-1]
    assert np.array_equal(search.locate(shapes=None).corners, fresh.corners)
    # another shape preference chooses among the same quads as a search of its own
    one = search.locate(shapes=locate.ONE_DOCUMENT_ASPECTS)
    assert np.array_equal(one.corners, locate.locate_document(image, shapes=locate.ONE_DOCUMENT_ASPECTS).corners)
    on_document = search.read_on_document(fresh.corners)
    assert _same(on_document, search.read_on_document(fresh.corners))
    assert _same(on_document, PhotoSearch(mrz_reader, None, image, again=False).read_on_document(fresh.corners))
