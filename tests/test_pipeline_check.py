"""The composed check: decisions and reasons from real face matching, real text matching and a
real (temporary SQLite) store; the classifier and reader are injected (each stage is swappable)."""

from __future__ import annotations

import datetime as dt
import json

from types import SimpleNamespace

import numpy as np
import pytest

from docauth.config import Settings
from docauth.errors import NotFound
from docauth.pipeline import DecisionPolicy, Pipeline, Thresholds
from docauth.pipeline.faces import FaceStage
from docauth.pipeline.geometry import document_geometry
from docauth.pipeline.loaders import load_text_matcher
from pipeline_support import (ASTRONAUT_PERSON, OTHER_PERSON, FieldsReader, RuleClassifier, astronaut_portrait,
                              document_of)

TODAY = dt.date(2026, 11, 22)


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    return Settings.load(environ={}, data_dir=tmp_path_factory.mktemp("data"))


@pytest.fixture(scope="module")
def store(settings):
    from docauth.store import Store

    s = Store.from_settings(settings)
    s.upgrade()
    yield s
    s.close()


@pytest.fixture(scope="module")
def faces():
    return FaceStage.load()


@pytest.fixture(scope="module")
def astronaut_id(store, faces):
    import skimage.data

    encoding = faces.encode_enrolment(skimage.data.astronaut())
    person, _ = store.enrol(ASTRONAUT_PERSON, faces=[(encoding, "0" * 64)])
    return person.id


@pytest.fixture()
def reader():
    return FieldsReader()


@pytest.fixture()
def pipeline(settings, store, faces, reader):
    return Pipeline(classifier=RuleClassifier(), reader=reader, faces=faces,
                    text_matcher=load_text_matcher(settings), store=store,
                    policy=DecisionPolicy.from_settings(settings), thresholds=Thresholds.from_settings(settings),
                    today=lambda: TODAY, settings=settings)


def _fields(person, **extra):
    out = {k: person[k] for k in ("surname", "given_names", "date_of_birth", "document_number", "nationality", "sex")}
    out["expiry_date"] = "2031-05-02"
    out.update(extra)
    return out


def test_own_document_is_accepted(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, person_id=astronaut_id)
    assert result.decision == "accept", result.export()
    assert result.reasons == []
    assert result.scores["face_distance"] < 0.5
    assert result.stages["text"].output["match"] is True
    assert set(result.timings_ms) >= {"classify", "ocr", "face", "duplicates", "text", "total"}


def test_a_printed_name_misread_on_own_card_asks_for_review_not_rejection(pipeline, reader, astronaut_id):
    # A card front: no MRZ, so the name comes from the printed zone alone, here misread.
    reader.with_mrz = False
    reader.next_fields = _fields(ASTRONAUT_PERSON, surname="SEMMENS", date_of_birth="2001-05-02")
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    result = pipeline.check(image, person_id=astronaut_id)
    assert result.stages["face"].output["match"] is True
    codes = result.reason_codes
    assert "printed_name_mismatch" in codes and "printed_dob_mismatch" in codes, codes
    assert "name_mismatch" not in codes and "dob_mismatch" not in codes, codes
    assert result.decision == "review", result.export()


def test_a_name_mismatch_confirmed_by_check_digits_rejects(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON, surname="SEMMENS")  # under a valid MRZ
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, person_id=astronaut_id)
    assert "name_mismatch" in result.reason_codes and result.decision == "reject", result.export()


def test_a_passport_page_taken_for_a_card_back_is_corrected_by_its_mrz(pipeline, reader, astronaut_id):
    pipeline.classifier = RuleClassifier(side="back")  # the side model's mistake
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    reader.mrz_type = "TD3"  # a valid 2x44 zone: only a passport's data page carries one
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, person_id=astronaut_id)
    assert result.document["side"] == "open" and result.document["side_source"] == "mrz", result.document
    assert result.document["side_classified"] == "back"
    assert result.stages["face"].output["match"] is True  # the portrait side: the face was compared
    assert result.decision == "accept", result.export()


