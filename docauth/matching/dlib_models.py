"""dlib's face models, each loaded from ``face_recognition_models``' files when first asked for, used with
``face_recognition``'s conventions.

Importing ``face_recognition`` loads all of its models at once: the 68-point landmark predictor (about 100 MB in
memory), the CNN detector and dlib's descriptor network, in every process that imports it. A check needs only
the HOG detector and the 5-point predictor (the descriptor runs on the runtime layer,
:mod:`docauth.matching.face_embedder`); dlib's descriptor network serves jittered encodings alone and is loaded
only when one is asked for. Boxes are ``face_recognition``'s: ``(top, right, bottom, left)``, trimmed to the image,
so detections and encodings are the values ``face_recognition`` gives.

The models are this module's state, loaded on first use (never at import, never before a fork). dlib's models
are not thread-safe: callers serialise their calls (``docauth.pipeline.faces``).
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

import numpy as np

from docauth.errors import ModelError

MODELS_PACKAGE = "face_recognition_models"
FIVE_POINT_FILE = "shape_predictor_5_face_landmarks.dat"
DESCRIPTOR_FILE = "dlib_face_recognition_resnet_model_v1.dat"

Box = tuple[int, int, int, int]  # (top, right, bottom, left)

_load_lock = threading.Lock()
_models: dict = {}


def model_file(name: str) -> Path:
    """The path of one of ``face_recognition_models``' files."""
    # The package's folder is found without importing it: its __init__ imports pkg_resources (slow, and
    # deprecated) only to name these files.
    spec = importlib.util.find_spec(MODELS_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        raise ModelError(f"the {MODELS_PACKAGE} package is not installed (dlib's face models)")
    path = Path(folders[0]) / "models" / name
    if not path.is_file():
        raise ModelError(f"{path} is missing: reinstall {MODELS_PACKAGE}")
    return path


def dlib_module():
    import dlib  # deferred on purpose: a process that never sees a face never loads it

    return dlib


def _loaded(key: str, make):
    model = _models.get(key)
    if model is None:
        with _load_lock:
            model = _models.get(key)
            if model is None:
                model = _models[key] = make()
    return model


def detector():
    """dlib's HOG frontal face detector (``face_recognition``'s ``model="hog"``)."""
    return _loaded("detector", lambda: dlib_module().get_frontal_face_detector())


def pose_predictor_5_point():
    """The 5-point landmark predictor the aligned chip is cut from."""
    return _loaded("pose_5", lambda: dlib_module().shape_predictor(str(model_file(FIVE_POINT_FILE))))


def face_encoder():
    """dlib's own descriptor network, for jittered encodings only."""
    return _loaded("encoder", lambda: dlib_module().face_recognition_model_v1(str(model_file(DESCRIPTOR_FILE))))


def load_detection() -> None:
    """The detector and the 5-point predictor now (a check's first face need not wait for them)."""
    detector()
    pose_predictor_5_point()


def hog_face_locations(image: np.ndarray, upsample: int) -> list[Box]:
    """``face_recognition.face_locations(image, upsample, model="hog")``."""
    height, width = image.shape[:2]
    return [(max(r.top(), 0), min(r.right(), width), min(r.bottom(), height), max(r.left(), 0))
            for r in detector()(image, upsample)]


def landmarks_5_point(image: np.ndarray, locations) -> list:
    """dlib's 5-point shapes of the boxes ``(top, right, bottom, left)``."""
    dlib = dlib_module()
    predictor = pose_predictor_5_point()
    return [predictor(image, dlib.rectangle(int(left), int(top), int(right), int(bottom)))
            for top, right, bottom, left in locations]


def jittered_encodings(image: np.ndarray, locations, num_jitters: int) -> list[np.ndarray]:
    """``face_recognition.face_encodings(image, locations, num_jitters, model="small")``: dlib's network on
    randomly perturbed chips, averaged."""
    encoder = face_encoder()
    return [np.array(encoder.compute_face_descriptor(image, shape, num_jitters))
            for shape in landmarks_5_point(image, locations)]
