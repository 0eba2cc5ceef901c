"""A card's front read beside its back on one sheet (docauth.ocr.other_side): real models on generated sheets."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from docauth.ocr.other_side import (OTHER_SIDE_GLANCE_SIDE, OTHER_SIDE_MIN_LINES, OTHER_SIDE_SLACK, flattened,
                                    lines_seen, places_beside)
from docauth.ocr.reader import ONE_CARD_ASPECT_SLACK, TD1_ASPECT
from docauth.synth import generate_sample, render_document
from docauth.synth.seeds import TESTS
from docauth.training.ocr_eval import field_equal

SEED = TESTS.nth(47)
OTHER_SEED = TESTS.nth(311)
FRONT_VALUES = ("surname", "date_of_birth", "document_number")
# Scans of both sides are often posted small: the back this wide, its front's values then 5-8 px tall.
SMALL_BACK_WIDTH = 320


@pytest.fixture(scope="module")
def reader():
    from docauth.ocr.reader import DocumentReader

    return DocumentReader.load()


def small_sheet(index: int, seed: int = SEED, back_width: int = SMALL_BACK_WIDTH) -> tuple[np.ndarray, dict]:
    """A generated both-sides sheet shrunk until its back is ``back_width`` wide, saved as a JPEG would be."""
    sample = generate_sample(seed, index, category="td1_both")
    back = np.asarray(sample.label["capture"]["back_corners"], float)
    scale = back_width / np.linalg.norm(back[1] - back[0])
    image = cv2.resize(sample.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    _, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(encoded, cv2.IMREAD_UNCHANGED), sample.label


def test_small_sheets_of_both_sides_give_the_fronts_values(reader):
    """The front beside a small back, at any place and turn the generator lays it: most of its values are read
    where the zone says they are printed, and none is read otherwise."""
    found = wrong = 0
    for index in range(16):
        image, label = small_sheet(index)
        result = reader(image)
        assert result.mrz is not None and result.mrz.valid, index
        for name in FRONT_VALUES:
            read = result.viz.get(name)
            found += field_equal(name, read, label["fields"][name])
            wrong += read is not None and not field_equal(name, read, label["fields"][name])
    assert wrong == 0
    assert found >= 0.7 * 16 * len(FRONT_VALUES), found


def test_the_place_beside_a_tilted_back_is_its_front_flattened():
    """A sheet turned in the photo: the place beside the back is taken along the card, and flattened it shows the
    front where a card beside the back lies (not a slice of the sheet cut along the photo's axes)."""
    back = render_document("td1_back", SEED + 1)
    front = render_document("td1_front", SEED + 2, identity=back.fields)
    height, width = back.image.shape[:2]
    front_image = np.ascontiguousarray(front.image[:height, :width])
    margin, gap = height // 2, height // 20
    sheet = np.full((2 * margin + 2 * height + gap, 2 * margin + width, 3), 250, np.uint8)
    sheet[margin:margin + height, margin:margin + width] = front_image
    sheet[margin + height + gap:margin + 2 * height + gap, margin:margin + width] = back.image
    turn = cv2.getRotationMatrix2D((sheet.shape[1] / 2, sheet.shape[0] / 2), 20, 1.0)
    photo = cv2.warpAffine(sheet, turn, sheet.shape[1::-1], borderValue=(250, 250, 250))
    y0 = margin + height + gap
    corners = cv2.transform(np.float32([[[margin, y0], [margin + width, y0], [margin + width, y0 + height],
                                          [margin, y0 + height]]]), turn)[0]
    looks = []
    for to_place, back_at in places_beside(corners, photo.shape):
        place = flattened(photo, to_place, (width, height), back_at)  # the front lies a gap further up
        inner = place[round(OTHER_SIDE_SLACK * height) - gap:][:height, round(OTHER_SIDE_SLACK * width):][:, :width]
        looks.append((back_at, float(np.mean(np.abs(inner.astype(int) - front_image.astype(int))))))
    # the back's other places lie mostly outside the photo; above it, the front, pixel for pixel but for resampling
    assert [at for at, _ in looks] == [(0, 1)] and looks[0][1] < 12, looks


def front_values_read(result, label) -> int:
    return sum(field_equal(name, result.viz.get(name), label["fields"][name]) for name in FRONT_VALUES)


def test_a_back_located_longer_than_a_card_still_has_its_front_read(reader):
    """A small sheet whose back was located with an outline longer than a card's (its top edge found off the
    card): the page is no card, so the back is the card around its zone, and the front beside it gives every value
    (read on that page alone, none)."""
    image, label = small_sheet(12, OTHER_SEED, back_width=300)
    result = reader(image)
    height, width = result.document.rectified.shape[:2]
    assert result.document.found and result.mrz is not None and result.mrz.type == "TD1"
    assert width / height > TD1_ASPECT + ONE_CARD_ASPECT_SLACK  # what is looked at: a page in no card's proportions
    assert front_values_read(result, label) == len(FRONT_VALUES), result.viz


def test_a_faint_front_the_glance_hardly_sees_is_looked_at_closer(reader):
    """A phone photo of a sheet whose front's print the glance finds too few lines of (soft focus): counted again
    closer, it is read, and its values are found."""
    sample = generate_sample(OTHER_SEED, 0, category="td1_both")
    result = reader(sample.image)
    rgb, corners = sample.image, np.asarray(result.document.corners, np.float32)
    card_size = result.document.rectified.shape[1::-1]
    glanced = [lines_seen(reader.printed, rgb, to_place, card_size, back_at, OTHER_SIDE_GLANCE_SIDE)
               for to_place, back_at in places_beside(corners, rgb.shape)]
    assert max(glanced) < OTHER_SIDE_MIN_LINES, glanced  # the case: no place looks like a front at the glance
    assert front_values_read(result, sample.label) >= 2, result.viz
