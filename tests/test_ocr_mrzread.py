"""Finding the MRZ at any angle, cutting its line strips, decoding the recogniser's frames (its training:
tests/test_training_line_model.py)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from docauth.ocr.mrz.line_model import LABELS, _greedy, decode_line
from docauth.ocr.mrz.direction import text_angle
from docauth.ocr.mrz.finder import LINE_H, LINE_W, _line_fit, _percentile, cut_strip, find_mrz_levelled, rotate_degrees
from docauth.synth import generate_sample
from docauth.synth.seeds import TESTS

SEED = TESTS.nth(41)


def _reading_angle(label) -> float:
    quad = np.array(label["mrz_corners"] or label["corners"], float)
    v = quad[1] - quad[0]
    return float(np.degrees(np.arctan2(v[1], v[0])))


def _apart(a, b, period):
    return abs((a - b + period / 2) % period - period / 2)


@pytest.mark.parametrize("index", range(8))
def test_text_direction_of_generated_captures(index):
    """On the documents that carry an MRZ, the one place the reader relies on it."""
    sample = generate_sample(SEED, index, category=("td1_back", "td3_open")[index % 2])
    angle = text_angle(cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY))
    assert angle is not None and -90 <= angle < 90
    assert _apart(angle, _reading_angle(sample.label), 180) < 2.0, (angle, sample.label["capture"])


@pytest.mark.parametrize("turn", [0, 35, 90, 150, 200, 300])
def test_mrz_found_at_any_angle_and_inside_the_true_zone(turn):
    sample = generate_sample(SEED, 20, category="td1_back")
    gray = cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY)
    turned, m = rotate_degrees(gray, turn)
    found = find_mrz_levelled(turned)
    assert found and len(found[0].block.lines) == 3
    quad = cv2.transform(np.array(sample.label["mrz_corners"], np.float32)[None], m)[0]
    assert cv2.pointPolygonTest(quad.reshape(-1, 1, 2), found[0].centre_in_input(), False) >= 0


def test_nothing_mrz_like_in_a_blank_or_noise_image():
    rng = np.random.default_rng(0)
    assert find_mrz_levelled(np.full((400, 600), 210, np.uint8)) == []
    assert find_mrz_levelled(rng.integers(0, 255, (400, 600), dtype=np.uint8)) == []


def test_strip_has_the_model_shape_and_ink_is_bright():
    sample = generate_sample(SEED, 22, category="td1_back")
    found = find_mrz_levelled(cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY))[0]
    strip = cut_strip(found.gray, found.block.lines[0], found.block.scale)
    assert strip.shape == (LINE_H, LINE_W) and strip.dtype == np.float32
    assert 0.0 <= strip.min() and strip.max() <= 1.0
    centre = strip[LINE_H // 3: 2 * LINE_H // 3]
    assert centre.mean() > strip[:3].mean()  # glyphs sit in the middle rows


def _frames(text: str, per_char: int = 3) -> np.ndarray:
    """Frames a perfect recogniser would give: each character then a blank."""
    rows = []
    for ch in text:
        rows += [LABELS.index(ch)] * (per_char - 1) + [0]
    p = np.full((len(rows), len(LABELS)), 1e-4)
    p[np.arange(len(rows)), rows] = 1.0
    return p / p.sum(1, keepdims=True)


def test_decoding_repeated_fillers_and_confidence():
    read = decode_line(_frames("P<UTO<<<<"), 9)
    assert read.text == "P<UTO<<<<"
    assert read.confidence > 0.99
    assert [a[0][0] for a in read.alternatives] == list("P<UTO<<<<")


def test_decoding_forces_the_line_length():
    p = _frames("L898902C3")
    # a weak glyph: the '9' at frames 12-13 is almost blank
    p[12:14] = 0.0
    p[12:14, 0] = 0.55
    p[12:14, LABELS.index("9")] = 0.45
    assert decode_line(p).text == "L89802C3"  # free decoding loses it
    assert decode_line(p, 9).text == "L898902C3"  # the format's length brings it back


def _greedy_frame_by_frame(logp, blank_bias):
    """CTC best path read one frame at a time: the definition the vectorised decoder must keep."""
    scores = logp.copy()
    scores[:, 0] += blank_bias
    out, prev = [], 0
    for t, k in enumerate(scores.argmax(1)):
        if k != 0 and k == prev:
            out[-1] = (k, out[-1][1], t)
        elif k != 0:
            out.append((int(k), t, t))
        prev = k
    return out


def test_best_path_decoding_matches_the_frame_by_frame_definition():
    rng = np.random.default_rng(7)
    for k in range(300):
        logits = rng.normal(0.0, 3.0, (192, len(LABELS)))
        if k % 3 == 0:
            logits[rng.integers(0, 192, 30)] = 0.0  # exact ties: they go to the blank
        logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
        bias = 0.0 if k % 2 else float(rng.uniform(-3, 3))
        assert _greedy(logp, bias) == _greedy_frame_by_frame(logp, bias)


def test_line_geometry_helpers_match_numpy():
    rng = np.random.default_rng(3)
    for n in range(1, 80):
        heights = rng.integers(5, 40, n).astype(float)
        assert _percentile(heights, 80) == float(np.percentile(heights, 80))
        if n >= 2:
            x, y = rng.uniform(0, 900, n), rng.normal(300, 4, n)
            assert np.allclose(_line_fit(x, y), np.polyfit(x, y, 1), rtol=1e-9, atol=1e-9)


def _motion_blurred_td3(tilt: float, blur_px: int) -> tuple[np.ndarray, np.ndarray]:
    """A TD3 zone on a page, smeared sideways (a hand moving), turned by ``tilt`` degrees: (image, zone centre)."""
    from docauth.training.mrz_render import random_mrz, render_block

    rng = np.random.default_rng(SEED)
    block = render_block(rng, random_mrz(rng, "TD3"), pitch_px=15)
    page = np.full((block.shape[0] + 400, block.shape[1] + 300), int(np.median(block)), np.uint8)
    page[200:200 + block.shape[0], 150:150 + block.shape[1]] = block
    smeared = cv2.filter2D(page, -1, np.full((1, blur_px), 1.0 / blur_px))
    turned, m = rotate_degrees(smeared, -tilt)
    centre = m @ np.array([150 + block.shape[1] / 2, 200 + block.shape[0] / 2, 1.0])
    return turned, centre


def test_welded_text_direction_under_motion_blur():
    """Glyphs smeared into runs: the runs' own axes still give the direction of the lines."""
    from docauth.ocr.mrz.direction import welded_text_angle

    sharp, _centre = _motion_blurred_td3(tilt=3.5, blur_px=1)
    truth = text_angle(sharp)  # the rendered zone leans a little of its own
    gray, _centre = _motion_blurred_td3(tilt=3.5, blur_px=13)
    assert text_angle(gray) is None  # too few single glyphs left
    angle = welded_text_angle(gray)
    assert angle is not None and _apart(angle, truth, 180) < 0.5, (angle, truth)


