"""The realistic supplementary documents (docauth.training.classifiers.realistic) and their place in training data."""

from __future__ import annotations

import numpy as np
import pytest

from docauth.training.classifiers import realistic
from docauth.synth import seeds

SEED = seeds.TESTS.nth(12)


@pytest.fixture(scope="module")
def samples():
    return [realistic.realistic_sample(SEED, i) for i in range(24)]


def test_samples_are_deterministic_and_cover_every_kind_and_capture(samples):
    image, label = realistic.realistic_sample(SEED, 3)
    assert np.array_equal(image, samples[3][0]) and label == samples[3][1]
    kinds = {lab["category"].removeprefix("realistic_") for _, lab in samples}
    assert kinds >= {"td3_page", "td3_spread", "td1_back", "td1_front"}
    assert {lab["capture"] for _, lab in samples} == set(realistic.CAPTURES)
    for image, label in samples:
        kind = label["category"].removeprefix("realistic_")
        assert image.ndim == 3 and image.dtype == np.uint8 and min(image.shape[:2]) >= 64
        assert label["is_document"] and label["side"] == realistic.SIDES[kind]


def test_a_spread_shows_two_pages_across_the_fold(samples):
    spreads = [image for image, label in samples
               if label["category"] == "realistic_td3_spread" and label["capture"] != "photo"]
    assert spreads
    for image in spreads:  # the booklet opened with its fold along the data page's long edge
        assert image.shape[0] > image.shape[1]


def test_real_look_lightens_the_tint_and_keeps_the_print_dark():
    page = np.zeros((100, 160, 3), np.uint8)
    page[:] = (200, 170, 210)  # a pastel tint ...
    page[40:50, 20:140] = 25  # ... under a line of print
    page[80:, :] = (190, 200, 185)  # the MRZ band, tinted
    page[88:94, 20:140] = 20  # and its characters
    rng = np.random.default_rng(0)
    out = realistic.real_look(page, rng, mrz_top=0.8)
    assert (255 - out[10, 10].astype(int)).sum() < (255 - page[10, 10].astype(int)).sum()
    assert out[45, 60].max() < 60 and out[90, 60].max() < 60  # print stays print
    assert out[84, 60].min() > out[10, 10].min() - 5 or out[84, 60].min() >= 230  # the band is at least as white


def test_secondary_portrait_darkens_a_corner_of_a_card_back():
    page = np.full((300, 480, 3), 235, np.uint8)
    face = np.full((120, 90, 3), 60, np.uint8)
    out = realistic.secondary_portrait(page, np.random.default_rng(1), face, card=True, mrz_top=0.62)
    changed = np.argwhere((out != page).any(-1))
    assert len(changed) and changed[:, 0].max() < 0.62 * 300  # above the zone


def test_realistic_subset_is_registered_for_training_and_validation(tmp_path):
    from docauth.training.classifiers import data
    from docauth.training.classifiers.recipe import SUBSET_SEED_OFFSET, DataSpec

    assert "realistic" in data.SUBSETS and "realistic" in data.MODULE_SUBSETS
    got = data.synthetic_set(SEED, 4, cache_dir=tmp_path, subset="realistic", height=32, width=32)
    assert len(got) == 4 and got.is_document.all() and (got.side >= 0).all()
    assert all(k.startswith("realistic_") for k in got.kind)
    parts = DataSpec(train_seed=100, train_count=10, val_seed=200, val_count=5, realistic_count=8).parts()
    assert {"subset": "realistic", "seed": 100 + SUBSET_SEED_OFFSET["realistic"], "count": 8,
            "generator_version": None} in parts
    assert seeds.TRAIN.default + SUBSET_SEED_OFFSET["realistic"] in seeds.TRAIN


@pytest.mark.parametrize("which,kind,lines", [("data_page", "TD3", 2), ("card_back", "TD1", 3)])
def test_fresh_layouts_print_a_valid_zone_in_its_place(which, kind, lines):
    from docauth.training.classifiers import layouts
    from docauth.ocr.mrz import parse_mrz
    from docauth.synth.identity import random_identity

    for i in range(3):
        rng = np.random.default_rng([SEED, i])
        identity = random_identity(rng)
        args = (rng, identity, np.full((360, 280, 3), 120, np.uint8)) if which == "data_page" else (rng, identity)
        page, zone, top = getattr(layouts, which)(*args)
        assert page.dtype == np.uint8 and page.shape[2] == 3 and len(zone) == lines
        parsed = parse_mrz(zone)
        assert parsed.type == kind and parsed.valid, zone
        assert 0.45 < top < 0.9
        # the zone's band is printed in dark OCR-B below ``top``; the page above it holds the rest
        band = page[int(page.shape[0] * top):]
        assert band.min() < 60


def test_a_fresh_card_front_shows_the_portrait_and_no_zone():
    from docauth.training.classifiers import layouts
    from docauth.synth.identity import random_identity

    rng = np.random.default_rng([SEED, 7])
    face = np.zeros((360, 280, 3), np.uint8)
    face[..., 1] = 255  # a pure green no security print uses
    card = layouts.card_front(rng, random_identity(rng), face)
    assert card.shape == (layouts.TD1_CARD[1], layouts.TD1_CARD[0], 3)
    green = (card[..., 1] > 240) & (card[..., 0] < 20) & (card[..., 2] < 20)
    assert green.mean() > 0.1  # a card-front portrait fills a good part of the card
    # no zone: the bottom band holds no dark rows of OCR-B across the card
    bottom = card[int(card.shape[0] * 0.8):].mean(axis=2)
    assert ((bottom < 60).mean(axis=1) < 0.2).all()
