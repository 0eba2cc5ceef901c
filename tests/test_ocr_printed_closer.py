"""The closer look for a zone value the first read missed (docauth.ocr.printed.closer): lines whose glyphs stand too
close for a repeated glyph read again widened, and small print detected again larger. Generated pages only."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from docauth.ocr.printed.closer import closer_side, nearness, widening


@pytest.fixture(scope="module")
def printed_reader():
    from docauth.ocr.printed import PrintedReader

    return PrintedReader.load(backend="onnxruntime")


def _squeezed_line(text: str, squeeze: float, scale: float = 1.0) -> np.ndarray:
    """A printed line in a face narrower than its height asks (``squeeze`` of its natural width)."""
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    crop = np.full((h + 16, w + 16, 3), 255, np.uint8)
    cv2.putText(crop, text, (8, h + 6), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), 2, cv2.LINE_AA)
    return cv2.resize(crop, (round(crop.shape[1] * squeeze), crop.shape[0]), interpolation=cv2.INTER_AREA)


def _page(lines: list[tuple[np.ndarray, int, int]], shape=(630, 1000)) -> np.ndarray:
    page = np.full((*shape, 3), 250, np.uint8)
    for crop, x, y in lines:
        page[y:y + crop.shape[0], x:x + crop.shape[1]] = crop
    return page


def test_small_print_is_detected_again_larger_and_large_print_is_not():
    assert closer_side([12.0] * 6, (631, 1000), 640) == 640 * 2  # 7.7 px at detection: at most twice the side
    assert closer_side([19.0] * 6, (631, 1000), 640) is not None
    assert closer_side([30.0] * 6, (631, 1000), 640) is None
    assert closer_side([], (631, 1000), 640) is None


def test_a_reads_nearness_ranks_the_line_that_lost_a_glyph_first():
    assert nearness("A222222", "document_number", "A2222222") > nearness("1000146819", "document_number", "A2222222")
    assert nearness("09.05.1976", "date_of_birth", "1976-05-09") == 1.0
    assert nearness("", "surname", "ROSSI") == 0.0


# Numbers and squeezes where the line's own frames hold too few blanks for even the aligner to spell the repeats.
@pytest.mark.parametrize("number,squeeze", [("AA0000000", 0.6), ("P7733388", 0.55)])
def test_a_number_of_repeated_digits_packed_tight_is_read_widened_for_its_zone_value(printed_reader, number, squeeze):
    tight = _squeezed_line(number, squeeze)
    first = printed_reader.recognizer([tight])[0]
    assert first.text != number and widening(first.frames) > 1.0  # CTC merged two of the repeats
    page = _page([(_squeezed_line("Passport No.", 0.9, 0.7), 600, 60), (tight, 600, 100),
                  (_squeezed_line("ROSSI", 1.0), 100, 200), (_squeezed_line("12.03.1971", 1.0), 100, 300)])
    zone = {"surname": "ROSSI", "date_of_birth": "1971-03-12", "document_number": number}
    read = printed_reader(page, mrz_fields=zone)
    assert read.fields["document_number"].how == "mrz" and read.fields["document_number"].value == number
    assert not any(number in line.text for line in read.lines)  # the page's own read lost the glyph
    # Another person's number is not read into the widened line.
    other = printed_reader(page, mrz_fields={**zone, "document_number": number[:-1] + "5"})
    assert other.fields.get("document_number") is None or other.fields["document_number"].how != "mrz"


def _shrunk(image: np.ndarray, long_side: int) -> np.ndarray:
    """The page as a capture that held it ``long_side`` pixels long shows it, brought back to its size."""
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def test_a_generated_passport_page_captured_small_gives_a_zone_value_only_on_a_closer_look(printed_reader,
                                                                                           monkeypatch):
    from docauth.ocr.mrz import parse_mrz
    from docauth.ocr.printed.reader import PrintedReader
    from docauth.synth.documents import render_document
    from docauth.synth.seeds import TESTS

    doc = render_document("td3_open", TESTS.nth(302))
    zone = parse_mrz(doc.mrz)
    assert zone.valid
    page = _shrunk(doc.image, 300)  # the booklet 300 px long in the photo: its print about 5 px tall
    mrz_top = doc.mrz_box[1] / page.shape[0]
    read = printed_reader(page, mrz_top=mrz_top, mrz_fields=zone.fields)
    assert read.fields["surname"].how == "mrz" and read.fields["surname"].value == zone.fields["surname"]
    monkeypatch.setattr(PrintedReader, "_found_closer", lambda self, *args: {})
    first = printed_reader(page, mrz_top=mrz_top, mrz_fields=zone.fields)
    assert "surname" not in first.fields or first.fields["surname"].how != "mrz"


def test_a_card_back_by_its_zone_that_prints_none_of_its_values_is_not_looked_at_closer(printed_reader, monkeypatch):
    from docauth.ocr.printed.reader import PrintedReader

    looked = []
    real = PrintedReader._found_closer
    monkeypatch.setattr(PrintedReader, "_found_closer",
                        lambda self, page, boxes, lines, unfound, *args: looked.append(set(unfound)) or real(
                            self, page, boxes, lines, unfound, *args))
    zone = {"surname": "ROSSI", "date_of_birth": "1971-03-12", "document_number": "AA0000000"}
    back = _page([(_squeezed_line("Height 170 cm", 1.0), 100, 100), (_squeezed_line("Authority BERN", 1.0), 100, 200)])
    printed_reader(back, mrz_fields=zone, zone_side=True)
    assert looked == []  # the zone's side showing none of its values: a back
    printed_reader(back, mrz_fields=zone)
    assert looked == [set(zone)]  # a page the side model and the shape leave open is looked at closer
    # A card printing its zone on its front shows its values: the one the read missed is looked for closer.
    front = _page([(_squeezed_line("ROSSI", 1.0), 100, 100), (_squeezed_line("12.03.1971", 1.0), 100, 200),
                   (_squeezed_line("AA0000000", 0.6), 600, 100)])
    read = printed_reader(front, mrz_fields=zone, zone_side=True)
    assert looked[-1] == {"document_number"} and read.fields["document_number"].value == "AA0000000"
