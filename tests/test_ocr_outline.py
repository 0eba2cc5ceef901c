"""The document outline model: its mask-to-quad geometry, and the shipped model on fresh captures."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from docauth.ocr.outline import MASK_SIDE, mask_to_quad
from docauth.synth import generate_sample
from docauth.synth.seeds import TESTS

SEED = TESTS.nth(43)


def _mask(quad_in_mask, soft=False):
    mask = np.zeros((MASK_SIDE, MASK_SIDE), np.float32)
    cv2.fillConvexPoly(mask, np.int32(np.round(quad_in_mask)), 1.0)
    return cv2.GaussianBlur(mask, (5, 5), 1.0) if soft else mask


def test_quad_from_a_tilted_mask_in_image_coordinates():
    quad = np.array([[20, 14], [80, 22], [74, 70], [12, 60]], float)  # image order TL, TR, BR, BL
    image_shape = (900, 1600)  # the mask is the image squashed to a square
    got, share = mask_to_quad(_mask(quad, soft=True), image_shape)
    expected = quad * [1600 / MASK_SIDE, 900 / MASK_SIDE]
    assert np.abs(got - expected).max() < 0.02 * 1600, got
    assert 0.2 < share < 0.6


def test_largest_region_wins_and_specks_are_ignored():
    mask = _mask(np.array([[10, 10], [60, 10], [60, 50], [10, 50]], float))
    mask[80:83, 80:83] = 1.0  # a speck elsewhere
    got, _share = mask_to_quad(mask, (MASK_SIDE, MASK_SIDE))
    assert got[:, 0].max() < 65 and got[:, 1].max() < 55


def test_empty_or_tiny_mask_is_no_document():
    assert mask_to_quad(np.zeros((MASK_SIDE, MASK_SIDE), np.float32), (800, 600)) is None
    tiny = np.zeros((MASK_SIDE, MASK_SIDE), np.float32)
    tiny[40:44, 40:44] = 1.0
    assert mask_to_quad(tiny, (800, 600)) is None


@pytest.fixture(scope="module")
def outline_model():
    from docauth.runtime import load_model
    from docauth.runtime.model import model_paths

    if not model_paths("outline").keras.is_file():
        pytest.skip("no shipped outline model")
    return load_model("outline", backend="onnxruntime" if model_paths("outline").onnx.is_file() else "keras_tf",
                      mode="realtime")


def test_shipped_model_locates_fresh_captures(outline_model):
    from docauth.ocr.locate import locate_document

    errors = []
    for index in range(24):
        sample = generate_sample(SEED, index, category=("td1_front", "td1_back", "td3_open")[index % 3])
        located = locate_document(sample.image, outline_model)
        truth = np.array(sample.label["corners"], float)
        # the label gives the document's own corner order; compare as sets of points
        got = np.asarray(located.corners, float)
        err = max(np.linalg.norm(got - p, axis=1).min() for p in truth) / max(sample.image.shape[:2])
        errors.append(err if located.found else 1.0)
    errors = np.array(errors)
    assert np.mean(errors < 0.03) >= 0.9, np.round(errors, 3)


def test_shipped_model_marks_nothing_on_non_documents(outline_model):
    from docauth.ocr.outline import preprocess

    empty = 0
    for index in range(8):
        sample = generate_sample(SEED, 100 + index, category=("selfie", "scenery", "letter", "screenshot")[index % 4])
        mask = outline_model.predict(preprocess(sample.image)[None])[0, ..., 0]
        empty += mask_to_quad(mask, sample.image.shape) is None
    assert empty >= 6
