"""bench/recapture.py: every transform is deterministic by seed and keeps the whole document in the frame, and
the comparison with the untransformed line counts the row-measures lost and gained."""

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import recapture  # noqa: E402  (bench/recapture.py: numpy and OpenCV at import, docauth inside main)

from docauth.training.real import Case  # noqa: E402


def page(height=300, width=420) -> np.ndarray:
    """A made-up dark page with a bright border, so its extent can be found again after a transform."""
    image = np.full((height, width, 3), 40, np.uint8)
    image[:6], image[-6:], image[:, :6], image[:, -6:] = 250, 250, 250, 250
    return image


def test_each_transform_is_the_same_for_the_same_seed_and_keeps_the_document():
    source = page()
    case = Case("made-up", "page.png", lambda: source, "open")
    for name in recapture.TRANSFORMS:
        first = recapture.recaptured(case, name, 7).load()
        again = recapture.recaptured(case, name, 7).load()
        assert np.array_equal(first, again), name
        assert first.dtype == np.uint8 and first.ndim == 3, name
        # the page's dark body survives whole (at the frame's scale, where the frame shrinks): nothing of the
        # document is cut by the frame
        dark = (first.max(axis=2) < 60).sum()
        shrunk = min(1.0, first.shape[0] * first.shape[1] / (source.shape[0] * source.shape[1]))
        assert dark > 0.8 * shrunk * (source.max(axis=2) < 60).sum(), name
    assert recapture.recaptured(case, "rot90", 7).load().shape == (420, 300, 3)


def test_a_photo_leaves_background_on_every_side():
    source = np.zeros((300, 420, 3), np.uint8)
    source[..., 1] = 255  # a green page: no grey background is taken for it
    case = Case("made-up", "page.png", lambda: source, "open")
    for seed in range(11, 19):
        photo = recapture.recaptured(case, "photo_plain", seed).load().astype(int)
        green = (photo[..., 1] > 150) & (photo[..., 0] < 100) & (photo[..., 2] < 100)
        ys, xs = np.nonzero(green)
        assert ys.min() > 0 and xs.min() > 0 and ys.max() < photo.shape[0] - 1 and xs.max() < photo.shape[1] - 1


def test_compare_counts_row_measures_lost_and_gained():
    base = {"outcome": {"a": {"document": True, "mrz": True, "surname": False}, "b": {"document": True, "mrz": None}}}
    other = {"outcome": {"a": {"document": True, "mrz": False, "surname": True}, "b": {"document": False, "mrz": None}}}
    lost, gained = recapture.compare(base, other)
    assert lost == ["a:mrz", "b:document"] and gained == ["a:surname"]


def test_lower_resolutions_shrink_the_whole_frame_and_a_soft_jpeg_keeps_its_size():
    source = page()
    case = Case("made-up", "page.png", lambda: source, "open")
    for name, shape in (("scale0.7", (210, 294, 3)), ("scale0.5", (150, 210, 3)), ("scale0.35", (105, 147, 3))):
        assert recapture.recaptured(case, name, 7).load().shape == shape, name
    soft = recapture.recaptured(case, "jpeg50_blur", 7).load()
    assert soft.shape == source.shape
    # the border's edge is softened: its step from bright to dark spreads over more than one pixel
    row = soft[150, :12, 0].astype(int)
    assert 60 < row[5] < 245 and 60 < row[6] < 245
