"""``docauth doctor``, ``export`` and ``tune`` from the command line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from docauth.runtime.cli import doctor, export, tune
from docauth.runtime.untrained import build_untrained_model


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("models")
    build_untrained_model(d, "standin", height=32, width=32)
    return d


@pytest.fixture
def env(tmp_path, models_dir):
    return {"DOCAUTH_DATA_DIR": str(tmp_path), "DOCAUTH_MODELS_DIR": str(models_dir), "DOCAUTH_AUTOTUNE": "0"}


def test_export_then_doctor_then_tune(env, models_dir, tmp_path):
    runner = CliRunner()
    result = runner.invoke(export, [], env=env)
    assert result.exit_code == 0, result.output
    assert "standin" in result.output and "argmax agreement 100%" in result.output
    assert (models_dir / "standin.onnx").is_file()

    result = runner.invoke(doctor, [], env=env)
    assert result.exit_code == 0, result.output
    for word in ("CPU", "ISA", "GPUs", "ORT", "OpenVINO", "threading", "profile", "standin:"):
        assert word in result.output
    assert "default ranking" in result.output  # no profile yet

    result = runner.invoke(tune, ["--seconds", "0.02", "--batch-sizes", "4", "--json"], env=env)
    assert result.exit_code == 0, result.output
    profile = json.loads(result.output)
    assert (tmp_path / "runtime-profile.json").is_file()
    assert set(profile["choice"]) == {"realtime", "throughput"}

    result = runner.invoke(doctor, ["--json", "--mode", "throughput"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["mode"] == "throughput" and report["mode_source"] == "--mode"
    assert report["choices"]["standin"]["source"] == "profile"
    assert report["choices"]["standin"]["backend"] == profile["per_model"]["standin"]["throughput"]["spec"]["key"]


def test_bad_input_gives_message_not_traceback(env):
    runner = CliRunner()
    result = runner.invoke(export, ["--models", "nope"], env=env)
    assert result.exit_code == 1
    assert "missing" in result.output and "Traceback" not in result.output
    result = runner.invoke(tune, ["--batch-sizes", "x"], env=env)
    assert result.exit_code != 0 and "integers" in result.output
