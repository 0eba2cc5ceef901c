"""Where the face stage looks for a document's portrait: the page's portrait places at two looks, the closer
look, and the search kept on the page when OCR's read is sure the page holds the portrait (real dlib)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from docauth.config import Settings
from docauth.pipeline import DecisionPolicy, Pipeline, Thresholds
from docauth.pipeline.faces import FaceStage
from docauth.pipeline.loaders import load_text_matcher
from docauth.pipeline.portrait import portrait_on_page, portrait_regions
from pipeline_support import ASTRONAUT_PERSON, FieldsReader, RuleClassifier, astronaut_portrait, document_of


def test_the_page_holds_the_portrait_only_under_a_valid_zone_printed_beside_it():
    page = (704, 1000)  # a passport's data page, upright
    for zone_type in ("TD3", "TD2", "MRVA", "MRVB"):
        assert portrait_on_page(page, located=True, zone_type=zone_type, zone_valid=True), zone_type
    assert not portrait_on_page(page, located=True, zone_type="TD1", zone_valid=True)  # a card's back
    assert not portrait_on_page(page, located=True, zone_type="TD3", zone_valid=False)
    assert not portrait_on_page(page, located=False, zone_type="TD3", zone_valid=True)  # the frame taken for a page
    assert not portrait_on_page(page, located=True, zone_type=None, zone_valid=True)
    # An open booklet's two pages: the portrait may be on either.
    assert not portrait_on_page((704, 2000), located=True, zone_type="TD3", zone_valid=True)


@pytest.fixture(scope="module")
def faces():
    return FaceStage.load()


def _small_portrait_page(size: int = 220) -> np.ndarray:
    """A card-shaped page whose portrait's face (~65 px) is below HOG's 80 px window at the first looks."""
    import skimage.data

    page = np.full((480, 800, 3), 200, np.uint8)
    page[60:60 + size, 40:40 + size] = cv2.resize(skimage.data.astronaut(), (size, size), interpolation=cv2.INTER_AREA)
    return page


def test_a_small_portrait_is_found_by_the_closer_look_alone_in_the_pages_pixels(faces):
    page = _small_portrait_page()
    regions = portrait_regions(page.shape)
    encoding, info = faces.encode(page, regions=regions)
    assert encoding is None and info["n_faces"] == 0, info
    encoding, info = faces.encode(page, regions=regions, closer=True)
    assert encoding is not None and info["look"] == list(FaceStage.REGION_CLOSER_LOOKS[0]), info
    top, right, bottom, left = info["box"]
    assert 40 <= left < right <= 260 and 60 <= top < bottom <= 280, info


def test_a_large_portrait_is_found_at_the_first_look(faces):
    page = cv2.resize(document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front"),
                      (1000, 631), interpolation=cv2.INTER_AREA)  # the reader's page size
    encoding, info = faces.encode(page, regions=portrait_regions(page.shape))
    assert encoding is not None and info["look"] == list(FaceStage.REGION_LOOKS[0]), info


class LocatedReader(FieldsReader):
    """The stand-in reader, its page located in the photo (as the real reader's ``DocumentView.found``)."""

    def __call__(self, image, *, side=None, on_rectified=None, expected=None):
        read = super().__call__(image, side=side, on_rectified=on_rectified, expected=expected)
        h, w = self.rectified_page.shape[:2]
        read.document = SimpleNamespace(found=True, rectified=self.rectified_page, rotation=0,
                                        corners=[[0, 0], [w, 0], [w, h], [0, h]])
        return read


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("data"))


@pytest.fixture(params=["realtime", "batch"])
def pipeline(request, settings, faces):
    reader = LocatedReader()
    reader.next_fields = {k: ASTRONAUT_PERSON[k] for k in ("surname", "given_names", "date_of_birth")}
    reader.mrz_type = "TD2"  # a zone printed on the portrait's page
    p = Pipeline(classifier=RuleClassifier(), reader=reader, faces=faces, text_matcher=load_text_matcher(settings),
                 store=None, policy=DecisionPolicy.from_settings(settings),
                 thresholds=Thresholds.from_settings(settings), today=lambda: dt.date(2026, 11, 22),
                 settings=settings)
    p.parallel_face = request.param == "realtime"  # batch: the face stage after OCR, in the check's thread
    return p


