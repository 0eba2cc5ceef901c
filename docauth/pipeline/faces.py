"""The face stage in process: the document portrait's encoding (dlib's detector and landmarks, the descriptor
model on the runtime layer, through :mod:`docauth.matching.face`) and its distances to enrolled templates."""

from __future__ import annotations

import threading

import numpy as np

from docauth.matching import face, face_embedder

# dlib's detector and landmark predictor (docauth.matching.dlib_models, one per process) are not thread-safe:
# two threads in them at once crash the process (SIGSEGV). Every call goes through this. dlib also holds the
# GIL for its whole call, which stalls every other thread (see docauth.pipeline.face_process).
_DLIB_LOCK = threading.Lock()


class FaceStage:
    """Encode the document portrait (largest face) and measure distances to templates.

    Calls into dlib are serialised by a process-wide lock (see ``_DLIB_LOCK``), so it serves one call at a
    time. Realtime checks run this stage in child processes instead (:mod:`docauth.pipeline.face_process`).

    A portrait covers a few percent of a document photo (less on a two-page
    passport spread), so faces are searched on the matching stage's detection
    copy upsampled once, and when that finds none, on a larger copy (up to
    :data:`DOCUMENT_DETECTION_LONG_SIDE` pixels; ``encode(large=False)`` skips it).
    """

    DOCUMENT_DETECTION_LONG_SIDE = 1600
    # A portrait's place is searched at its own size up to this (a rectified page is ~1,000 px wide).
    REGION_DETECTION_LONG_SIDE = 800

    def __init__(self, encode_face, face_distance, face_locations=None, face_encodings=None):
        self._encode_face = encode_face
        self._distance = face_distance
        self._locations = face_locations
        self._encodings = face_encodings

    @property
    def concurrent_calls(self) -> int:
        return 1

    @classmethod
    def load(cls, settings=None) -> "FaceStage":
        stage = cls(face.encode_face, face.face_distance, face.face_locations, face.face_encodings)
        face.load_dlib()  # dlib's detector and landmark predictor now, not on the first request
        face_embedder.load_embedder(settings)  # likewise the descriptor model (its engine choice included)
        return stage

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True, region=None
               ) -> tuple[np.ndarray | None, dict]:
        """(encoding or None, info). The two searches can be left out: ``upsampled`` (the detection copy
        upsampled once, ~90 ms) when it already found nothing, ``large`` (the larger copy, ~200 ms).
        ``region`` ``(x0, y0, x1, y1)``: only there, the portrait's place on a rectified document
        (docauth.pipeline.portrait), where the face is large: one plain search of it at its own size; the
        box and the encoding are the whole image's."""
        with _DLIB_LOCK:
            if region is not None and self._locations is not None:
                return self._encode_region(image, region)
            return self._encode(image, upsampled, large)

    def _encode_region(self, image: np.ndarray, region) -> tuple[np.ndarray | None, dict]:
        x0, y0, x1, y1 = (int(v) for v in region)
        part = np.ascontiguousarray(image[y0:y1, x0:x1])
        long_side = min(max(part.shape[:2]), self.REGION_DETECTION_LONG_SIDE)
        boxes = self._locations(part, upsample=0, long_side=long_side) if part.size else []
        info = {"n_faces": len(boxes)}
        if not boxes:
            return None, info
        top, right, bottom, left = boxes[0]
        box = (top + y0, right + x0, bottom + y0, left + x0)
        # Encoded on the whole image: the aligned face crop may reach past the region's edge.
        (encoding,) = self._encodings(image, [box])
        info["box"] = [int(v) for v in box]
        return np.asarray(encoding, dtype=np.float64), info

    def _encode(self, image: np.ndarray, upsampled: bool, large: bool) -> tuple[np.ndarray | None, dict]:
        if self._locations is None:
            if not upsampled:
                return None, {"n_faces": 0}  # this stage has one search only, and it found nothing
            outcome = self._encode_face(image, allow_multiple=True)
            info = {"n_faces": int(outcome.n_faces)}
            if outcome.face is None:
                return None, info
            info["box"] = [int(v) for v in outcome.face.box]
            return np.asarray(outcome.face.encoding, dtype=np.float64), info
        # A portrait is a small part of a document photo, too small for the plain search (no upsampling),
        # so the finer one comes first.
        boxes = self._locations(image, upsample=1) if upsampled else []
        info = {"n_faces": len(boxes)}
        long_side = min(max(image.shape[:2]), self.DOCUMENT_DETECTION_LONG_SIDE)
        if not boxes and large and long_side > 1024:  # 512 px upsampled once is already 1024
            boxes = self._locations(image, upsample=0, long_side=long_side)
            info.update(n_faces=len(boxes), detection_long_side=long_side)
        if not boxes:
            return None, info
        (encoding,) = self._encodings(image, [boxes[0]])
        info["box"] = [int(v) for v in boxes[0]]
        return np.asarray(encoding, dtype=np.float64), info

    def encode_enrolment(self, image: np.ndarray) -> np.ndarray:
        """Exactly one face, or an input error saying why (no face / several)."""
        with _DLIB_LOCK:
            outcome = self._encode_face(image, allow_multiple=False)
        return np.asarray(outcome.raise_for_status("photo").encoding, dtype=np.float64)

    def distance(self, templates: np.ndarray, encoding: np.ndarray) -> np.ndarray:
        return np.atleast_1d(self._distance(np.asarray(templates).reshape(-1, encoding.shape[-1]), encoding))
