"""The side decision (docauth.pipeline.side): its rules, and the same answer from the check, Pipeline.classify
(/v1/classify) and ``docauth classify``."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from docauth.classifiers.stage import Classification
from docauth.pipeline import Pipeline
from docauth.pipeline.side import SideEvidence, decide_side, sided
from docauth.synth import render_document, seeds
from pipeline_support import RuleClassifier

SCORES = {"front": 0.6, "back": 0.1, "open": 0.3}


def _decide(model_side="front", kind=None, valid=True, scores=SCORES):
    return decide_side(SideEvidence(model_side, scores, kind, valid))


@pytest.mark.parametrize("kind,side", [("TD3", "open"), ("TD1", "back"), ("MRVA", "front"), ("MRVB", "front")])
def test_a_valid_zone_printed_on_one_face_decides_the_side(kind, side):
    for model_side in ("front", "back", "open"):
        decision = _decide(model_side, kind)
        assert (decision.side, decision.source, decision.model_side) == (side, "mrz", model_side)


@pytest.mark.parametrize("kind", ["TD3", "TD1", "MRVA", "TD2"])
def test_a_zone_failing_its_check_digits_leaves_the_model_answer(kind):
    decision = _decide("front", kind, valid=False)
    assert (decision.side, decision.source, decision.model_side) == ("front", "model", "front")


@pytest.mark.parametrize("kind,side", [("TD3", "open"), ("TD1", "back")])
def test_a_zone_whose_format_is_sure_decides_though_a_check_digit_fails(kind, side):
    decision = decide_side(SideEvidence("front", SCORES, kind, False, True))
    assert (decision.side, decision.source) == (side, "mrz")


def test_a_zone_format_is_sure_with_its_layout_and_two_passing_checks():
    from docauth.ocr.mrz import parse_mrz

    specimen = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    assert parse_mrz(specimen).format_sure
    wrong_birth_check = [specimen[0], specimen[1][:19] + "3" + specimen[1][20:]]
    read = parse_mrz(wrong_birth_check, correct=False)
    assert not read.valid and read.format_sure
    assert not parse_mrz([specimen[0][:40], specimen[1][:40]], correct=False).format_sure


def test_without_a_zone_the_model_answers():
    assert _decide("back", None, valid=False).side == "back"
    assert _decide("back", None, valid=False).source == "model"


def test_a_valid_td2_zone_only_rules_out_an_open_booklet():
    # TD2 cards print the zone on the front in some designs, on the back in others: the model's face stands.
    assert (_decide("front", "TD2").side, _decide("front", "TD2").source) == ("front", "model")
    assert (_decide("back", "TD2").side, _decide("back", "TD2").source) == ("back", "model")
    # An open booklet never carries a 2 x 36 zone: the model's better card face.
    decision = _decide("open", "TD2", scores={"front": 0.1, "back": 0.3, "open": 0.6})
    assert (decision.side, decision.source, decision.model_side) == ("back", "mrz", "open")
    assert _decide("open", "TD2", scores={"front": 0.35, "back": 0.05, "open": 0.6}).side == "front"


def test_no_document_no_side():
    decision = _decide(None, "TD3")
    assert decision.side == "open"  # a zone read is still a zone ...
    sided_out = sided(Classification(False, 0.1, None, {}), None, _NeverCalled())
    # ... but a non-document is never searched for one and gets no side.
    assert (sided_out.side, sided_out.side_source, sided_out.side_model) == (None, None, None)


class _NeverCalled:
    def find_zone(self, *args, **kwargs):
        raise AssertionError("a non-document was searched for an MRZ")


def test_export_keeps_the_model_answer_beside_the_decision():
    class Read:
        class result:
            type, valid, format_sure = "TD3", True, True

    class Reader:
        def __init__(self):
            self.sides = []

        def find_zone(self, image, timings=None, *, side=None):
            self.sides.append(side)
            return None, Read()

    reader = Reader()
    image = np.full((300, 420, 3), 200, np.uint8)
    out = sided(Classification(True, 0.99, "front", SCORES), image,
                reader).export()
    assert out["side"] == "open" and out["side_source"] == "mrz" and out["side_model"] == "front"
    assert out["side_scores"] == SCORES and out["mrz_kind"] == "TD3"
    assert {"is_document", "document_score", "side", "side_scores"} <= set(out)
    # The zone is searched as the check's reader searches a photo of the side the model answered.
    assert reader.sides == ["front"]
    sided(Classification(True, 0.99, "back", SCORES), image, reader)
    assert reader.sides == ["front", "back"]


# -- the pipeline with the real MRZ reader --------------------------------------------------------------------
@pytest.fixture(scope="module")
def mrz_pipeline():
    from docauth.ocr.reader import DocumentReader

    reader = DocumentReader.load(read_viz=False)
    # The side model's usual mistake on a data page cropped alone: "front".
    return Pipeline(classifier=RuleClassifier(side="front"), reader=reader, faces=None, text_matcher=None)


def _flat(kind: str, index: int) -> np.ndarray:
    """A flat, tightly cropped render, as specimen galleries and scanner apps deliver a document."""
    import cv2

    doc = render_document(kind, np.random.default_rng([seeds.TESTS.nth(11), index]))
    x0, y0, x1, y1 = (int(v) for v in doc.page_box)
    page = doc.image[y0:y1, x0:x1]
    return cv2.resize(page, (900, round(900 * page.shape[0] / page.shape[1])), interpolation=cv2.INTER_AREA)


def test_classify_answers_open_for_a_passport_page_with_a_valid_td3_zone(mrz_pipeline):
    page, back, front = _flat("td3_page", 0), _flat("td1_back", 1), _flat("td2_front", 2)
    results = mrz_pipeline.classify([page, back, front])
    assert [r.side for r in results] == ["open", "back", "front"], results
    assert [r.side_source for r in results] == ["mrz", "mrz", "model"], results
    assert [r.side_model for r in results] == ["front"] * 3
    assert [r.mrz_kind for r in results] == ["TD3", "TD1", "TD2"], results  # a TD2 zone leaves the model's face


def test_the_check_and_classify_give_the_same_side(mrz_pipeline):
    page = _flat("td1_back", 3)
    [classified] = mrz_pipeline.classify([page])
    checked = mrz_pipeline.check(page)
    assert classified.side == checked.document["side"] == "back"
    assert checked.document["side_source"] == classified.side_source == "mrz"
    assert checked.document["side_model"] == classified.side_model == "front"
    assert checked.document["side_classified"] == "front"
    assert checked.stages["classify"].output["side"] == "front"  # the classify stage keeps the model's answer


def test_classify_takes_the_zone_the_check_finds_on_the_located_document(mrz_pipeline):
    # A small booklet on a flatbed scan: the photo as taken gives no valid zone, the located page does. The side
    # model's answer ("back" here) is overruled by the zone the check would read, not only by the photo's.
    import cv2

    from docauth.synth import generate_sample

    sample = generate_sample(seeds.TESTS.nth(31) + 11, 32, "td3_open")
    on_photo = mrz_pipeline.reader.mrz_reader.read(cv2.cvtColor(sample.image, cv2.COLOR_RGB2GRAY))
    assert on_photo is None or not on_photo.result.valid
    pipeline = Pipeline(classifier=RuleClassifier(side="back"), reader=mrz_pipeline.reader, faces=None,
                        text_matcher=None)
    [classified] = pipeline.classify([sample.image])
    assert (classified.side, classified.side_source, classified.mrz_kind) == ("open", "mrz", "TD3"), classified
    assert pipeline.check(sample.image).document["side"] == "open"


def test_a_reader_without_an_mrz_search_leaves_the_model_answer():
    from pipeline_support import FieldsReader

    pipeline = Pipeline(classifier=RuleClassifier(side="front"), reader=FieldsReader(), faces=None,
                        text_matcher=None)
    [result] = pipeline.classify([_flat("td3_page", 4)])
    assert (result.side, result.side_source, result.side_model) == ("front", "model", "front")


def test_classify_cli_answers_open_for_a_real_looking_passport_page(tmp_path):
    from click.testing import CliRunner

    from docauth.cli import cli
    from docauth.imageio import encode_jpeg

    path = tmp_path / "page.jpg"
    path.write_bytes(encode_jpeg(_flat("td3_page", 0)))
    result = CliRunner().invoke(cli, ["classify", "--json", str(path)])
    assert result.exit_code == 0, result.output
    body = json.loads(result.output.splitlines()[-1])
    assert body["is_document"] and body["side"] == "open" and body["side_source"] == "mrz", body
    assert body["side_model"] in ("front", "back", "open") and set(body["side_scores"]) == {"front", "back", "open"}
    no_mrz = CliRunner().invoke(cli, ["classify", "--json", "--no-mrz", str(path)])
    body = json.loads(no_mrz.output.splitlines()[-1])
    assert body["side"] == body["side_model"] and body["side_source"] == "model", body


# -- real specimens (evaluation only) --------------------------------------------------------------------------
@pytest.mark.shared_data
def test_real_passport_pages_and_card_backs_with_valid_zones_are_sided_by_them(shared_data):
    """Real documents whose printed zone passes its check digits: the decided side is the zone's."""
    from docauth.classifiers import DocumentClassifier
    from docauth.imageio import load_image
    from docauth.ocr.reader import DocumentReader

    root = shared_data / "real-docs"
    if not (root / "labels.csv").is_file():
        pytest.skip("../shared/data/real-docs not present")
    with open(root / "labels.csv", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["checkdigits"] == "valid" and r["side"] in ("open", "back")]
    pipeline = Pipeline(classifier=DocumentClassifier.load(), reader=DocumentReader.load(read_viz=False),
                        faces=None, text_matcher=None)
    right = 0
    for row in rows:
        [result] = pipeline.classify([load_image(root / row["file"])])
        right += result.side == row["side"]
    # A bar under what was measured, so that a reader or model change that loses these zones fails here.
    assert right >= 0.85 * len(rows), f"{right} of {len(rows)}"
