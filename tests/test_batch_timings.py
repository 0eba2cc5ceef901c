"""Per-image timings of the archive scanner are true: a chunk is classified in one model call, and the images
of a real run (shipped models, generated captures) add up to no more than the run's wall time."""

from __future__ import annotations

import json

import pytest

from docauth.batch.scan import scan
from docauth.config import Settings
from docauth.imageio import encode_jpeg
from docauth.pipeline import Pipeline
from pipeline_support import ASTRONAUT_PERSON, astronaut_portrait, document_of

CAPTURES = 4
# Rounding each image's stage times to 0.01 ms is the only way the sum can pass the wall time.
MARGIN_MS = 0.01 * 2 * CAPTURES + 1.0


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    # No start-up backend measurement (minutes on a shared machine): the default ranking runs the same models.
    return Settings.load(environ={"DOCAUTH_AUTOTUNE": "0"}, data_dir=tmp_path_factory.mktemp("data"),
                         mode="throughput")


@pytest.fixture(scope="module")
def pipeline(settings):
    p = Pipeline.load(settings)
    p.warmup()
    return p


def test_per_image_totals_of_a_batch_run_add_up_to_no_more_than_its_wall_time(tmp_path, settings, pipeline):
    folder = tmp_path / "archive"
    folder.mkdir()
    for seed in range(CAPTURES):
        (folder / f"capture{seed}.jpg").write_bytes(encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(),
                                                                            seed=seed)))
    out = tmp_path / "results.jsonl"
    summary = scan([str(folder)], out, settings, pipeline=pipeline, chunk=CAPTURES)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary.scanned == CAPTURES and summary.errors == 0
    timings = [r["result"]["timings_ms"] for r in records]
    assert all("classify" in t and "total" in t for t in timings), timings
    wall_ms = summary.elapsed_s * 1000.0
    totals_ms = sum(t["total"] for t in timings)
    assert totals_ms <= wall_ms + MARGIN_MS, (totals_ms, wall_ms, timings)
    # One classifier call for the chunk, shared out equally; and the totals measure the checks, not nothing.
    assert len({t["classify"] for t in timings}) == 1
    assert totals_ms >= 0.5 * wall_ms, (totals_ms, wall_ms)
