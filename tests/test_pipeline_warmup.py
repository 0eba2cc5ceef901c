"""The warm-up checks a stored document photo whole, so a kiosk's first customer pays no first-call costs:
the photo must keep reaching every stage's full path with the shipped models (a zone read and valid, printed
fields, a portrait found and encoded)."""

from __future__ import annotations

import pytest

from docauth.config import Settings
from docauth.pipeline import Pipeline
from docauth.pipeline.warmup import warmup_document


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
