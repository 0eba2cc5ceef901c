"""What the pipeline calls on each stage, and what each stage returns: the contracts a stage is written to.

The shipped stages (:mod:`docauth.classifiers`, :mod:`docauth.ocr`, :mod:`docauth.matching` through
:mod:`docauth.pipeline.faces`, the person store) satisfy these, and so must any stage a deployment or a
test puts in their place: the pipeline reads these attributes and calls these methods, and nothing else.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from docauth.runtime import InferenceModel


class Classification(Protocol):
    """One image's answer from the classifier stage."""

    is_document: bool
    document_score: float  # probability of "document"
    side: str | None  # front, back or open; None when not a document
    side_scores: dict[str, float]

    def export(self) -> dict: ...


class Classifier(Protocol):
    """Document or not, and which side: one answer per image, in order (a list is one model batch)."""

    def __call__(self, images: Sequence[np.ndarray]) -> Sequence[Classification]: ...

    def models(self) -> list[InferenceModel]:
        """The runtime models it runs (for /v1/runtime and the batch metrics)."""
        ...

    def describe(self) -> dict:
        """Anything about how it runs beyond its models (e.g. its own batching); {} when nothing."""
        ...


class MRZ(Protocol):
    """The machine-readable zone as the reader read it."""

    type: str | None  # TD1, TD2, TD3, MRVA, MRVB; None when the lines fit no format
    lines: list[str]
    valid: bool  # every check digit passes and every character no check digit covers was read surely
    checks_pass: bool  # the lines have their format and every check digit passes (sure or not)
    format_sure: bool  # the format is certain, its check digits aside
    score: float | None
    fields: dict
    zone_top: float | None  # where the zone starts on the rectified document (a fraction of its height)
    zone: list | None  # the zone's corners in the photo, the first line's start and end first; None: not said


class DocumentView(Protocol):
    corners: list  # the upright document's corners (TL, TR, BR, BL) in the photo
    found: bool  # whether the document was located (else the corners are the photo's own)
    rotation: int  # quarter-turns counter-clockwise the document had in the photo
    rectified: np.ndarray | None  # the document cut out and turned upright; None when it was not located


class DocumentRead(Protocol):
    """What the reader returns for one image."""

    document: DocumentView | None
    mrz: MRZ | None  # None when no zone was found
    fields: dict  # field -> value, each from the best source (check-digit-verified MRZ, or print)
    consistency: dict  # field -> {"agree": bool, ...} where both print and MRZ were read
    sources: dict | None  # field -> "mrz" or "printed"; None: the reader does not say
    unsure: set  # fields taken from print that were not read surely
    printed: dict  # field -> the printed read ({"value", "box", ...}); {} when print was not read

    def export(self) -> dict: ...


class ZoneFinder(Protocol):
    """The reader's zone search alone (no warp, no print), to settle the side (``Pipeline.classify``)."""

    def find_zone(self, image: np.ndarray, timings: dict | None = None, *, side: str | None = None
                  ) -> tuple[Any, Any]:
        """(the located document, the MRZ read the check would take, or None)."""
        ...


class Reader(ZoneFinder, Protocol):
    """Locate, rectify and read one document image."""

    def __call__(self, image: np.ndarray, *, side: str | None = None,
                 on_rectified: Callable[[np.ndarray, MRZ | None], None] | None = None,
                 expected: dict | None = None) -> DocumentRead:
        """``on_rectified(upright page, zone or None)``: called once the page is rectified and its zone read,
        before the rest of the read. ``expected``: the record the document should carry (a 1:1 check), which
        the reader may look for first in print; what it reports must be what the document says whether it
        finds it or not."""
        ...

    def warmup(self) -> None:
        """Load now what the first call would otherwise load."""
        ...

    def models(self) -> list[InferenceModel]: ...


class Faces(Protocol):
    """Face encodings and distances (in process, :class:`~docauth.pipeline.faces.FaceStage`, or in a child
    process, :class:`~docauth.pipeline.face_process.FaceProcessStage`)."""

    @property
    def concurrent_calls(self) -> int:
        """How many ``encode`` calls it serves at once (1 in process: dlib is serialised)."""
        ...

    def encode(self, image: np.ndarray, *, upsampled: bool = True, large: bool = True,
               regions: list[tuple[int, int, int, int]] | None = None, closer: bool = False
               ) -> tuple[np.ndarray | None, dict]:
        """``regions`` [(x0, y0, x1, y1), ...]: search only there (the portrait's places on a rectified
        document), ``closer`` at the finer scale kept for when the first look found nothing."""
        ...

    def encode_enrolment(self, image: np.ndarray) -> np.ndarray: ...

    def distance(self, templates: np.ndarray, encoding: np.ndarray) -> np.ndarray: ...


class TextMatch(Protocol):
    def export(self) -> dict:
        """``{"match": bool | None, "score": float, "reasons": ["field:why", ...], ...}``."""
        ...


class TextMatcher(Protocol):
    def __call__(self, fields: dict, person: dict, *, today: dt.date) -> TextMatch: ...
