"""The front door (docauth.front): ``import docauth`` and one call per question, any image type in."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import docauth
from docauth import front
from docauth.errors import ImageTooSmall, InputError, ModelError
from docauth.imageio import encode_png
from docauth.store.db import Store

ROOT = Path(__file__).resolve().parent.parent
SPECIMEN = Path("mrz-specimens") / "passports" / "Canada.png"


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """The front door as a new process finds it: nothing loaded, no settings given, data under tmp_path."""
    monkeypatch.setattr(front, "_overrides", {})
    monkeypatch.setattr(front, "_loaded", {})
    monkeypatch.setenv("DOCAUTH_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


def _python(code: str, env_extra: dict, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env_extra}
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_import_is_cheap_and_writes_nothing(tmp_path):
    code = ("import sys, docauth; f = docauth.check; "
            "print(sorted(m for m in ('numpy', 'PIL', 'tensorflow', 'sqlalchemy', 'cv2') if m in sys.modules))")
    out = _python(code, {"DOCAUTH_DATA_DIR": str(tmp_path / "data")}, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("image", "words"), [
    (42, "not builtins.int"),
    ([[0, 0, 0]], "not builtins.list"),
    (np.zeros((20, 20, 3), dtype=np.float64), "not float64"),
    (np.zeros((20,), dtype=np.uint8), "not shape (20,)"),
    (np.zeros((20, 20, 2), dtype=np.uint8), "not shape (20, 20, 2)"),
])
def test_a_wrong_type_is_named_before_any_model_loads(fresh, image, words):
    with pytest.raises(front.WrongImageType) as err:
        docauth.check(image)
    assert words in err.value.message
    assert isinstance(err.value, TypeError) and isinstance(err.value, InputError)
    assert "pipeline" not in front._loaded


def test_path_bytes_pil_and_array_give_the_same_pixels(fresh):
    rgba = np.random.default_rng(0).integers(0, 255, (40, 60, 4), dtype=np.uint8)
    path = fresh / "a.png"
    path.write_bytes(encode_png(rgba[..., :3]))
    expected = docauth.image_array(str(path))
    assert expected.shape == (40, 60, 3) and expected.dtype == np.uint8
    for image in (path, path.read_bytes(), bytearray(path.read_bytes()), Image.open(path), expected,
                  np.dstack([expected, rgba[..., 3]])):
        assert np.array_equal(docauth.image_array(image), expected), type(image)
    grey = expected[..., 0]
    assert np.array_equal(docauth.image_array(grey), np.dstack([grey] * 3))


def test_a_pil_image_is_turned_upright_as_its_file_would_be(fresh):
    pixels = np.random.default_rng(1).integers(0, 255, (30, 50, 3), dtype=np.uint8)
    image = Image.fromarray(pixels)
    exif = image.getexif()
    exif[0x0112] = 6  # taken with the phone turned: rotate 90 degrees to view
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", exif=exif, quality=95)
    from_file = docauth.image_array(buffer.getvalue())
    assert from_file.shape == (50, 30, 3)
    assert np.array_equal(docauth.image_array(Image.open(io.BytesIO(buffer.getvalue()))), from_file)


def test_size_limits_hold_for_arrays_too(fresh):
    docauth.configure(min_image_side=16)
    with pytest.raises(ImageTooSmall):
        docauth.image_array(np.zeros((8, 100, 3), dtype=np.uint8))
    with pytest.raises(Exception, match="unknown setting"):
        docauth.configure(no_such_setting=1)


def test_a_failed_first_check_leaves_no_database_behind(fresh):
    (fresh / "no-models").mkdir()
    docauth.configure(models_dir=fresh / "no-models")
    with pytest.raises(ModelError):
        docauth.check(np.full((400, 600, 3), 200, dtype=np.uint8))
    assert not (fresh / "data" / "docauth.sqlite3").exists()


@pytest.mark.shared_data
def test_check_a_file_in_three_lines_on_a_fresh_data_folder(shared_data, tmp_path):
    code = ("import docauth, json, sys\n"
            "result = docauth.check(sys.argv[1])\n"
            "print(json.dumps(result.export()))\n")
    data = tmp_path / "data"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DOCAUTH_DATA_DIR": str(data)}
    out = subprocess.run([sys.executable, "-c", code, str(shared_data / SPECIMEN)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout)
    assert result["decision"] in ("accept", "review", "reject")
    assert result["document"]["is_document"] is True and result["document"]["kind"] == "TD3"
    assert result["stages"]["face"]["status"] == "ok"  # the face search ran: the database it needs was there
    assert Store(f"sqlite:///{data / 'docauth.sqlite3'}").current_revision() == Store.head_revision()


@pytest.mark.shared_data
def test_read_classify_and_compare_faces_take_any_image_type(shared_data, fresh):
    path = shared_data / SPECIMEN
    read = docauth.read(Image.open(path))
    assert read.mrz is not None and read.mrz.valid and read.fields["nationality"] == "CAN"
    side = docauth.classify(path.read_bytes())
    assert side.is_document and side.side == "open"
    same = docauth.compare_faces(str(path), docauth.image_array(path))
    assert same.match and same.distance == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(InputError, match="image b: no face"):
        docauth.compare_faces(path, np.full((300, 300, 3), 255, dtype=np.uint8))
