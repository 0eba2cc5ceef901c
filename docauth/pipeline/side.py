"""Which side a document shows: one decision from the same evidence for the check, ``/v1/classify`` and
``docauth classify``.

    decision = decide_side(SideEvidence(model_side="front", model_scores={...}, mrz_kind="TD3", mrz_valid=True))
    decision.side, decision.source, decision.model_side      # 'open', 'mrz', 'front'

Evidence, strongest first:

1. A valid MRZ in a format ICAO 9303 prints on one face only: TD1 (3 x 30) on the back of a card, TD3 (2 x 44)
   on a passport's data page (``open``), MRV-A / MRV-B on a visa sticker (``front``, the labels' convention).
2. A valid TD2 (2 x 36) zone: issuers print it on a card's front or back, so it says only "a card face, not an
   open booklet"; when the model answered ``open`` its better card face is taken.
3. The side model.

A zone that fails its check digits proves its format only when its layout holds and two of its check digits
pass (``MRZResult.format_sure``): a misread line count or length changes the format and leaves no check in
place, while a specimen's or a misread digit's failing check leaves the format as it is. The
portrait is no evidence of the side: the backs of current ID cards carry a secondary portrait too, and the
check searches for a face only after it needs the side.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from docauth.classifiers.stage import Classification as ClassifierAnswer
from docauth.ocr.reader import SIDES_WITHOUT_MRZ
from docauth.pipeline.contracts import Classification, ZoneFinder

# MRZ formats printed on one face only, and that face.
SIDE_OF_MRZ = {"TD1": "back", "TD3": "open", "MRVA": "front", "MRVB": "front"}
# Formats printed on a card face, front or back by design: they rule out an open booklet only.
CARD_FACE_MRZ = {"TD2"}
CARD_FACES = ("front", "back")
SOURCE_MODEL = "model"
SOURCE_MRZ = "mrz"


@dataclass(frozen=True)
class SideEvidence:
    model_side: str | None  # the side model's answer (None: not a document, or no side model)
    model_scores: dict = field(default_factory=dict)  # its probabilities per side
    mrz_kind: str | None = None  # the format of the MRZ read (TD1, TD2, TD3, MRVA, MRVB), None when none
    mrz_valid: bool = False  # every check digit of that zone passes
    mrz_format_sure: bool = False  # the zone's format is certain, its check digits aside (MRZResult.format_sure)


@dataclass(frozen=True)
class SideDecision:
    side: str | None
    source: str | None  # "mrz" when the zone decided, "model" when the model's answer stands; None: no side
    model_side: str | None  # the side model's own answer, kept beside the decision


def decide_side(evidence: SideEvidence) -> SideDecision:
    model_side = evidence.model_side
    kind = evidence.mrz_kind if evidence.mrz_valid or evidence.mrz_format_sure else None
    if kind in SIDE_OF_MRZ:
        return SideDecision(SIDE_OF_MRZ[kind], SOURCE_MRZ, model_side)
    if kind in CARD_FACE_MRZ and model_side not in CARD_FACES:
        scores = evidence.model_scores or {}
        face = max(CARD_FACES, key=lambda s: float(scores.get(s, 0.0)))
        return SideDecision(face, SOURCE_MRZ, model_side)
    return SideDecision(model_side, SOURCE_MODEL if model_side is not None else None, model_side)


@dataclass
class SidedClassification:
    """The classifier's answer with the decided side: what ``Pipeline.classify`` returns per image."""

    is_document: bool
    document_score: float
    side: str | None  # the decided side (see decide_side)
    side_scores: dict = field(default_factory=dict)  # the side model's probabilities
    side_model: str | None = None  # the side model's own answer
    side_source: str | None = None
    mrz_kind: str | None = None  # the format of a valid zone read for the side; None when none was
    # Milliseconds spent reading the MRZ for the side (None: not read); not exported.
    mrz_ms: float | None = field(default=None, repr=False)

    def export(self) -> dict:
        """The classifier's export (the decided side in it) and the evidence behind the side."""
        base = ClassifierAnswer(self.is_document, self.document_score, self.side, self.side_scores).export()
        return {**base, "side_model": self.side_model, "side_source": self.side_source, "mrz_kind": self.mrz_kind}


def zone_evidence(reader: ZoneFinder, image: np.ndarray, model_side: str | None) -> tuple[str | None, bool, bool]:
    """(format, valid, format sure) of the MRZ the check's reader takes on ``image`` for a photo of that side
    (docauth.ocr.reader.DocumentReader.find_zone: the photo, the located document, black ink; a front searched
    less); (None, False, False) when none."""
    _, read = reader.find_zone(np.asarray(image), side=model_side)
    if read is None or read.result is None:
        return None, False, False
    return read.result.type, bool(read.result.valid), bool(read.result.format_sure)


def sided(classification: Classification, image: np.ndarray | None,
          reader: ZoneFinder | None = None) -> SidedClassification:
    """One classifier answer with the side decided from it and, for a document when ``reader`` is given, the
    zone the check would take on ``image``."""
    document = bool(classification.is_document)
    scores = dict(classification.side_scores or {})
    model_side = classification.side if document else None
    kind, valid, sure, ms = None, False, False, None
    if document and reader is not None and image is not None:
        start = time.perf_counter()
        kind, valid, sure = zone_evidence(reader, image, model_side)
        ms = (time.perf_counter() - start) * 1000.0
    decision = decide_side(SideEvidence(model_side, scores, kind, valid, sure))
    return SidedClassification(
        is_document=document, document_score=float(classification.document_score or 0.0),
        side=decision.side, side_scores=scores, side_model=decision.model_side, side_source=decision.source,
        mrz_kind=kind if valid or sure else None, mrz_ms=ms)
