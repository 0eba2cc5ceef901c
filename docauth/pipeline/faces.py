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
    # A portrait's place (a rectified page is ~1,000 px wide) is searched at these (long side, upsampling) in turn:
    # the smaller copy costs less than half the larger and finds most portraits; HOG's misses differ by scale.
    REGION_LOOKS = ((400, 0), (800, 0))
    # The closer look, where those found nothing: the smaller copy upsampled once (a blurred or faint portrait).
    REGION_CLOSER_LOOKS = ((400, 1),)

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

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True, regions=None,
               closer: bool = False) -> tuple[np.ndarray | None, dict]:
        """(encoding or None, info). The two searches can be left out: ``upsampled`` (the detection copy
        upsampled once, ~90 ms) when it already found nothing, ``large`` (the larger copy, ~200 ms).
        ``regions`` ``[(x0, y0, x1, y1), ...]``: only there, the portrait's places on a rectified document
        (docauth.pipeline.portrait), where the face is large: each place at each of :data:`REGION_LOOKS`
        (``closer``: :data:`REGION_CLOSER_LOOKS`), the first face found is taken; the box and the encoding
        are the whole image's."""
        with _DLIB_LOCK:
            if regions is not None and self._locations is not None:
                return self._encode_regions(image, regions, self.REGION_CLOSER_LOOKS if closer else self.REGION_LOOKS)
            return self._encode(image, upsampled, large)

    def _encode_regions(self, image: np.ndarray, regions, looks) -> tuple[np.ndarray | None, dict]:
        info: dict = {"n_faces": 0}
        parts = []
        for region in regions:
            x0, y0, x1, y1 = (int(v) for v in region)
            parts.append(((x0, y0), np.ascontiguousarray(image[y0:y1, x0:x1])))
        tried = set()
        for long_side, upsample in looks:
            for (x0, y0), part in parts:
                size = min(max(part.shape[:2]), long_side)
                if not part.size or (x0, y0, size, upsample) in tried:  # a place smaller than a look: one search
                    continue
                tried.add((x0, y0, size, upsample))
                boxes = self._locations(part, upsample=upsample, long_side=size)
                if not boxes:
                    continue
                top, right, bottom, left = boxes[0]
                box = (top + y0, right + x0, bottom + y0, left + x0)
                # Encoded on the whole image: the aligned face crop may reach past the region's edge.
                (encoding,) = self._encodings(image, [box])
                info.update(n_faces=len(boxes), box=[int(v) for v in box], look=[long_side, upsample])
                return np.asarray(encoding, dtype=np.float64), info
        return None, info

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
