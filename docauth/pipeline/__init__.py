"""The whole check: classify -> side -> OCR/MRZ -> face 1:1 and 1:N -> text match -> decision.

    from docauth.pipeline import Pipeline
    pipeline = Pipeline.load(settings)
    result = pipeline.check(image, person_id=7)
    result.decision, result.reason_codes, result.export()
"""

from docauth.pipeline.pipeline import Pipeline, Thresholds
from docauth.pipeline.policy import REASONS, DecisionPolicy
from docauth.pipeline.result import CheckResult, Reason, StageRecord

__all__ = ["CheckResult", "DecisionPolicy", "Pipeline", "REASONS", "Reason", "StageRecord", "Thresholds"]
