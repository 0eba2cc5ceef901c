"""Test inputs for the face stage: a real portrait printed on a generated document, captured and flattened."""

from __future__ import annotations

import numpy as np
import pytest

from docauth.training.face_threshold import id_portrait, rectify


def document_page(astronaut: np.ndarray, box, kind: str, style: str, seed: int) -> np.ndarray:
    """The astronaut's ID portrait (around her face ``box``) on a generated document of ``kind``, photographed
    or scanned in ``style``, then rectified from the capture's true corners (deterministic by ``seed``)."""
    synth = pytest.importorskip("docauth.synth", reason="the synthetic document generator is not available")
    rng = np.random.default_rng(seed)
    doc = synth.render_document(kind, rng, portrait=id_portrait(astronaut, box))
    captured, corners = synth.capture(doc.image, rng, style=style)
    corners = np.asarray(corners, dtype=np.float64)
    width = int(np.linalg.norm(corners[1] - corners[0]))
    return rectify(captured, corners, (width, int(width * doc.image.shape[0] / doc.image.shape[1])))
