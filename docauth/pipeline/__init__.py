"""The whole check: classify -> side -> OCR/MRZ -> face 1:1 and 1:N -> text match -> decision.

    from docauth.pipeline import Pipeline
    pipeline = Pipeline.load(settings)
    result = pipeline.check(image, person_id=7)
    result.decision, result.reason_codes, result.export()

The names are imported when first used, not on package import: a face process
(``python -m docauth.pipeline.face_child``) imports this package and needs none of the check's stages.
"""

from __future__ import annotations

from docauth.lazy_names import lazy_getattr

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


__getattr__ = lazy_getattr(__name__, _LAZY)
