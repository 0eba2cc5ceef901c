"""A wrong "front" from the side model: a passport page searched as a front still gives the zone it gives
without a side (real glyph model, generated pages)."""

from __future__ import annotations

import pytest

from docauth.synth import generate_sample
from docauth.synth.seeds import TESTS

SEED = TESTS.nth(71)


@pytest.fixture(scope="module")
def mrz_reader():
    from docauth.ocr.reader import DocumentReader

    return DocumentReader(DocumentReader.load().mrz_reader)


@pytest.mark.parametrize("index", [61])
def test_a_passport_page_taken_for_a_front_gives_the_zone_it_gives_without_a_side(mrz_reader, index):
    """The side model answers "front" for many passport data pages, and a front is searched less for a zone.
    On this generated page the front's search reads the zone's block as other text and the outline found is
    no card's; searched there alone, the zone is misread. The page is then searched as a photo without a side."""
    sample = generate_sample(SEED, index, category="td3_open")
    _, unhinted = mrz_reader.find_zone(sample.image)
    assert unhinted is not None and unhinted.result.lines == sample.label["mrz"]
    _, read = mrz_reader.find_zone(sample.image, timings := {}, side="front")
    assert read is not None and read.result.valid and read.result.lines == sample.label["mrz"]
    assert "mrz_unhinted_ms" in timings


def test_a_card_front_whose_search_sees_no_zone_is_not_searched_again(mrz_reader):
    """A card front without a zone (generated, its outline a card's) pays for the front's search alone."""
    for index in range(12):
        sample = generate_sample(SEED, index, category="td1_front")
        if sample.label.get("mrz"):
            continue
        located, read = mrz_reader.find_zone(sample.image, timings := {}, side="front")
        if read is None and "mrz_on_document_ms" not in timings:
            break
    else:
        pytest.fail("no generated front without a zone that the front's search passes over")
    assert "mrz_unhinted_ms" not in timings
