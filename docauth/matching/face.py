"""Face detection, encoding and 1:1 verification (dlib's detector and landmarks, :mod:`docauth.matching.dlib_models`;
the descriptor network on the runtime layer, :mod:`docauth.matching.face_embedder`).

A tiny API of plain functions in the style of ``face_recognition``: numpy arrays
in, numpy arrays and tuples out; dlib types never cross this module's boundary.

Boxes are ``(top, right, bottom, left)`` in pixels of the image passed in (the
``face_recognition`` convention). Detection runs the HOG detector on a copy
downscaled to about :data:`DETECTION_LONG_SIDE` pixels (fast, and HOG is tuned
for faces of ~80-200 px), then scales the boxes back; encodings are computed on
the full-resolution image.

dlib and the two models a check needs are loaded on first use (about half a second), not on import.

The verification threshold :data:`DEFAULT_FACE_THRESHOLD` was calibrated from
data (``docauth eval faces``; see docs/matching.md), not the library default 0.6.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import cv2
import numpy as np

from docauth.config import DEFAULT_FACE_THRESHOLD
from docauth.errors import InputError, InvalidImage
from docauth.face_encoding import ENCODING_SIZE
from docauth.matching import dlib_models, face_embedder


#: Long side (px) of the copy the HOG detector runs on.
DETECTION_LONG_SIDE = 512

#: Two detections count as "several faces" for an enrolment photo only when the
#: smaller is at least this fraction of the largest face's side: HOG fires now
#: and then on small face-like textures, which must not reject a good photo.
SIGNIFICANT_FACE_RATIO = 0.5

Box = dlib_models.Box  # (top, right, bottom, left)


def load_dlib() -> None:
    """dlib's detector and 5-point predictor, loaded now rather than on the first face."""
    dlib_models.load_detection()


def _check_image(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray):
        raise InvalidImage(f"expected an image array, got {type(image).__name__}")
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise InvalidImage(f"expected an RGB image (H, W, 3), got shape {image.shape}")
    if image.shape[2] == 4:
        image = image[:, :, :3]
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(image)


def _resize(image: np.ndarray, scale: float) -> np.ndarray:
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(image, size, interpolation=interpolation)


def box_area(box: Box) -> int:
    top, right, bottom, left = box
    return max(0, bottom - top) * max(0, right - left)


def face_locations(image: np.ndarray, upsample: int = 0, long_side: int = DETECTION_LONG_SIDE) -> list[Box]:
    """Boxes ``(top, right, bottom, left)`` of the faces HOG finds, largest first.

    ``upsample`` doubles the detection copy that many times (finds smaller faces,
    four times slower per step).
    """
    image = _check_image(image)
    h, w = image.shape[:2]
    scale = min(1.0, long_side / max(h, w))
    small = _resize(image, scale) if scale < 1.0 else image
    raw = dlib_models.hog_face_locations(small, upsample)
    boxes = []
    for top, right, bottom, left in raw:
        box = (
            max(0, int(round(top / scale))),
            min(w, int(round(right / scale))),
            min(h, int(round(bottom / scale))),
            max(0, int(round(left / scale))),
        )
        if box_area(box) > 0:
            boxes.append(box)
    boxes.sort(key=box_area, reverse=True)
    return boxes


def face_encodings(image: np.ndarray, locations: list[Box] | None = None, num_jitters: int = 1) -> list[np.ndarray]:
    """128-d float64 encodings, one per box (detected when ``locations`` is None): the values of
    ``face_recognition.face_encodings(image, locations, num_jitters, model="small")``."""
    image = _check_image(image)
    if locations is None:
        locations = face_locations(image)
    if not locations:
        return []
    if num_jitters != 1:
        # Jittered encodings average randomly perturbed chips, which only dlib's own path draws.
        raw = dlib_models.jittered_encodings(image, list(locations), num_jitters)
        return [np.asarray(e, dtype=np.float64) for e in raw]
    return list(face_embedder.encode_chips(face_embedder.face_chips(image, locations)))


@dataclass(frozen=True)
class FaceEncoding:
    """The encoding of one face, where it was, and how many faces the image had."""

    encoding: np.ndarray  # (128,) float64
    box: Box
    n_faces: int

    def export(self, include_encoding: bool = False) -> dict:
        out = {"box": [int(v) for v in self.box], "n_faces": int(self.n_faces)}
        if include_encoding:
            out["encoding"] = [float(v) for v in self.encoding]
        return out