def test_a_zone_welded_into_runs_is_still_found():
    """A line whose glyphs ran into a few blobs counts by its length, not its number of blobs."""
    from docauth.ocr.mrz.direction import welded_text_angle
    from docauth.ocr.mrz.finder import find_mrz_at

    gray, centre = _motion_blurred_td3(tilt=3.5, blur_px=7)
    assert find_mrz_levelled(gray) == []  # by single glyphs: not found
    found = find_mrz_at(gray, welded_text_angle(gray))
    assert found and len(found[0].block.lines) == 2
    assert np.hypot(*(np.array(found[0].centre_in_input()) - centre)) < 20


def test_components_labelled_as_the_default_algorithm_labels_them():
    """The finder labels glyphs with the block-based algorithm for speed: the same count, labels and stats."""
    from docauth.ocr.mrz.glyphs import binarise, label_components

    gray = cv2.cvtColor(generate_sample(SEED, 22, category="td1_back").image, cv2.COLOR_RGB2GRAY)
    binary = binarise(gray)
    n, labels, stats, _centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    ours = label_components(binary)
    assert ours[0] == n > 100
    assert np.array_equal(ours[1], labels) and np.array_equal(ours[2], stats)


def test_a_zone_search_finds_what_the_functions_do_and_makes_each_direction_once():
    """One image searched again (the reader's second pass, another direction) is not turned, reduced or
    binarised again, and gives the very blocks it gave before."""
    from docauth.ocr.mrz.finder import ZoneSearch, find_mrz_at

    sample = generate_sample(SEED, 20, category="td1_back")
    gray, _m = rotate_degrees(cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY), 35)
    search = ZoneSearch(gray)
    found = search.levelled()
    assert [f.block.box for f in found] == [f.block.box for f in find_mrz_levelled(gray)]
    assert found and len(found[0].block.lines) == 3
    angle = found[0].angle
    assert search.at(angle) is found  # asked again: the same blocks, not found again
    levelled_search = search._at[angle][2]
    binary = levelled_search._labelled.binary
    thin = search.at(angle, open_thin=True)
    assert levelled_search._labelled.binary is binary and len(search._at) == 1  # hair-lines cut on the same binarisation
    assert [f.block.box for f in thin] == [f.block.box for f in find_mrz_at(gray, angle, open_thin=True)]
    assert search.at(angle, open_thin=True) is thin


