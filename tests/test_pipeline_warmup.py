"""The warm-up checks a stored document photo whole, so a kiosk's first customer pays no first-call costs:
the photo must keep reaching every stage's full path with the shipped models (a zone read and valid, printed
fields, a portrait found and encoded)."""

from __future__ import annotations

import pytest

from docauth.classifiers.stage import Classification
from docauth.config import Settings
from docauth.pipeline import Pipeline
from docauth.pipeline.warmup import warmup_document, warmup_image
from pipeline_support import FieldsReader, RuleClassifier


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    # No start-up backend measurement (minutes on a shared machine): the default ranking runs the same models.
    settings = Settings.load(environ={"DOCAUTH_AUTOTUNE": "0"}, data_dir=tmp_path_factory.mktemp("data"),
                             mode="throughput")
    return Pipeline.load(settings)


def test_the_warmup_document_runs_every_stage_of_a_check(pipeline):
    result = pipeline.check(warmup_document())
    assert result.document["is_document"] and result.document["kind"] == "TD3"
    assert result.stages["ocr"].output["mrz"]["valid"], result.stages["ocr"].output
    assert result.fields.get("surname"), result.fields
    assert result.stages["face"].output["face_found"]
    assert result.stages["duplicates"].status != "skipped"


def test_warmup_reports_the_whole_check(pipeline):
    timings = pipeline.warmup()
    assert {"classify", "ocr", "face", "check"} <= set(timings)
    assert timings["check"] > 0


class _CountingReader(FieldsReader):
    def __init__(self):
        super().__init__()
        self.images: list = []

    def __call__(self, image, **kwargs):
        self.images.append(image.shape)
        return super().__call__(image, **kwargs)


def _standin(classifier) -> tuple[Pipeline, _CountingReader]:
    reader = _CountingReader()
    return Pipeline(classifier=classifier, reader=reader, faces=None, text_matcher=None, store=None), reader


def test_warmup_reads_once_when_the_check_reaches_the_reader():
    pipeline, reader = _standin(RuleClassifier())  # the stored photo is oblong: a document to this classifier
    timings = pipeline.warmup()
    assert reader.images == [warmup_document().shape]
    assert pipeline.classifier.calls == [1]
    assert {"classify", "ocr", "check"} <= set(timings)


def test_warmup_runs_a_stage_the_check_did_not_reach_on_the_synthetic_image():
    class NoDocuments(RuleClassifier):
        """Calls nothing a document."""

        def __call__(self, images):
            images = list(images)
            self.calls.append(len(images))
            return [Classification(False, 0.03, None, {}) for _ in images]

    pipeline, reader = _standin(NoDocuments())
    timings = pipeline.warmup()
    assert reader.images == [warmup_image().shape]
    assert pipeline.classifier.calls == [1]
    assert timings["ocr"] >= 0