@dataclass(frozen=True)
class FaceOutcome:
    """What an image gave: ``status`` is ``"ok"``, ``"no_face"`` or ``"multiple_faces"``."""

    status: str
    face: FaceEncoding | None
    n_faces: int
    boxes: list[Box] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def message(self) -> str:
        if self.status == "no_face":
            return "no face was found"
        if self.status == "multiple_faces":
            return f"{self.n_faces} faces were found; exactly one is required"
        return "one face"

    def raise_for_status(self, source: str = "image") -> FaceEncoding:
        """The face, or an :class:`InputError` naming ``source``."""
        if self.status != "ok" or self.face is None:
            raise InputError(f"{source}: {self.message}", code=self.status, details={"n_faces": self.n_faces})
        return self.face

    def export(self) -> dict:
        return {
            "status": self.status,
            "n_faces": int(self.n_faces),
            "boxes": [[int(v) for v in b] for b in self.boxes],
            "face": self.face.export() if self.face else None,
        }


def _detect_with_retry(image: np.ndarray) -> list[Box]:
    boxes = face_locations(image, upsample=0)
    if not boxes:
        # Small faces (a document portrait, a low-resolution photo) need one
        # upsampling step; only images without a face pay for it.
        boxes = face_locations(image, upsample=1)
    return boxes


def encode_largest_face(image: np.ndarray) -> FaceEncoding | None:
    """Encoding of the largest face (HOG also fires on non-faces, which are small), or None."""
    image = _check_image(image)
    boxes = _detect_with_retry(image)
    if not boxes:
        return None
    (encoding,) = face_encodings(image, [boxes[0]])
    return FaceEncoding(encoding=encoding, box=boxes[0], n_faces=len(boxes))


def encode_face(image: np.ndarray, *, allow_multiple: bool) -> FaceOutcome:
    """Encode the one face of an image, reporting no face / several faces.

    ``allow_multiple=False`` (an enrolment photo): two or more significant
    faces is the outcome ``"multiple_faces"``. ``allow_multiple=True`` (a
    document portrait, where HOG may also fire on a ghost image or the
    background): the largest face is used.
    """
    image = _check_image(image)
    boxes = _detect_with_retry(image)
    if not boxes:
        return FaceOutcome(status="no_face", face=None, n_faces=0, boxes=[])
    largest_side = np.sqrt(box_area(boxes[0]))
    significant = [b for b in boxes if np.sqrt(box_area(b)) >= SIGNIFICANT_FACE_RATIO * largest_side]
    if len(significant) > 1 and not allow_multiple:
        return FaceOutcome(status="multiple_faces", face=None, n_faces=len(boxes), boxes=boxes)
    (encoding,) = face_encodings(image, [boxes[0]])
    face = FaceEncoding(encoding=encoding, box=boxes[0], n_faces=len(boxes))
    return FaceOutcome(status="ok", face=face, n_faces=len(boxes), boxes=boxes)


def face_distance(known: np.ndarray, candidate: np.ndarray) -> np.ndarray | float:
    """Euclidean distance: ``known`` (N, 128) -> (N,) array; (128,) -> float."""
    known = np.asarray(known, dtype=np.float64)
    candidate = np.asarray(candidate, dtype=np.float64).reshape(-1)
    if known.ndim == 1:
        return float(np.linalg.norm(known - candidate))
    if known.size == 0:
        return np.empty((0,), dtype=np.float64)
    return np.linalg.norm(known - candidate[None, :], axis=1)


def photo_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _as_vector(value) -> np.ndarray:
    if isinstance(value, FaceEncoding):
        value = value.encoding
    vec = np.asarray(value, dtype=np.float64).reshape(-1)
    if vec.shape != (ENCODING_SIZE,):
        raise InputError(f"a face encoding has {ENCODING_SIZE} values, got {vec.shape[0]}")
    return vec


@dataclass(frozen=True)
class FaceMatch:
    distance: float
    match: bool
    threshold: float

    def export(self) -> dict:
        return {"distance": round(float(self.distance), 6), "match": bool(self.match), "threshold": float(self.threshold)}


class FaceMatcher:
    """1:1 verification: same person when the distance is at most ``threshold``."""

    def __init__(self, threshold: float | None = None):
        self.threshold = float(DEFAULT_FACE_THRESHOLD if threshold is None else threshold)
        if not 0.0 < self.threshold < 2.0:
            raise InputError(f"face threshold must be in (0, 2), got {self.threshold}")

    def verify(self, a, b) -> FaceMatch:
        distance = face_distance(_as_vector(a), _as_vector(b))
        return FaceMatch(distance=distance, match=distance <= self.threshold, threshold=self.threshold)

    def verify_any(self, templates: np.ndarray, candidate) -> FaceMatch:
        """Best of several enrolled templates of one person against a candidate."""
        templates = np.asarray(templates, dtype=np.float64).reshape(-1, ENCODING_SIZE)
        if templates.shape[0] == 0:
            raise InputError("the person has no enrolled face template")
        distance = float(np.min(face_distance(templates, _as_vector(candidate))))
        return FaceMatch(distance=distance, match=distance <= self.threshold, threshold=self.threshold)

    __call__ = verify
