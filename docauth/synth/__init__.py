"""Synthetic training and test data: ID cards, passports and the things people upload instead.

Public API (other stages code against these names):

- :func:`generate_sample` (seed, index, category=None) -> :class:`Sample` (``.image`` RGB uint8, ``.label``)
- :func:`render_document` (kind, seed_or_rng, identity=None, portrait=None) -> :class:`RenderedDocument`
- :func:`capture` (image, rng, style="phone"|"scan", rotation=None) -> (captured image, corners)
- :func:`generate_dataset` (out_dir, count, seed, category=None, workers=1) -> labels.jsonl path
- :data:`CATEGORIES`, :data:`DOCUMENT_CATEGORIES`, :mod:`docauth.synth.seeds`,
  :mod:`docauth.synth.mrz_compose` (TD1/TD2/TD3/MRV-A/MRV-B lines with check digits)

Importing this package loads numpy, OpenCV and Pillow only (no ML framework).
"""

from docauth.synth.capture import CaptureResult, capture, capture_document
from docauth.synth.dataset import generate_dataset, read_labels
from docauth.synth.documents import DOCUMENT_KINDS, RenderedDocument, render_document
from docauth.synth.mrz_compose import compose_mrz
from docauth.synth.sample import (CATEGORIES, DOCUMENT_CATEGORIES, EXTRA_CATEGORIES, MIX, NON_DOCUMENT_CATEGORIES,
                                  Sample, choose_category, generate_sample)

__all__ = [
    "CATEGORIES", "DOCUMENT_CATEGORIES", "NON_DOCUMENT_CATEGORIES", "EXTRA_CATEGORIES", "MIX", "DOCUMENT_KINDS",
    "Sample", "RenderedDocument", "CaptureResult",
    "generate_sample", "render_document", "capture", "capture_document", "generate_dataset", "read_labels",
    "choose_category", "compose_mrz",
]
