"""Document localisation, rectification and quarter-turn bookkeeping."""

from __future__ import annotations

import cv2
import numpy as np

from docauth.ocr.locate import (TD1_ASPECT, Located, choose_quad, document_corners, frame_corners, locate_document,
                                rotate_quarter, warp)


def _photo(quad, size=(900, 1200), seed=0, portrait=((40, 100), (250, 380))):
    rng = np.random.default_rng(seed)
    h, w = size
    background = (rng.normal(70, 12, (h, w, 3))).clip(0, 255).astype(np.uint8)
    card = np.full((540, 856, 3), (236, 230, 214), np.uint8)
    cv2.putText(card, "SURNAME", (300, 120), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (30, 30, 30), 2)
    cv2.rectangle(card, *portrait, (120, 100, 90), -1)
    src = np.float32([[0, 0], [855, 0], [855, 539], [0, 539]])
    m = cv2.getPerspectiveTransform(src, np.float32(quad))
    warped = cv2.warpPerspective(card, m, (w, h))
    mask = cv2.warpPerspective(np.full(card.shape[:2], 255, np.uint8), m, (w, h))
    out = background.copy()
    out[mask > 0] = warped[mask > 0]
    return out


def test_finds_a_card_in_perspective():
    quad = [[210, 150], [1010, 190], [960, 700], [170, 640]]
    located = locate_document(_photo(quad))
    assert located.found
    err = np.abs(located.corners - np.array(quad, float)).max()
    assert err < 0.015 * np.hypot(900, 1200), located.corners


def test_rectified_card_is_upright_with_the_card_aspect():
    quad = [[210, 150], [1010, 190], [960, 700], [170, 640]]
    img = _photo(quad)
    located = locate_document(img)
    flat, _m = warp(img, located.corners)
    h, w = flat.shape[:2]
    assert abs(w / h - TD1_ASPECT) < 0.01
    assert max(w, h) >= 1000  # small documents are upsampled for reading


def test_nothing_found_uses_the_whole_image():
    rng = np.random.default_rng(3)
    noise = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
    located = locate_document(noise)
    assert not located.found
    assert located.corners.tolist() == [[0, 0], [399, 0], [399, 299], [0, 299]]


