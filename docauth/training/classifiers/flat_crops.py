"""Supplementary *flat* documents: one card side or one passport data page, tightly cropped.

The real specimens (``../shared/data/mrz-specimens``) are flat, tightly cropped scans, and a
passport specimen shows the data page alone; the generator's passports are opened booklets
and its scans keep the whole booklet. Here the generator's own flat rendering
(:func:`docauth.synth.render_document`) is cropped to ``page_box`` (the data page / card),
given a thin paper margin, mild exposure change, noise and JPEG; some are recoloured
(:func:`docauth.training.classifiers.photographs.vivid`). TD2 card fronts and visa stickers are ``front``.
Labels keep the side (``open`` for a data page). Deterministic by ``(seed, index)``.
"""

from __future__ import annotations

import cv2
import numpy as np

from docauth.synth import render_document
from docauth.training.classifiers.photographs import vivid

KINDS = ("td1_front", "td1_back", "td3_open", "td2_front", "mrv_visa")
SIDES = {"td1_front": "front", "td1_back": "back", "td3_open": "open", "td2_front": "front", "mrv_visa": "front"}


def flat_sample(seed: int, index: int) -> tuple[np.ndarray, dict]:
    rng = np.random.default_rng([seed, index, 78])
    kind = KINDS[int(rng.integers(len(KINDS)))]
    doc = render_document(kind, rng)
    x0, y0, x1, y1 = (int(round(v)) for v in doc.page_box)
    page = doc.image[max(0, y0):y1, max(0, x0):x1]
    if rng.random() < 0.3:  # real documents are often printed in stronger colours than the generator's
        page = vivid(page, rng)
    if doc.mask is not None and kind != "td3_open":  # rounded card corners show the paper
        mask = doc.mask[max(0, y0):y1, max(0, x0):x1, None].astype(np.float32) / 255.0
        paper = rng.uniform(225, 256)
        page = (page * mask + paper * (1 - mask)).astype(np.uint8)
    width = int(rng.integers(260, 700))
    page = cv2.resize(page, (width, max(8, int(page.shape[0] * width / page.shape[1]))), interpolation=cv2.INTER_AREA)
    margin = int(width * rng.uniform(0.0, 0.06))
    paper = int(rng.uniform(225, 256))
    img = cv2.copyMakeBorder(page, margin, margin, margin, margin, cv2.BORDER_CONSTANT, value=(paper,) * 3)
    img = np.clip(img.astype(np.float32) * rng.uniform(0.85, 1.1) + rng.normal(0, rng.uniform(0.5, 3), img.shape),
                  0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY,
                                                                        int(rng.integers(60, 96))])
    if ok:
        img = cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    return img, {"is_document": True, "side": SIDES[kind], "category": f"flat_{kind}"}