def test_a_scan_no_larger_than_its_glyph_map_is_labelled_once_for_direction_and_search():
    """A scan searched at the glyph map's size (small ones are enlarged to it) is that map: the unturned search
    takes its binarisation and components, and finds the very blocks a search of its own finds."""
    from docauth.ocr.mrz.direction import GLYPH_MAP_SIDE
    from docauth.ocr.mrz.finder import find_mrz_at
    from docauth.ocr.mrz.reader import ZoneReading

    gray = cv2.cvtColor(generate_sample(SEED, 20, category="td1_back").image, cv2.COLOR_RGB2GRAY)
    angle = text_angle(gray)
    gray, _m = rotate_degrees(gray, angle)  # levelled: the zone is found unturned
    scale = GLYPH_MAP_SIDE / max(gray.shape)
    small = cv2.resize(gray, (round(gray.shape[1] * scale), round(gray.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    reading = ZoneReading(None, small)  # the reader's model is only asked to read blocks
    found = reading.search.at(0.0)
    assert reading.search._at[0.0][2]._labelled is reading.glyphs
    assert found and [f.block.box for f in found] == [f.block.box for f in find_mrz_at(small, 0.0)]
    larger = ZoneReading(None, cv2.resize(small, None, fx=1.2, fy=1.2))  # its glyph map is reduced: not shared
    larger.search.at(0.0)
    assert larger.search._at[0.0][2]._labelled is not larger.glyphs


def test_black_ink_is_the_brightest_channel_plus_colourfulness_at_most_white():
    """black_ink by OpenCV's per-channel arithmetic: 2 x brightest - darkest channel, clipped to 0..255, on
    every kind of pixel (a photo's, and random colours that saturate)."""
    from docauth.ocr.mrz.reader import black_ink

    rng = np.random.default_rng(4)
    for rgb in (generate_sample(SEED, 3, category="td3_open").image, rng.integers(0, 256, (301, 207, 3), dtype=np.uint8)):
        top, low = rgb.max(axis=2).astype(int), rgb.min(axis=2).astype(int)
        expected = np.clip(2 * top - low, 0, 255)
        ink = black_ink(rgb)
        assert ink.dtype == np.uint8 and ink.shape == rgb.shape[:2] and np.array_equal(ink, expected)
        assert (ink == 255).any() and (ink < 255).any()