def test_quarter_turns_round_trip():
    upright = np.arange(12, dtype=np.uint8).reshape(3, 4)
    for rotation in (0, 90, 180, 270):
        seen = np.rot90(upright, rotation // 90)  # the document as photographed
        assert np.array_equal(rotate_quarter(seen, rotation), upright)


def test_document_corners_follow_the_document_not_the_image():
    image_order = [[0, 0], [10, 0], [10, 5], [0, 5]]  # TL, TR, BR, BL of the image
    assert document_corners(image_order, 0)[0] == [0.0, 0.0]
    # turned 180 degrees, the document's top-left is the image's bottom-right
    assert document_corners(image_order, 180)[0] == [10.0, 5.0]
    # turned 90 degrees counter-clockwise, the document's top-left is the image's bottom-left
    assert document_corners(image_order, 90)[0] == [0.0, 5.0]


def _corner_error(found, truth):
    from docauth.ocr.quad import order_corners

    q, t = order_corners(np.asarray(found, float)), order_corners(np.asarray(truth, float))
    return float(np.linalg.norm(q - t, axis=1).max() / np.linalg.norm(t[2] - t[0]))


def test_straight_edges_find_cards_that_no_contour_outlines():
    # Generated card fronts where the best contour took in a strip of table or a photo's frame (8-29 % off):
    # the card's four straight borders, broken by glare or a finger, still place it within 5 %.
    from docauth.ocr.locate import contour_candidates
    from docauth.synth import generate_sample
    from docauth.synth.seeds import TESTS

    for index in (4, 11, 20):
        sample = generate_sample(TESTS.nth(31) + 13, index, "td1_front")
        by_contour = max((c for c in contour_candidates(sample.image)
                          if c.info["method"] != "lines" and c.info["edges"] == "canny"), key=lambda c: c.score)
        assert _corner_error(by_contour.corners, sample.label["corners"]) > 0.05
        assert _corner_error(locate_document(sample.image).corners, sample.label["corners"]) <= 0.05


def test_of_quads_on_edges_the_largest_about_as_well_supported_as_the_best_wins():
    from docauth.ocr.locate import Located, choose_quad

    def quad(score, support):
        return Located(np.zeros((4, 2)), True, score, {"edge_support": support})

    card = quad(0.30, (1.0, 1.0, 0.95, 1.0))
    card_and_shadow = quad(0.40, (0.9, 0.6, 0.5, 0.8))  # on edges too, but two sides only partly
    assert choose_quad([card_and_shadow, card]) is card
    slightly_less_supported_but_larger = quad(0.45, (1.0, 0.9, 0.95, 0.95))
    assert choose_quad([card, slightly_less_supported_but_larger]) is slightly_less_supported_but_larger
    header_band = quad(0.05, (0.2, 0.1, 0.3, 0.1))  # not on edges: only when nothing is
    assert choose_quad([header_band, card]) is card
    assert choose_quad([header_band, quad(0.5, (0.0, 0.1, 0.0, 0.0))]) is header_band


def test_a_pale_card_on_a_pale_table_is_found_not_its_portrait():
    # A card a few grey levels off its table: Canny thresholds taken from the median brightness (~250 upper)
    # lose its border and only the dark portrait stays a quad on edges; the edge maps whose thresholds come
    # from the image's own gradients keep the border.
    rng = np.random.default_rng(5)
    h, w = 900, 1200
    table = np.clip(rng.normal(196, 2, (h, w, 3)) + np.linspace(-6, 6, w)[None, :, None], 0, 255).astype(np.uint8)
    card = np.full((540, 856, 3), 206, np.uint8)
    cv2.rectangle(card, (600, 110), (790, 470), (60, 55, 50), -1)  # the portrait
    cv2.putText(card, "SURNAME", (60, 160), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (150, 150, 150), 2)
    quad = [[200, 180], [1020, 210], [990, 730], [180, 700]]
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [855, 0], [855, 539], [0, 539]]), np.float32(quad))
    warped = cv2.warpPerspective(card, m, (w, h))
    mask = cv2.warpPerspective(np.full(card.shape[:2], 255, np.uint8), m, (w, h))
    photo = table.copy()
    photo[mask > 0] = warped[mask > 0]
    located = locate_document(photo)
    assert located.found and _corner_error(located.corners, quad) <= 0.03, located.info


def test_of_quads_on_edges_those_shaped_like_a_document_are_preferred():
    from docauth.ocr.locate import Located, choose_quad

    def quad(width, height, score, support):
        corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
        return Located(corners, True, score, {"edge_support": support})

    card = quad(317, 200, 0.30, (0.7, 0.7, 0.7, 0.7))  # TD1: 1.59 to 1; its border faint
    portrait_strip = quad(100, 195, 0.05, (1.0, 1.0, 1.0, 1.0))  # 1.95 to 1: sharp, but no document's shape
    assert choose_quad([portrait_strip, card]) is card
    square_block = quad(200, 200, 0.4, (1.0, 1.0, 1.0, 1.0))
    assert choose_quad([square_block, portrait_strip]) is square_block  # no document shape: as before


def test_a_document_the_caller_expects_is_chosen_over_a_larger_one():
    # Two cards on one table: the search alone takes the larger; told where the document should be (as the
    # MRZ tells the reader), it stops at the first candidates agreeing with that and returns the expected one.
    large = [[60, 80], [700, 110], [680, 520], [40, 490]]
    small = [[760, 420], [1150, 430], [1145, 680], [755, 670]]
    photo = _photo(large, seed=4)
    second = _photo(small, seed=5)
    card_pixels = np.abs(second.astype(int) - _photo([[0, 0], [1, 0], [1, 1], [0, 1]], seed=5).astype(int)).sum(2) > 60
    photo[card_pixels] = second[card_pixels]

    def near(expected):
        return lambda corners: np.abs(np.asarray(corners) - np.array(expected, float)).max() < 25

    assert near(large)(locate_document(photo).corners)
    assert near(small)(locate_document(photo, accept=near(small)).corners)
    nowhere = locate_document(photo, accept=lambda corners: False)  # nothing agrees: the search's own choice
    assert near(large)(nowhere.corners)


