"""How far an engine's answers may stray from fp32's: each model states it in its metadata's ``tolerance``.

Three yardsticks, by what the model's reader does with its outputs:

- none stated: the same top answer on nearly every input and probabilities within :data:`ACCURACY_ATOL`
  (a classifier whose reader takes the top class);
- ``{"max_abs_diff": 0.005}``: probabilities within that bound (a reader that compares them with thresholds:
  which characters are trusted moves with them);
- ``{"mask_threshold": 0.3, "min_mask_iou": 0.98}``: a probability map the reader thresholds into regions (a
  text detector): the regions above the threshold must overlap by that intersection over union. A pixel's
  probability far from the threshold may move by any amount without changing a box, and the top-answer test
  means nothing for a map of one channel.
"""

from __future__ import annotations

import numpy as np

ACCURACY_ATOL = 5e-2  # the same tolerance the parity tests state for bf16
ACCURACY_MIN_AGREEMENT = 0.95


def tolerance_of(metadata: dict) -> dict:
    """The model's stated tolerance with its defaults filled in: ``{"max_abs_diff": float | None,
    "min_argmax_agreement": float | None, "mask_threshold": float | None, "min_mask_iou": float | None}``."""
    stated = metadata.get("tolerance", {})
    if "mask_threshold" in stated:
        return {"max_abs_diff": None, "min_argmax_agreement": None,
                "mask_threshold": float(stated["mask_threshold"]), "min_mask_iou": float(stated["min_mask_iou"])}
    return {"max_abs_diff": float(stated.get("max_abs_diff", ACCURACY_ATOL)),
            "min_argmax_agreement": ACCURACY_MIN_AGREEMENT, "mask_threshold": None, "min_mask_iou": None}


def output_agreement(got: np.ndarray, reference: np.ndarray, tolerance: dict) -> dict:
    """The measures ``tolerance`` bounds, of ``got`` against ``reference`` (same inputs)."""
    diff = float(f"{float(np.max(np.abs(got - reference))) if got.size else 0.0:.3g}")
    if tolerance.get("mask_threshold") is not None:
        a, b = got > tolerance["mask_threshold"], reference > tolerance["mask_threshold"]
        union = int(np.count_nonzero(a | b))
        iou = 1.0 if union == 0 else int(np.count_nonzero(a & b)) / union
        return {"max_abs_diff": diff, "argmax_agreement": None, "mask_iou": round(iou, 5)}
    return {"max_abs_diff": diff, "argmax_agreement": round(float(np.mean(got.argmax(-1) == reference.argmax(-1))), 4),
            "mask_iou": None}


def within(measures: dict, tolerance: dict) -> bool:
    """Do ``measures`` (from :func:`output_agreement`, or a profile row carrying both) meet ``tolerance``?
    A measure that was not taken (None) does not count against."""
    checks = (("max_abs_diff", "max_abs_diff", lambda value, bound: value <= bound),
              ("argmax_agreement", "min_argmax_agreement", lambda value, bound: value >= bound),
              ("mask_iou", "min_mask_iou", lambda value, bound: value >= bound))
    for measure, bound_key, ok in checks:
        value, bound = measures.get(measure), tolerance.get(bound_key)
        if value is not None and bound is not None and not ok(value, bound):
            return False
    return True