def test_portrait_of_a_page_read_upside_down_is_found(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    import cv2

    from docauth.ocr.locate import warp

    page = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    h, w = page.shape[:2]
    rectified, _ = warp(page, np.float64([[0, 0], [w, 0], [w, h], [0, h]]))  # the reader's page size
    reader.rectified_page = cv2.rotate(rectified, cv2.ROTATE_180)  # OCR turned the page the wrong way
    photo = np.ascontiguousarray(np.rot90(page))  # taken sideways: HOG finds no upright face on it
    result = pipeline.check(photo, person_id=astronaut_id)
    face = result.stages["face"].output
    assert face["searched"] == "rectified portrait, rectified, photo, rectified turned 180", face
    assert face["face_found"] and face["match"], face
    assert result.decision == "accept", result.export()


def _rectified_card(page):
    from docauth.ocr.locate import warp

    h, w = page.shape[:2]
    rectified, _ = warp(page, np.float64([[0, 0], [w, 0], [w, h], [0, h]]))  # the reader's page size
    return rectified


def test_portrait_is_found_where_the_layout_puts_it_on_the_rectified_page(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    page = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    reader.rectified_page = _rectified_card(page)
    photo = np.ascontiguousarray(np.rot90(page))  # taken sideways: HOG finds no upright face on the photo
    result = pipeline.check(photo, person_id=astronaut_id)
    face = result.stages["face"].output
    assert face["searched"] == "rectified portrait", face
    assert face["face_found"] and face["match"], face


def test_a_portrait_on_either_side_of_a_card_is_found_there_in_the_pages_pixels(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    page = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    printed = _rectified_card(page)
    reader.rectified_page = printed
    as_printed = pipeline.check(page, person_id=astronaut_id).stages["face"].output
    reader.rectified_page = np.ascontiguousarray(printed[:, ::-1])  # the portrait on the other side
    mirror = pipeline.check(np.ascontiguousarray(page[:, ::-1]), person_id=astronaut_id).stages["face"].output
    for face in (as_printed, mirror):
        assert face["searched"] == "rectified portrait" and face["face_found"] and face["match"], face
    # The desk's box of the portrait is that box on the page (not mapped again from the photo).
    read = SimpleNamespace(document=SimpleNamespace(rectified=printed, corners=[[0, 0], [1, 0], [1, 1], [0, 1]]),
                           mrz=None, printed={})
    top, right, bottom, left = as_printed["box"]
    assert document_geometry(read, as_printed)["face"] == [left, top, right, bottom]
    # The same face, mirrored: its box on the page is the mirror of the other's.
    width = printed.shape[1]
    top, right, bottom, left = mirror["box"]
    assert np.abs(np.subtract([top, width - left, bottom, width - right], as_printed["box"])).max() <= 12, (
        as_printed, mirror)


def test_a_portrait_off_the_layouts_places_is_found_by_the_fallback(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    page = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False, kind="td1_front")
    reader.rectified_page = _rectified_card(page)[::-1, ::-1]  # OCR turned the page the wrong way
    result = pipeline.check(page, person_id=astronaut_id)
    face = result.stages["face"].output
    assert face["searched"] == "rectified portrait, rectified, photo", face
    assert face["face_found"] and face["match"], face


def test_someone_elses_document_is_rejected_for_face_and_name(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(OTHER_PERSON)
    image = document_of(OTHER_PERSON, None, seed=11, captured=False)  # the generator's own face
    result = pipeline.check(image, person_id=astronaut_id)
    assert result.decision == "reject"
    codes = result.reason_codes
    assert "face_mismatch" in codes and "name_mismatch" in codes and "dob_mismatch" in codes
    assert all(r.severity == "reject" for r in result.reasons if r.code == "face_mismatch")


def test_a_selfie_is_not_a_document_and_stops_there(pipeline, astronaut_id):
    import skimage.data

    result = pipeline.check(skimage.data.astronaut(), person_id=astronaut_id)
    assert (result.decision, result.reason_codes) == ("reject", ["not_a_document"])
    assert {name: rec.status for name, rec in result.stages.items()} == {
        "classify": "ok", "ocr": "skipped", "face": "skipped", "duplicates": "skipped", "text": "skipped"}


def test_enrolled_face_under_another_name_is_a_duplicate_identity(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(OTHER_PERSON)
    image = document_of(OTHER_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, claimed=_fields(OTHER_PERSON))
    assert "duplicate_identity" in result.reason_codes
    assert result.stages["duplicates"].output["matches"][0]["person_id"] == astronaut_id
    assert result.decision == "reject"
    assert result.claimed is True


def test_a_claimed_check_naming_the_enrolled_person_is_no_duplicate_of_themselves(pipeline, reader, store,
                                                                                  astronaut_id):
    store.update_person(astronaut_id, external_ref="astro-ref-1")
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    anonymous = pipeline.check(image, claimed=_fields(ASTRONAUT_PERSON))
    assert "duplicate_identity" in anonymous.reason_codes  # without a name: themselves, as before
    for claim in ({"external_ref": "astro-ref-1"}, {"person_id": astronaut_id},
                  {"person_id": str(astronaut_id), "external_ref": "astro-ref-1"}):
        result = pipeline.check(image, claimed={**_fields(ASTRONAUT_PERSON), **claim})
        assert "duplicate_identity" not in result.reason_codes, claim
        assert result.stages["duplicates"].output == {"threshold": pipeline.thresholds.duplicate_face,
                                                      "matches": [], "excluded_person_id": astronaut_id}
        assert result.claimed_person_id == astronaut_id and result.export()["claimed_person_id"] == astronaut_id
    # a reference nobody has is a new customer: nothing excluded, the duplicate still found
    result = pipeline.check(image, claimed={**_fields(ASTRONAUT_PERSON), "external_ref": "someone-new"})
    assert "duplicate_identity" in result.reason_codes and result.claimed_person_id is None
    with pytest.raises(NotFound):
        pipeline.check(image, claimed={**_fields(ASTRONAUT_PERSON), "person_id": 987654})
    from docauth.errors import InputError

    for bad in ({"person_id": "x"}, {"person_id": True}, {"external_ref": ["a"]}, {"external_ref": "a\x00"},
                {"person_id": astronaut_id, "external_ref": "someone-new"}):
        with pytest.raises(InputError):
            pipeline.check(image, claimed={**_fields(ASTRONAUT_PERSON), **bad})


def test_expired_and_invalid_mrz_are_reasons(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON, expiry_date="2020-01-31")
    reader.mrz_valid = False
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, person_id=astronaut_id)
    assert {"expired", "mrz_invalid"} <= set(result.reason_codes)
    assert result.decision == "reject"


def test_a_zone_passing_its_checks_but_read_unsurely_is_a_note_not_a_rejection(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    reader.mrz_valid, reader.mrz_checks_pass = False, True
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, person_id=astronaut_id)
    assert "mrz_invalid" not in result.reason_codes and result.decision == "accept"
    assert "read unsurely" in result.stages["ocr"].note


def test_missing_mrz_on_a_data_page_asks_for_review(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    reader.with_mrz = False
    image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False)
    result = pipeline.check(image, person_id=astronaut_id)
    assert result.reason_codes == ["mrz_not_found"]
    assert result.decision == "review"


def test_thresholds_and_policy_come_from_settings(settings, store, faces, reader, astronaut_id):
    lenient = Settings.load(environ={"DOCAUTH_REJECT_REASONS": "not_a_document"}, data_dir=settings.data_dir)
    p = Pipeline(classifier=RuleClassifier(), reader=reader, faces=faces, text_matcher=load_text_matcher(lenient),
                 store=store, policy=DecisionPolicy.from_settings(lenient),
                 thresholds=Thresholds.from_settings(lenient), today=lambda: TODAY)
    reader.next_fields = _fields(OTHER_PERSON)
    result = p.check(document_of(OTHER_PERSON, None, seed=11, captured=False), person_id=astronaut_id)
    assert "face_mismatch" in result.reason_codes
    assert result.decision == "review"  # face_mismatch no longer rejects under this policy


def test_export_is_plain_json(pipeline, reader, astronaut_id):
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    result = pipeline.check(document_of(ASTRONAUT_PERSON, astronaut_portrait(), captured=False),
                            person_id=astronaut_id)
    text = json.dumps(result.export(), allow_nan=False)
    again = json.loads(text)
    assert again["decision"] == "accept" and again["person_id"] == astronaut_id
    assert "encoding" not in text


def test_unknown_person_fails_before_any_model_runs(pipeline):
    clf = pipeline.classifier
    with pytest.raises(NotFound):
        pipeline.check(np.zeros((300, 500, 3), np.uint8), person_id=987654)
    assert clf.calls == []


def test_check_many_classifies_in_one_batch(pipeline, reader):
    import skimage.data

    reader.next_fields = {}
    images = [skimage.data.astronaut(), skimage.data.coffee(), skimage.data.chelsea()]
    results = pipeline.check_many(images)
    assert pipeline.classifier.calls == [3]
    assert [r.document["is_document"] for r in results] == [False, True, True]


def test_a_card_back_never_accepts_a_claimed_owner(pipeline, reader, astronaut_id):
    pipeline.classifier = RuleClassifier(side="back")
    reader.next_fields = _fields(ASTRONAUT_PERSON)
    result = pipeline.check(document_of(ASTRONAUT_PERSON, None, kind="td1_back", captured=False),
                            person_id=astronaut_id)
    assert result.stages["face"].status == "skipped"
    assert result.reason_codes == ["face_not_checked"]
    assert result.decision == "review"


def test_face_stage_is_safe_under_concurrent_requests():
    """dlib crashes (SIGSEGV) when two threads detect at once; the stage serialises them. In a
    subprocess, so a regression fails this test instead of killing the suite."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from pipeline_support import ASTRONAUT_PERSON, astronaut_portrait, document_of\n"
        "from docauth.pipeline.faces import FaceStage\n"
        "f = FaceStage.load()\n"
        "imgs = [document_of(ASTRONAUT_PERSON, astronaut_portrait(), seed=500 + i,\n"
        "                    kind='td1_front' if i % 2 == 0 else 'td3_open') for i in range(6)]\n"
        "with ThreadPoolExecutor(4) as pool:\n"
        "    results = list(pool.map(f.encode, imgs * 2))\n"
        "print(len(results))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=Path(__file__).parent)
    assert proc.returncode == 0, proc.stderr[-2000:]  # -11 (SIGSEGV) without the lock
    assert proc.stdout.strip().splitlines()[-1] == "12"