def test_without_a_read_mrz_a_quad_shaped_like_an_open_booklet_is_not_preferred():
    from docauth.ocr.locate import DOCUMENT_ASPECTS, ONE_DOCUMENT_ASPECTS, Located, choose_quad

    def quad(width, height, score, support):
        corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], float)
        return Located(corners, True, score, {"edge_support": support})

    # A card front and a longer strip of table edge and card (2.84 to 1, a booklet spread's shape).
    card = quad(317, 200, 0.30, (0.7, 0.7, 0.7, 0.7))
    spread_shaped = quad(568, 200, 0.45, (0.75, 0.75, 0.75, 0.75))
    assert choose_quad([card, spread_shaped], DOCUMENT_ASPECTS) is spread_shaped
    assert choose_quad([card, spread_shaped], ONE_DOCUMENT_ASPECTS) is card


def test_a_card_running_out_of_the_photo_is_found_not_its_portrait():
    # The frame cuts the card's right side: no edge shows there. The portrait's box is the only rectangle
    # on edges all round, but it is no document's shape; the card, its fourth side on the frame, is.
    quad = [[300, 170], [1280, 170], [1280, 790], [300, 790]]
    located = locate_document(_photo(quad, portrait=((40, 150), (270, 400))))
    visible = np.array([[300, 170], [1199, 170], [1199, 790], [300, 790]], float)
    assert np.abs(located.corners - visible).max() < 0.015 * np.hypot(900, 1200), located.corners


def test_with_no_quad_on_edges_a_photo_in_a_cards_proportions_is_the_card():
    # An upload cropped to the card: what closes a quad inside (a shadow, a faint band of print) lies on
    # no edge, and is not taken for it.
    frame = frame_corners((540, 856))
    stray = Located(np.array([[300.0, 200], [900, 210], [890, 600], [310, 590]]), True, 0.25,
                    {"method": "canny", "edge_support": (0.3, 0.0, 0.1, 0.0), "frame_sides": (False,) * 4})
    chosen = choose_quad([stray], frame=frame)
    assert not chosen.found and chosen.info["method"] == "whole_image"
    assert np.array_equal(chosen.corners, frame)
    # One side along the frame and the other three on edges: a document running out of the photo.
    running_out = Located(np.array([[300.0, 100], [855, 100], [855, 500], [300, 500]]), True, 0.5,
                          {"method": "segment", "edge_support": (0.9, 0.0, 0.95, 0.9), "frame_sides": (False, True, False, False)})
    assert choose_quad([stray, running_out], frame=frame) is running_out
    # In other proportions the photo is a scene, and the best supported quad stands.
    assert choose_quad([stray], frame=frame_corners((900, 1600))) is stray


def _merged_one_by_one(angles, offsets, lengths, same_direction, same_offset):
    """Segments merged into lines one pair at a time: the rule _merged_lines applies many pairs at once."""
    import math

    lines = []
    for i in np.argsort(-lengths, kind="stable").tolist():
        angle, offset, length = float(angles[i]), float(offsets[i]), float(lengths[i])
        for line in lines:
            apart = abs((angle - line[0] + math.pi / 2) % math.pi - math.pi / 2)
            as_line = offset if abs(angle - line[0]) < math.pi / 2 else -offset
            if apart < same_direction and abs(as_line - line[1]) < same_offset:
                line[2] += length
                break
        else:
            lines.append([angle, offset, length])
    return lines


def test_segments_merge_into_the_lines_that_merging_them_one_by_one_gives():
    """Hough segments merged many pairs at once, in blocks of rows (600 segments: three blocks): the same lines,
    lengths summed in the same order, as one segment at a time; segments near angle 0 and near pi join with their
    offset's sign turned."""
    from docauth.ocr.straight_edges import _merged_lines

    rng = np.random.default_rng(3)
    base = rng.uniform(0, np.pi, 12)
    angles = (base[rng.integers(0, 12, 600)] + rng.normal(0, 0.03, 600)) % np.pi
    offsets = rng.choice([-1.0, 1.0], 600) * rng.uniform(0, 300, 600).round(-1) + rng.normal(0, 2, 600)
    offsets = np.where(angles > np.pi - 0.05, -offsets, offsets)
    lengths = rng.uniform(20, 200, 600).round()  # ties: the longest-first order is stable
    lines = _merged_lines(angles, offsets, lengths, np.radians(5), 12.0)
    assert lines == _merged_one_by_one(angles, offsets, lengths, np.radians(5), 12.0)
    assert 12 < len(lines) < 600


