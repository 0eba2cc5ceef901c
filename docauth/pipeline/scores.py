"""Every score on one scale: 0-1, higher is better, the raw value and its scale kept beside it.

The raw ``scores`` of a result mix scales (a probability, a 0-100 MRZ score, face distances where lower is
better); ``scores_normalised`` says the same on 0-1. A distance ``d`` judged against a threshold ``t``
maps to ``1 - d / (2 t)``, clipped: 1 for identical faces, 0.5 at the threshold, 0 at twice the
threshold, so ">= 0.5" means "the same person" whatever the threshold is set to.

>>> n = normalise({"document": 0.97, "mrz": 80, "face_distance": 0.3}, face_threshold=0.6)
>>> n["document"]["score"], n["mrz"]["score"], n["face"]["score"], n["face"]["raw"]
(0.97, 0.8, 0.75, 0.3)
>>> normalise({"duplicate_distance": 0.45}, duplicate_threshold=0.45)["uniqueness"]["score"]
0.5
"""

from __future__ import annotations

import math


def _entry(score: float, raw: float, raw_scale: str, threshold: float | None = None) -> dict:
    out = {"score": round(min(1.0, max(0.0, score)), 4), "raw": raw, "raw_scale": raw_scale}
    if threshold is not None:
        out["threshold"] = threshold
    return out


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def similarity(distance: float, threshold: float) -> float:
    """A distance (lower is closer) on 0-1, higher is closer: 0.5 at ``threshold``."""
    return min(1.0, max(0.0, 1.0 - distance / (2.0 * threshold))) if threshold > 0 else float(distance <= 0)


def normalise(scores: dict, *, face_threshold: float | None = None,
              duplicate_threshold: float | None = None) -> dict:
    """``scores_normalised`` of a result's raw ``scores``: a key only where its raw score is there."""
    out: dict[str, dict] = {}
    document = _number(scores.get("document"))
    if document is not None:
        out["document"] = _entry(document, document, "probability")
    mrz = _number(scores.get("mrz"))
    if mrz is not None:
        out["mrz"] = _entry(mrz / 100.0, mrz, "0-100")
    text = _number(scores.get("text"))
    if text is not None:
        out["text"] = _entry(text, text, "similarity")
    face = _number(scores.get("face_distance"))
    if face is not None and face_threshold:
        out["face"] = _entry(similarity(face, face_threshold), face, "distance", face_threshold)
    duplicate = _number(scores.get("duplicate_distance"))
    if duplicate is not None and duplicate_threshold:
        # Higher is better here too: how unlike the nearest *other* enrolled person the face is.
        out["uniqueness"] = _entry(1.0 - similarity(duplicate, duplicate_threshold), duplicate, "distance",
                                   duplicate_threshold)
    return out
