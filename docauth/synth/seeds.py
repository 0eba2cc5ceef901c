"""Named, disjoint seed ranges: train / validation / test data never share a seed.

A sample is a pure function of ``(seed, index, category)``; two purposes that use
seeds from different ranges therefore never see the same image. Use the range's
``default`` unless you need several independent sets for one purpose
(``TRAIN.nth(1)``, ``TRAIN.nth(2)``, ...).

>>> TRAIN.default, VALIDATION.default
(100000, 200000)
>>> purpose_of(VALIDATION.nth(3))
'validation'
>>> purpose_of(7) is None
True
>>> all(a.stop <= b.start for a, b in zip(ALL, ALL[1:]))
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeedRange:
    name: str
    start: int
    stop: int  # exclusive
    purpose: str

    @property
    def default(self) -> int:
        return self.start

    def nth(self, n: int) -> int:
        seed = self.start + n
        if not self.start <= seed < self.stop:
            raise ValueError(f"{self.name} has only {self.stop - self.start} seeds")
        return seed

    def __contains__(self, seed: object) -> bool:
        return isinstance(seed, int) and self.start <= seed < self.stop


TRAIN = SeedRange("train", 100_000, 200_000, "classifier and MRZ-recogniser training sets")
VALIDATION = SeedRange("validation", 200_000, 300_000, "early stopping / model selection during training")
TEST = SeedRange("test", 300_000, 400_000, "held-out classifier evaluation (docauth eval classifiers)")
OCR_EVAL = SeedRange("ocr_eval", 400_000, 500_000, "OCR / MRZ reading evaluation")
FACE_EVAL = SeedRange("face_eval", 500_000, 600_000, "face-matching evaluation (documents carrying given photos)")
TESTS = SeedRange("tests", 900_000, 1_000_000, "unit tests (tests/test_*.py)")

ALL = (TRAIN, VALIDATION, TEST, OCR_EVAL, FACE_EVAL, TESTS)


def purpose_of(seed: int) -> str | None:
    """Name of the range holding ``seed``, or None for an unregistered seed."""
    for r in ALL:
        if seed in r:
            return r.name
    return None
