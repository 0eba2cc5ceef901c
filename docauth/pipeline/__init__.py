"""The whole check: classify -> side -> OCR/MRZ -> face 1:1 and 1:N -> text match -> decision.

    from docauth.pipeline import Pipeline
    pipeline = Pipeline.load(settings)
    result = pipeline.check(image, person_id=7)
    result.decision, result.reason_codes, result.export()

The names are imported when first used, not on package import: a face process
(``python -m docauth.pipeline.face_child``) imports this package and needs none of the check's stages.
"""

from __future__ import annotations

__all__ = ["CheckResult", "DecisionPolicy", "Pipeline", "REASONS", "Reason", "StageRecord", "Thresholds"]

_LAZY = {
    "Pipeline": "docauth.pipeline.pipeline",
    "Thresholds": "docauth.pipeline.pipeline",
    "REASONS": "docauth.pipeline.policy",
    "DecisionPolicy": "docauth.pipeline.policy",
    "CheckResult": "docauth.pipeline.result",
    "Reason": "docauth.pipeline.result",
    "StageRecord": "docauth.pipeline.result",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'docauth.pipeline' has no attribute {name!r}")
