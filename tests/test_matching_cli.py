"""``docauth match-faces`` and ``docauth eval faces``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from docauth.cli import cli
from docauth.config import shared_data_dir
from docauth.imageio import encode_jpeg, encode_png
from docauth.matching.face import DEFAULT_FACE_THRESHOLD

FACES = shared_data_dir() / "faces" if shared_data_dir() else None


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    import cv2
    import skimage.data

    folder = tmp_path_factory.mktemp("faces")
    astronaut = np.ascontiguousarray(skimage.data.astronaut()[..., :3])
    smaller = cv2.resize(astronaut, (300, 300), interpolation=cv2.INTER_AREA)
    out = {
        "astronaut": encode_png(astronaut),
        "astronaut_small": encode_jpeg(smaller, quality=70),
        "two": encode_png(np.hstack([astronaut, astronaut[:, ::-1]])),
        "no_face": encode_png(np.stack([skimage.data.camera()] * 3, -1)),
        "text": b"hello, not an image",
    }
    paths = {}
    for name, data in out.items():
        paths[name] = folder / name
        paths[name].write_bytes(data)
    return paths


def test_same_face_matches_with_the_calibrated_threshold(images):
    result = CliRunner().invoke(cli, ["match-faces", str(images["astronaut"]), str(images["two"]), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"distance", "match", "threshold", "faces_a", "faces_b"}
    assert out["match"] is True and out["threshold"] == DEFAULT_FACE_THRESHOLD
    assert out["faces_a"] == 1 and out["faces_b"] >= 2
    plain = CliRunner().invoke(cli, ["match-faces", str(images["astronaut"]), str(images["astronaut_small"])])
    assert plain.exit_code == 0 and plain.stdout.startswith("same person")


def test_threshold_option_changes_the_verdict(images):
    args = ["match-faces", str(images["astronaut"]), str(images["astronaut_small"]), "--json"]
    result = CliRunner().invoke(cli, [*args, "--threshold", "0.0001"])
    strict = json.loads(result.stdout)
    assert strict["match"] is False and strict["threshold"] == 0.0001 and strict["distance"] > 0.0001
    assert result.exit_code == 1  # a negative answer, as `check` exits 1 on review


@pytest.mark.parametrize(("name", "message"), [("no_face", "no face was found"), ("text", "not a recognised image"),
                                                ("missing", "no such file")])  # fmt: skip
def test_unusable_image_is_a_clear_error(images, name, message):
    path = images.get(name, images["astronaut"].parent / "missing.png")
    result = CliRunner().invoke(cli, ["match-faces", str(images["astronaut"]), str(path), "--json"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}") and message in result.stderr
    assert result.stdout == ""


def test_installed_command_line(images):
    """The real entry point, in a fresh process."""
    exe = Path(sys.executable).with_name("docauth")
    proc = subprocess.run(
        [str(exe), "match-faces", str(images["astronaut"]), str(images["no_face"]), "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2 and "no face was found" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(FACES is None or not (FACES / "labels.csv").exists(), reason="../shared/data/faces is absent")
def test_eval_faces_reports_distributions_and_errors(tmp_path):
    # a small labelled set pointing at the shared photos (nothing is copied)
    picks = ["tests/test_images/obama.jpg", "examples/obama-720p.jpg", "tests/test_images/biden.jpg",
             "examples/knn_examples/train/biden/biden2.jpg", "examples/two_people.jpg"]  # fmt: skip
    labels = {row.split(",")[0]: row.split(",")[1] for row in (FACES / "labels.csv").read_text().split()[1:]}
    (tmp_path / "faces").mkdir()
    (tmp_path / "faces" / "labels.csv").write_text(
        "file,person\n" + "".join(f"{FACES / p},{labels[p]}\n" for p in picks)
    )
    out = tmp_path / "report.json"
    result = CliRunner().invoke(cli, ["eval", "faces", "--shared-data", str(tmp_path), "--no-documents", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["n_real_photos"] == 5  # 4 shared single-person photos + the bundled astronaut
    errors = report["errors"]["all"]
    assert errors["genuine_pairs"] == 2 and errors["impostor_pairs"] == 8
    assert errors["false_accepts"] == errors["false_rejects"] == 0
    gen = report["distributions"]["real_vs_real/genuine"]
    imp = report["distributions"]["real_vs_real/impostor"]
    assert gen["max"] < report["threshold"] < imp["min"]
    assert report["errors_at_configured_threshold"]["false_accepts"] == 0
