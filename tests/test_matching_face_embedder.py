"""The face descriptor on the runtime layer gives dlib's encodings: real dlib (``face_recognition``) against the
shipped ``models/face_embedder.onnx`` on every engine here, on real face chips and document portraits."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from docauth.config import shared_data_dir
from docauth.errors import DocauthError
from docauth.matching import dlib_models, face, face_embedder
from docauth.runtime import load_model, load_metadata
from docauth.runtime.tolerance import tolerance_of
from face_support import document_page

MODELS = Path(__file__).resolve().parent.parent / "models"
FACES = shared_data_dir() / "faces" if shared_data_dir() else None
ENGINES = ["onnxruntime", "openvino"]


def _face_recognition():
    """The reference: face_recognition itself (its own copies of dlib's models), not docauth's loading of them.
    Its import turns on Pillow's loading of truncated files for the whole process; the setting is put back so
    that the tests after these see docauth's own."""
    from PIL import ImageFile

    truncated = ImageFile.LOAD_TRUNCATED_IMAGES
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pkg_resources deprecation noise
        import face_recognition
    ImageFile.LOAD_TRUNCATED_IMAGES = truncated
    return face_recognition


def _dlib_encodings(image, boxes) -> np.ndarray:
    return np.array(_face_recognition().face_encodings(image, known_face_locations=list(boxes), num_jitters=1,
                                                       model="small"))


def _chips(image, boxes) -> np.ndarray:
    return face_embedder.face_chips(image, boxes)


@pytest.fixture(scope="module")
def tolerance() -> float:
    return tolerance_of(load_metadata("face_embedder", MODELS))["max_abs_diff"]


@pytest.fixture(scope="module", params=ENGINES)
def engine(request):
    try:
        model = load_model("face_embedder", models_dir=MODELS, backend=request.param, mode="realtime")
    except DocauthError as exc:  # an engine this machine lacks is skipped, named
        pytest.skip(f"{request.param} cannot load here: {exc}")
    yield model
    model.close()


@pytest.fixture(scope="module")
def astronaut():
    import skimage.data

    return np.ascontiguousarray(skimage.data.astronaut()[..., :3])


@pytest.fixture(scope="module")
def cases(astronaut):
    """[(name, image, boxes)]: the astronaut, two generated document portraits of her, and every labelled real
    photo in ../shared/data/faces when it is there."""
    out = [("astronaut", astronaut, face.face_locations(astronaut))]
    box = out[0][2][0]
    for seed, (kind, style) in enumerate((("td1_front", "phone"), ("td3_open", "scan")), start=11):
        flat = document_page(astronaut, box, kind, style, seed)
        boxes = face.face_locations(flat, upsample=1)
        if boxes:
            out.append((f"{kind}-{style}", np.ascontiguousarray(flat), boxes[:1]))
    if FACES is not None and (FACES / "labels.csv").is_file():
        from docauth.imageio import load_image

        with open(FACES / "labels.csv", newline="") as fh:
            for row in csv.DictReader(fh):
                image = face._check_image(load_image(FACES / row["file"]))
                boxes = face.face_locations(image) or face.face_locations(image, upsample=1)
                if boxes:
                    out.append((row["file"], image, boxes))
    assert len(out) >= 2, "no document portrait was found again"
    return out


@pytest.fixture(scope="module")
def dlib_reference(cases):
    return {name: _dlib_encodings(image, boxes) for name, image, boxes in cases}


def test_the_model_states_a_tolerance_within_dlibs_float_noise(tolerance):
    assert tolerance <= 1e-4


def test_every_engine_gives_dlibs_encodings_on_real_and_document_faces(engine, cases, dlib_reference, tolerance):
    worst = 0.0
    for name, image, boxes in cases:
        got = np.asarray(engine.predict(_chips(image, boxes).astype(np.float32)), dtype=np.float64)
        diff = float(np.abs(got - dlib_reference[name]).max())
        assert diff <= tolerance, f"{engine.spec}: {name} differs from dlib by {diff:.2e}"
        worst = max(worst, diff)
    assert worst > 0.0 or len(cases) < 2  # the comparison ran on real numbers, not on a copy of dlib's output


def test_face_encodings_is_dlibs_with_the_boxes_given(cases, dlib_reference, tolerance):
    for name, image, boxes in cases[:3]:
        got = np.array(face.face_encodings(image, boxes))
        assert got.shape == (len(boxes), 128) and got.dtype == np.float64
        assert np.abs(got - dlib_reference[name]).max() <= tolerance, name


def test_a_batch_of_chips_encodes_as_each_chip_alone(cases):
    name, image, boxes = next(c for c in cases if len(c[2]) > 1) if any(len(c[2]) > 1 for c in cases) else (
        cases[0][0], cases[0][1], cases[0][2] * 2)
    chips = _chips(image, boxes)
    together = face_embedder.encode_chips(chips)
    alone = np.concatenate([face_embedder.encode_chips(chips[i:i + 1]) for i in range(len(chips))])
    assert np.abs(together - alone).max() <= 1e-5


def test_detection_gives_face_recognitions_boxes(cases):
    fr = _face_recognition()
    for name, image, _boxes in cases[:3]:
        for upsample in (0, 1):
            expected = fr.face_locations(image, number_of_times_to_upsample=upsample, model="hog")
            assert dlib_models.hog_face_locations(image, upsample) == expected, (name, upsample)


def test_a_check_loads_neither_face_recognition_nor_dlibs_descriptor():
    # face_recognition would load all of dlib's face models (the 68-point predictor alone is about 100 MB) in
    # every face process; a check needs the detector and the 5-point predictor only.
    code = ("import sys, numpy as np, skimage.data; from docauth.matching import face, dlib_models; "
            "image = np.ascontiguousarray(skimage.data.astronaut()[..., :3]); "
            "assert len(face.face_encodings(image)) == 1; "
            "print(sorted(set(sys.modules) & {'face_recognition', 'face_recognition_models', 'pkg_resources'}), "
            "sorted(dlib_models._models))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split() == ["[]", "['detector',", "'pose_5']"]


def test_jittered_encodings_still_come_from_dlib(astronaut):
    boxes = face.face_locations(astronaut)
    (plain,) = face.face_encodings(astronaut, boxes)
    (jittered,) = face.face_encodings(astronaut, boxes, num_jitters=2)
    assert 0.0 < face.face_distance(plain, jittered) < 0.2  # random perturbations: near, never equal


def test_the_shipped_model_is_what_the_converter_writes_from_dlibs_file(tmp_path):
    from docauth.training import face_model

    built = face_model.build(face_model.dlib_model_file(), tmp_path)
    assert built.read_bytes() == (MODELS / "face_embedder.onnx").read_bytes()


def test_setup_builds_the_recorded_file_and_refuses_another(tmp_path):
    # scripts/setup builds the ONNX file (it is not kept in git) and checks it against the tracked .json.
    from click.testing import CliRunner

    from docauth.training.face_model import convert_face_embedder

    recorded = json.loads((MODELS / "face_embedder.json").read_text())
    (tmp_path / "face_embedder.json").write_text(json.dumps(recorded))
    result = CliRunner().invoke(convert_face_embedder, ["--onnx-only", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "face_embedder.onnx").read_bytes() == (MODELS / "face_embedder.onnx").read_bytes()
    assert json.loads((tmp_path / "face_embedder.json").read_text()) == recorded  # the .json left as tracked
    recorded["sha256"]["face_embedder.onnx"] = "0" * 64
    (tmp_path / "face_embedder.json").write_text(json.dumps(recorded))
    result = CliRunner().invoke(convert_face_embedder, ["--onnx-only", "--out", str(tmp_path)])
    assert result.exit_code != 0 and "face_embedder.onnx" in result.output
    assert not (tmp_path / "face_embedder.onnx").exists()  # no file the loader would refuse later


def test_the_converter_refuses_a_file_that_is_not_the_network(tmp_path):
    from docauth.training import face_model

    source = face_model.dlib_model_file().read_bytes()
    truncated = tmp_path / "truncated.dat"
    truncated.write_bytes(source[: len(source) // 2])
    with pytest.raises(face_model.DlibFormatError):
        face_model.read_dlib_network(truncated)
    extended = tmp_path / "extended.dat"
    extended.write_bytes(source + b"\x01\x00")
    with pytest.raises(face_model.DlibFormatError, match="bytes left"):
        face_model.read_dlib_network(extended)