def test_an_edge_map_is_not_made_twice():
    """On a flat image both gradient percentiles fall to the floor threshold: one map, not two the same."""
    from docauth.ocr.locate import _edge_maps

    blur = np.full((200, 300), 128, np.uint8)
    cv2.rectangle(blur, (60, 50), (240, 150), 90, -1)
    names = [name for name, _map in _edge_maps(cv2.GaussianBlur(blur, (5, 5), 0))]
    assert names == ["canny", "canny_p90"]


def test_gradient_percentiles_are_numpys():
    """The edge maps' thresholds from a histogram of the whole-number gradient magnitudes: np.percentile's
    values to the last bit, on captures and on random whole numbers of any spread."""
    from docauth.ocr.locate import GRADIENT_PERCENTILES, _whole_number_percentiles
    from docauth.synth import generate_sample

    rng = np.random.default_rng(5)
    arrays = []
    for index in range(3):
        gray = cv2.cvtColor(generate_sample(11, index, category="td1_front").image, cv2.COLOR_RGB2GRAY)
        blur = cv2.GaussianBlur(gray, (5, 5), 0)
        arrays.append(np.abs(cv2.Sobel(blur, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(blur, cv2.CV_32F, 0, 1)))
    arrays += [rng.integers(0, high, size).astype(np.float32) for high, size in ((3, 7), (2040, 1001), (50, 12345))]
    arrays.append(np.float32([5]))
    for values in arrays:
        for percentiles in (GRADIENT_PERCENTILES, (0.0, 33.3, 50.0, 99.99, 100.0)):
            expected = [float(v) for v in np.percentile(values, percentiles)]
            assert _whole_number_percentiles(values, percentiles) == expected


def test_the_median_brightness_is_numpys():
    """The first edge map's thresholds come from the blurred image's median, from its histogram: np.median's."""
    from docauth.ocr.locate import _whole_number_percentiles

    rng = np.random.default_rng(8)
    for shape in ((480, 640), (3, 5), (1, 1), (2, 2)):
        blur = rng.integers(0, 256, shape).astype(np.uint8)
        assert _whole_number_percentiles(blur, (50.0,)) == [float(np.median(blur))]


def test_colour_distance_is_numpys_norm():
    """The colour segments' distance from the background colour: np.linalg.norm over the channels, to the bit."""
    from docauth.ocr.locate import _colour_distance

    rng = np.random.default_rng(6)
    lab = rng.uniform(0, 255, (97, 131, 3)).astype(np.float32)
    background = np.median(lab[:4].reshape(-1, 3), 0)
    assert np.array_equal(_colour_distance(lab, background), np.linalg.norm(lab - background, axis=2))


def test_the_contours_map_is_the_near_edge_map():
    """The contour search takes its quads on the 5x5 dilation of an edge map, as it did on a 3x3 one applied
    twice: the same pixels, out to the image's border (random edges, touching the frame)."""
    rng = np.random.default_rng(9)
    thin = ((rng.random((120, 170)) > 0.97) * 255).astype(np.uint8)
    thin[0, :] = thin[:, -1] = 255
    assert np.array_equal(cv2.dilate(thin, np.ones((5, 5), np.uint8)),
                          cv2.dilate(thin, np.ones((3, 3), np.uint8), iterations=2))


def test_a_quarter_turn_is_numpys():
    """Pages and gray images turned by OpenCV: numpy's rot90, pixel for pixel and in the same shape; other
    arrays by numpy itself."""
    from docauth.ocr.locate import rotate_quarter

    rng = np.random.default_rng(10)
    for shape in ((37, 52), (37, 52, 3), (37, 52, 4), (37, 52, 1)):
        image = rng.integers(0, 256, shape).astype(np.uint8)
        for rotation in (0, 90, 180, 270, 450, -90):
            turned = rotate_quarter(image, rotation)
            assert turned.shape == np.rot90(image, -(rotation // 90)).shape
            assert np.array_equal(turned, np.rot90(image, -(rotation // 90)))
            assert turned.flags.c_contiguous
    floats = rng.random((5, 7)).astype(np.float32)
    assert np.array_equal(rotate_quarter(floats, 90), np.rot90(floats, -1))
