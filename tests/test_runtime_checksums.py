"""Model files are served only as recorded: the SHA-256 of each .keras / .onnx in models/<name>.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docauth.errors import ModelError
from docauth.runtime.model import SHA256_KEY, model_files, record_checksums, verify_file, verify_model_files

SHIPPED = Path(__file__).resolve().parent.parent / "models"
NAMES = sorted(p.stem for p in SHIPPED.glob("*.keras") if p.with_suffix(".json").is_file())


def test_every_shipped_model_records_and_matches_the_sha256_of_each_of_its_files():
    assert NAMES, "no shipped models"
    for name in NAMES:
        recorded = json.loads((SHIPPED / f"{name}.json").read_text())[SHA256_KEY]
        assert sorted(recorded) == sorted(p.name for p in model_files(name, SHIPPED)), name
    verify_model_files(NAMES, SHIPPED)


@pytest.fixture
def models(tmp_path) -> Path:
    """A tiny model directory: real metadata, made-up weight files (the check reads bytes, not weights)."""
    d = tmp_path / "models"
    d.mkdir()
    (d / "m.json").write_text(json.dumps({"name": "m", "input": {"height": 8, "width": 8}, "labels": ["a", "b"]}))
    (d / "m.keras").write_bytes(b"keras weights " * 100)
    (d / "m.onnx").write_bytes(b"onnx graph " * 100)
    return d


def test_record_then_verify(models):
    meta = record_checksums("m", models)
    assert set(meta[SHA256_KEY]) == {"m.keras", "m.onnx"}
    verify_model_files(["m"], models)
    verify_file(models / "m.onnx", meta)


def test_a_changed_byte_is_refused_naming_the_file(models):
    record_checksums("m", models)
    data = bytearray((models / "m.onnx").read_bytes())
    data[10] ^= 1
    (models / "m.onnx").write_bytes(bytes(data))
    with pytest.raises(ModelError, match=r"m\.onnx"):
        verify_model_files(["m"], models)


def test_metadata_without_checksums_or_with_a_file_unrecorded_is_refused(models):
    with pytest.raises(ModelError, match="records no SHA-256"):
        verify_model_files(["m"], models)
    meta = record_checksums("m", models)
    del meta[SHA256_KEY]["m.onnx"]
    (models / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"m\.onnx has no SHA-256"):
        verify_model_files(["m"], models)


def test_a_recorded_file_that_is_missing_is_refused(models):
    record_checksums("m", models)
    (models / "m.onnx").unlink()
    with pytest.raises(ModelError, match=r"missing: .*m\.onnx"):
        verify_model_files(["m"], models)
    record_checksums("m", models)  # rewriting drops the file that is gone
    verify_model_files(["m"], models)


def test_export_checksums_only_rewrites_the_hashes(models):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "docauth", "export", "--checksums-only", "--models-dir", str(models),
                          "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-1500:]
    assert set(json.loads(out.stdout)["m"]) == {"m.keras", "m.onnx"}
    verify_model_files(["m"], models)
