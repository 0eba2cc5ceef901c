"""The printed-field recogniser (docauth.ocr.vizlines): its training crops, training, and the shipped model
reading printed numbers and dates where the reader uses it."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from docauth.config import default_models_dir
from docauth.synth.seeds import TESTS


def _printed(lines: list[tuple[str, str, int]], size=(1000, 630)) -> np.ndarray:
    """A white card-sized page (1000 px wide, as the reader reads it) with (text, font file, y) printed at x = 60."""
    from PIL import Image, ImageDraw

    from docauth.synth import draw

    page = Image.new("L", size, 255)
    pen = ImageDraw.Draw(page)
    for text, font, y in lines:
        pen.text((60, y), text, font=draw.font(draw.FONT_DIR_DEJAVU + font, 30 if text.isupper() or
                                                 any(c.isdigit() for c in text) else 18), fill=20)
    return np.asarray(page)


def test_training_crops_are_the_reader_own_boxes_labelled_with_what_was_printed_there():
    from docauth.ocr.vizlines import FIELD_H, FIELD_W, LABELS, crops_of_capture, fold
    from docauth.synth import generate_sample

    numbers_cut = 0
    for index in range(1, 5):
        sample = generate_sample(TESTS.nth(140), index, category="td1_front")
        printed = {fold(v["text"]) for v in sample.label["value_boxes"]}
        number = sample.label["fields"]["document_number"]
        assert number in printed
        crops = crops_of_capture(sample, np.random.default_rng(0))
        texts = [text for _strip, text in crops]
        assert set(texts) <= printed  # every crop carries the value printed in it, nothing else
        assert all(c in LABELS for text in texts for c in text)
        if number in texts:
            numbers_cut += 1
            strip = crops[texts.index(number)][0]
            assert strip.shape == (FIELD_H, FIELD_W) and strip.dtype == np.uint8
            # ink is bright, paper dark, and the value sits at the strip's left: the right end is blank
            assert strip[:, :FIELD_W // 4].max() > 200 and strip[:, -20:].max() < 60
    assert numbers_cut >= 3


def test_the_generator_records_value_boxes_without_changing_a_document():
    from docauth.synth import generate_sample

    a = generate_sample(TESTS.nth(141), 3, category="td1_front")
    b = generate_sample(TESTS.nth(141), 3, category="td1_front")
    assert np.array_equal(a.image, b.image)
    boxes = {v["field"]: v for v in a.label["value_boxes"]}
    assert boxes["docno"]["text"] == a.label["fields"]["document_number"]
    # the boxes lie on the card (its corners in the capture)
    import cv2

    card = np.array(a.label["corners"], np.float32).reshape(-1, 1, 2)
    for v in a.label["value_boxes"]:
        centre = np.mean(v["corners"], axis=0)
        assert cv2.pointPolygonTest(card, (float(centre[0]), float(centre[1])), True) > -3


def test_a_tiny_training_run_writes_a_model_the_reader_loads(tmp_path):
    from docauth.ocr.reader import DocumentReader
    from docauth.ocr.vizlines import LABELS, train
    from docauth.runtime.model import load_metadata

    models = tmp_path / "models"
    models.mkdir()
    for suffix in (".keras", ".json"):
        shutil.copy(default_models_dir() / f"mrz_lines{suffix}", models / f"mrz_lines{suffix}")
    meta = train(models, captures=3, val_captures=2, epochs=1, seed=42, init=models / "mrz_lines.keras",
                 cache=tmp_path / "crops.npz", log=lambda *_: None)
    assert meta["labels"] == LABELS
    assert 0.0 <= meta["metrics"]["val_exact_reads"] <= 1.0 and meta["metrics"]["val_crops"] > 0
    assert (tmp_path / "crops.npz").is_file() and load_metadata("viz_lines", models)["name"] == "viz_lines"
    reader = DocumentReader.load(models, backend="keras_tf")
    assert reader.field_reader is not None


@pytest.fixture(scope="module")
def reader():
    from docauth.ocr.reader import DocumentReader

    return DocumentReader.load()


@pytest.fixture(scope="module")
def field_reader(reader):
    if reader.field_reader is None:
        pytest.fail("models/viz_lines.keras is shipped; the reader must load it")
    return reader.field_reader


@pytest.mark.parametrize("text", ["SG5KDLUGE", "B80S5Z8E1", "12 AUG 1974", "06.10.1997", "6 OCT 1997"])
def test_the_shipped_recogniser_reads_printed_numbers_and_dates(field_reader, text):
    from docauth.ocr.viz import text_boxes

    gray = _printed([(text, "DejaVuSans-Bold.ttf", 100)])
    box = next(b for b in text_boxes(gray) if b[1] <= 115 <= b[3])
    assert field_reader.read(gray, [box])[0].text == text


def test_a_misread_number_and_date_are_replaced_by_the_recogniser_labels_kept(field_reader):
    from docauth.ocr.viz import Phrase, reread_with_model, text_boxes

    gray = _printed([("Document no", "DejaVuSans.ttf", 40), ("SG5KDLUGE", "DejaVuSans-Bold.ttf", 75),
                     ("6 OCT 1997", "DejaVuSans-Bold.ttf", 170)])
    boxes = text_boxes(gray)
    label, number, day = (next(b for b in boxes if b[1] <= y <= b[3]) for y in (50, 90, 185))
    # Faults injected: what Tesseract read on such boxes (a digit read twice, a day glued to its month).
    phrases = [Phrase("Document no", *label, 90.0), Phrase("SGS5KDLUGE", *number, 90.0),
               Phrase("(SOCT 1997", *day, 90.0)]
    out = reread_with_model(gray, phrases, field_reader)
    assert [p.text for p in out] == ["Document no", "SG5KDLUGE", "6 OCT 1997"]


@pytest.mark.parametrize("surname,index", [("ÆRØBØ", 0), ("ÆRØBØ", 1), ("STRAẞER", 2)])
def test_names_with_letters_tesseract_lacks_are_read(reader, surname, index):
    """Tesseract's English model has no Æ, Ø or ẞ (it reads ÆRØBØ as ROBO); the recogniser reads them, spelled
    as ICAO transliterates them (AEROEBOE, STRASSER)."""
    from docauth.ocr.evaluate import field_equal
    from docauth.synth import render_document
    from docauth.synth.seeds import TESTS

    for offset in range(40):  # a card without an MRZ, printed in a typeface that has the letters
        doc = render_document("td1_front", TESTS.nth(37) + 40 * index + offset, identity={"surname": surname})
        if doc.mrz is None and any(box[1] == surname for box in doc.extras["value_boxes"]):
            break
    else:
        pytest.fail(f"no generated front prints {surname}")
    result = reader(doc.image)
    assert field_equal("surname", result.fields["surname"], surname), result.viz