def test_a_portrait_missing_from_a_page_sure_to_hold_it_is_not_searched_for_beyond_it(pipeline):
    card = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    pipeline.reader.rectified_page = np.ascontiguousarray(card[::-1, ::-1])  # no upright face where the layout says
    face = pipeline.check(card).stages["face"].output
    assert face["searched"] == "rectified portrait, rectified portrait (closer)", face
    assert not face["face_found"], face
    # The same page under a zone that fails its checks: the photo is searched, and the portrait found there.
    pipeline.reader.mrz_valid = False
    face = pipeline.check(card).stages["face"].output
    assert face["searched"] == "rectified portrait, rectified, photo", face  # the same order in both modes
    assert face["face_found"], face


def test_a_small_portrait_on_a_page_sure_to_hold_it_is_found_there_closer(pipeline):
    page = _small_portrait_page()
    pipeline.reader.rectified_page = page
    face = pipeline.check(page).stages["face"].output
    assert face["searched"] == "rectified portrait, rectified portrait (closer)", face
    assert face["face_found"] and 40 <= face["box"][3] < face["box"][1] <= 260, face


def test_the_zone_read_with_the_page_places_the_portrait_search_in_both_modes(pipeline):
    # The realtime search starts as OCR hands over the page and its zone, so it searches where the batch check
    # does: a passport's page (TD3) at its left only; a TD2 page at either side.
    card = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    pipeline.reader.rectified_page = page = card  # this card prints its portrait at the right, as some do
    face = pipeline.check(card).stages["face"].output
    assert face["searched"] == "rectified portrait" and face["face_found"], face
    assert face["box"][3] > page.shape[1] // 2, face  # found at the right
    pipeline.reader.mrz_type = "TD3"
    face = pipeline.check(card).stages["face"].output
    assert face["searched"] == "rectified portrait, rectified portrait (closer)", face
    assert not face["face_found"], face


def test_the_page_ocr_reads_again_is_searched_where_its_layout_puts_the_portrait(pipeline):
    # OCR hands over the first page it makes, then may read another (the outline it found was the portrait or
    # a band of the card): the realtime search goes on there, as the batch check searches the read page alone.
    card = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    pipeline.reader.rectified_page = card
    handed_over = np.full_like(card, 200)  # the first outline: no portrait on it
    read = pipeline.reader.__call__

    def reader(image, *, side=None, on_rectified=None, expected=None):
        return read(image, side=side, expected=expected,
                    on_rectified=None if on_rectified is None else lambda _page, zone: on_rectified(handed_over, zone))

    pipeline.reader = reader
    face = pipeline.check(card).stages["face"].output
    expected = "rectified portrait, read page portrait" if pipeline.parallel_face else "rectified portrait"
    assert face["searched"] == expected and face["face_found"], face


class CountingFaces:
    """The real face stage, counting the searches asked of it."""

    def __init__(self, faces):
        self._faces, self.calls = faces, 0
        self.concurrent_calls = faces.concurrent_calls

    def encode(self, image, **options):
        self.calls += 1
        return self._faces.encode(image, **options)

    def distance(self, templates, encoding):
        return self._faces.distance(templates, encoding)


def test_a_back_the_side_model_took_for_a_front_is_not_searched_for_a_portrait(pipeline):
    # A card's back (its TD1 zone valid) that the side model calls a front: the zone makes it a back, which
    # carries no portrait, so no look is spent on it, not even beside OCR in realtime.
    card = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    pipeline.classifier = RuleClassifier(side="front")
    pipeline.faces = counting = CountingFaces(pipeline.faces)
    pipeline.reader.rectified_page = card
    pipeline.reader.mrz_type = "TD1"
    result = pipeline.check(card)
    assert result.document["side"] == "back" and result.stages["face"].status == "skipped", result.document
    assert counting.calls == 0, counting.calls


def test_a_page_handed_over_under_a_backs_zone_is_searched_when_the_read_makes_it_a_front(pipeline):
    # OCR hands over the page with a TD1 zone, then its read ends with a card face's zone (TD2): the check asks
    # for the face after all, and the look the zone held back runs then, where it would have run beside OCR.
    card = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    pipeline.classifier = RuleClassifier(side="front")
    pipeline.reader.rectified_page = card
    pipeline.reader.mrz_type = "TD2"
    read = pipeline.reader.__call__

    def reader(image, *, side=None, on_rectified=None, expected=None):
        def handed_over(page, zone):
            zone.type = "TD1"
            on_rectified(page, zone)
            zone.type = "TD2"
        return read(image, side=side, expected=expected, on_rectified=None if on_rectified is None else handed_over)

    pipeline.reader = reader
    result = pipeline.check(card)
    face = result.stages["face"].output
    assert result.document["side"] == "front", result.document
    assert face["searched"] == "rectified portrait" and face["face_found"], face
