"""Where things are on the upright, rectified document: the boxes the review desk draws.

    geometry = document_geometry(ocr, face_output)
    # {"width": 1000, "height": 704, "mrz": [x0, y0, x1, y1], "face": [...], "fields": {"surname": [...]}}

Every box is ``[x0, y0, x1, y1]`` in pixels of the rectified document (``width`` x ``height``), the image
the OCR stage read and the desk shows. Numbers only: the image itself never enters a result.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.pipeline.contracts import DocumentRead


def _box(values) -> list[int] | None:
    try:
        x0, y0, x1, y1 = (int(round(float(v))) for v in values)
    except (TypeError, ValueError):
        return None
    return [x0, y0, x1, y1] if x1 > x0 and y1 > y0 else None


def _clipped(box: list[float], width: int, height: int) -> list[int] | None:
    x0, y0, x1, y1 = box
    return _box([max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1)])


def photo_to_document(corners, width: int, height: int) -> np.ndarray:
    """The homography from photo pixels to the upright document's pixels (corners: TL, TR, BR, BL)."""
    src = np.asarray(corners, np.float32).reshape(4, 2)
    dst = np.float32([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]])
    return cv2.getPerspectiveTransform(src, dst)


def _face_box(face: dict, corners, width: int, height: int) -> list[int] | None:
    """The portrait's box on the document, from the face stage's box on whatever it searched last."""
    box = face.get("box") if isinstance(face, dict) else None
    if not box or len(box) != 4:
        return None
    top, right, bottom, left = (float(v) for v in box)  # face_recognition's order
    searched = str(face.get("searched") or "photo").split(", ")[-1]
    if searched in ("rectified", "rectified portrait", "rectified portrait (closer)"):  # in the page's pixels
        return _clipped([left, top, right, bottom], width, height)
    if searched == "rectified turned 180":
        return _clipped([width - right, height - bottom, width - left, height - top], width, height)
    if corners is None:
        return None
    points = np.float32([[left, top], [right, top], [right, bottom], [left, bottom]]).reshape(-1, 1, 2)
    mapped = cv2.perspectiveTransform(points, photo_to_document(corners, width, height)).reshape(-1, 2)
    x0, y0 = mapped.min(0)
    x1, y1 = mapped.max(0)
    return _clipped([float(x0), float(y0), float(x1), float(y1)], width, height)


def document_geometry(ocr: DocumentRead, face: dict | None = None) -> dict | None:
    """Boxes on the rectified document, or None when OCR made none."""
    view = ocr.document
    rectified = view.rectified if view is not None else None
    if not isinstance(rectified, np.ndarray) or not rectified.size:
        return None
    height, width = (int(v) for v in rectified.shape[:2])
    out: dict = {"width": width, "height": height, "mrz": None, "face": None, "fields": {}}
    top = ocr.mrz.zone_top if ocr.mrz is not None else None
    if top is not None and 0.0 <= float(top) < 1.0:
        # The zone runs across the document's width from where the reader found its top to the bottom edge.
        out["mrz"] = _box([0, float(top) * height, width, height])
    for name, read in (ocr.printed or {}).items():
        box = _box(read.get("box")) if isinstance(read, dict) else None
        if box is not None:
            out["fields"][name] = _clipped(box, width, height)
    if face:
        out["face"] = _face_box(face, view.corners, width, height)
    return out
