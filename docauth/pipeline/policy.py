"""Decision policy: which reasons reject, which send a check to a human, which ask for a new photo.

Configuration, not code: ``Settings.reject_reasons`` lists the codes that
reject (comma-separated, ``DOCAUTH_REJECT_REASONS``); the capture-quality
reasons (:mod:`docauth.pipeline.quality`) ask the customer to take the photo
again (``retake``, over any other answer); every other reason asks for review;
no reason at all accepts.

>>> p = DecisionPolicy(reject={"face_mismatch"})
>>> p.decide(["face_mismatch", "mrz_not_found"])
'reject'
>>> p.decide(["mrz_not_found"]), p.decide([])
('review', 'accept')
>>> p.decide(["face_mismatch", "capture_blurred"])
'retake'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docauth.config import Settings
from docauth.pipeline.quality import QUALITY_REASONS
from docauth.pipeline.result import ACCEPT, REJECT, RETAKE, REVIEW, CheckResult, Reason

# Every reason the pipeline can give, with what it means (also served in the OpenAPI document).
REASONS: dict[str, str] = {
    "not_a_document": "the image is not an identity document",
    "side_unknown": "the side of the document could not be told with confidence",
    "mrz_not_found": "no machine-readable zone was read on a side that carries one",
    "mrz_invalid": "the machine-readable zone fails its check digits",
    "viz_mrz_mismatch": "the printed fields disagree with the machine-readable zone",
    "expired": "the document's expiry date has passed",
    "face_not_found": "no face was found on the document",
    "face_not_checked": "the face was not compared (the person has no enrolled photo, or this side has no portrait)",
    "face_mismatch": "the document's face differs from the person's enrolled photos",
    "name_mismatch": "the name differs from the person's record",
    "dob_mismatch": "the birth date differs from the person's record",
    "document_number_mismatch": "the document number differs from the person's record",
    "printed_name_mismatch": "the name read from the printed zone differs from the person's record; no check digit "
                             "confirms the reading, so it may be an OCR misread",
    "printed_dob_mismatch": "the birth date read from the printed zone differs from the person's record; no check "
                            "digit confirms the reading, so it may be an OCR misread",
    "printed_document_number_mismatch": "the document number read from the printed zone differs from the person's "
                                        "record; no check digit confirms the reading, so it may be an OCR misread",
    "sex_mismatch": "the sex differs from the person's record",
    "nationality_mismatch": "the nationality differs from the person's record",
    "text_not_checked": "neither a name nor the document number could be compared with the person's record",
    "duplicate_identity": "the document's face matches another enrolled person",
    "no_person": "no person was given, so ownership was not verified",
    "stage_failed": "a stage failed; see stages for the error",
    "capture_blurred": "the photo is out of focus or shaken: ask the customer for a sharp photo",
    "capture_glare": "a reflection hides part of the document: ask for a photo without glare",
    "capture_cut_off": "part of the document is outside the photo: ask for a photo showing all four corners",
    "capture_too_small": "the document is too small in the photo to read: ask for a closer photo",
    "capture_too_dark": "the photo is too dark to read: ask for a photo in better light",
}

# Not a reason: the OCR stage's note when the zone passes every check digit but the reader was unsure of a
# character no check digit covers; the zone is then not reported valid, and the decision does not change.
MRZ_UNSURE_NOTE = ("the machine-readable zone passes its check digits, but characters no check digit covers "
                   "were read unsurely, so it is not reported valid")

DEFAULT_REJECT = (
    "not_a_document,mrz_invalid,expired,face_mismatch,name_mismatch,dob_mismatch,"
    "document_number_mismatch,duplicate_identity"
)


@dataclass(frozen=True)
class DecisionPolicy:
    reject: frozenset[str] = field(default_factory=lambda: frozenset(DEFAULT_REJECT.split(",")))

    def __init__(self, reject=None):
        object.__setattr__(self, "reject", frozenset(reject if reject is not None else DEFAULT_REJECT.split(",")))

    @classmethod
    def from_settings(cls, settings: Settings) -> "DecisionPolicy":
        raw = settings.reject_reasons or DEFAULT_REJECT
        return cls({code.strip() for code in raw.split(",") if code.strip()})

    def severity(self, code: str) -> str:
        if code in QUALITY_REASONS:
            return RETAKE
        return REJECT if code in self.reject else REVIEW

    def decide(self, codes) -> str:
        codes = list(codes)
        if any(c in QUALITY_REASONS for c in codes):
            return RETAKE  # nothing read from a poor capture is trusted, a rejecting reason included
        if any(c in self.reject for c in codes):
            return REJECT
        return REVIEW if codes else ACCEPT

    def apply(self, result: CheckResult) -> CheckResult:
        result.reasons = [Reason(r.code, r.stage, r.message, self.severity(r.code)) for r in result.reasons]
        # The reasons behind the answer first (retake, then reject); review reasons are context.
        result.reasons.sort(key=lambda r: (r.severity != RETAKE, r.severity != REJECT))
        result.decision = self.decide(result.reason_codes)
        return result
