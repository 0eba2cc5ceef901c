"""The face descriptor on docauth's runtime layer (``models/face_embedder.onnx``).

dlib still finds the face and its five landmarks and cuts the aligned 150 px chip exactly as
``face_recognition.face_encodings`` does; the descriptor network that turns the chip into 128 numbers is dlib's
own ResNet converted to ONNX (``docauth train face-embedder``), run by ONNX Runtime or OpenVINO. dlib's build
convolves without BLAS, so the same arithmetic costs a fraction of the CPU there, and the encodings equal
dlib's within the model's stated tolerance: enrolled templates and the calibrated threshold stay valid.

The loaded model is this module's state, loaded on first use (never at import, never before a fork); callers
serialise their dlib calls themselves (see ``docauth.pipeline.faces``), the model itself is thread-safe.
"""

from __future__ import annotations

import threading

import numpy as np

from docauth.errors import ModelError
from docauth.face_encoding import ENCODING_SIZE
from docauth.matching import dlib_models

EMBEDDER_MODEL = "face_embedder"

#: The chip ``face_recognition.face_encodings`` cuts: dlib's default size and padding for its descriptor.
CHIP_SIZE = 150
CHIP_PADDING = 0.25

_load_lock = threading.Lock()
_model = None


def load_embedder(settings=None):
    """The face descriptor model, loaded once per process on first use."""
    global _model
    if _model is None:
        with _load_lock:
            if _model is None:
                from docauth.runtime import load_model  # deferred: it imports the chosen engine

                models_dir = settings.models_dir if settings is not None else None
                backend = settings.backend if settings is not None else None
                # Real-time mode always: every call already holds the face stage's dlib lock, so a
                # micro-batcher could gather nothing and would only add its queue delay.
                _model = load_model(EMBEDDER_MODEL, models_dir=models_dir, backend=backend, mode="realtime")
    return _model


def face_chips(image: np.ndarray, locations) -> np.ndarray:
    """(N, 150, 150, 3) uint8 aligned chips of the boxes ``(top, right, bottom, left)`` of an RGB uint8 image,
    cut from the 5-point landmarks as ``face_recognition.face_encodings`` cuts them."""
    dlib = dlib_models.dlib_module()
    shapes = dlib.full_object_detections()
    for shape in dlib_models.landmarks_5_point(image, locations):
        shapes.append(shape)
    chips = dlib.get_face_chips(image, shapes, size=CHIP_SIZE, padding=CHIP_PADDING)
    return np.stack([np.asarray(c, dtype=np.uint8) for c in chips])


def encode_chips(chips: np.ndarray, settings=None) -> np.ndarray:
    """(N, 128) float64 encodings of (N, 150, 150, 3) chips."""
    out = np.asarray(load_embedder(settings).predict(chips.astype(np.float32)), dtype=np.float64)
    if out.shape != (chips.shape[0], ENCODING_SIZE):
        raise ModelError(f"{EMBEDDER_MODEL} gave {out.shape}, expected ({chips.shape[0]}, {ENCODING_SIZE})")
    return out
