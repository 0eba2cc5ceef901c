"""Pipeline stages 1 and 2: is it a document, and which side.

    clf = DocumentClassifier.load()              # both models, via docauth.runtime
    results = clf([rgb_image, ...])              # list[Classification]
    results[0].export()
    {'is_document': True, 'document_score': 0.998, 'side': 'front', 'side_scores': {...}}

Images go through the models in batches of at most ``max_batch_size``. The side
model runs only on the images the document model accepted (its answer on a
non-document means nothing, and skipping it saves time). Each model answers for
the image averaged over its four quarter turns (``rotations``; DOCAUTH_CLASSIFIER_ROTATIONS).
The side model also looks at the document cropped from a plain surface around it, when there is one
(``content_view``; :mod:`docauth.classifiers.views`), and answers for both views averaged.
Images under ``MIN_DOCUMENT_SIDE`` pixels on the shorter side are never documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from docauth.classifiers import preprocess
from docauth.classifiers.views import content_view
from docauth.config import Settings
from docauth.errors import ModelError
from docauth.runtime import load_model

DOCUMENT_MODEL = "document"
SIDE_MODEL = "side"
# Below this many pixels on the shorter side nothing on a document could be read or verified (a TD1
# card's text lines would be under 2 px tall), and an upscaled speck is a flat colour the document
# model has never seen: such images are not documents, whatever the model says.
MIN_DOCUMENT_SIDE = 64


@dataclass
class Classification:
    is_document: bool
    document_score: float  # probability of "document"
    side: str | None  # None when not a document
    side_scores: dict[str, float] = field(default_factory=dict)  # empty when not a document

    def export(self) -> dict:
        return {
            "is_document": bool(self.is_document),
            "document_score": round(float(self.document_score), 6),
            "side": self.side,
            "side_scores": {k: round(float(v), 6) for k, v in self.side_scores.items()},
        }


def image_sizes(images: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in np.shape(image)[:2]) for image in images]


class DocumentClassifier:
    """Document/not and side classification on top of two :class:`docauth.runtime.InferenceModel`."""

    def __init__(self, document_model, side_model, *, threshold: float = 0.5, max_batch_size: int = 32,
                 rotations: int = 1, content_view: bool = False):
        self.document_model = document_model
        self.side_model = side_model
        self.threshold = float(threshold)
        self.max_batch_size = int(max_batch_size)
        if rotations not in (1, 2, 4):
            raise ValueError(f"rotations must be 1, 2 or 4, not {rotations!r}")
        self.rotations = int(rotations)
        self.content_view = bool(content_view)
        self._check(document_model, ["not_document", "document"])
        self._check(side_model, None)
        if document_model.input_shape != side_model.input_shape:
            raise ModelError("document and side models expect different input shapes; preprocessing is shared")
        self.input_shape = document_model.input_shape

    @staticmethod
    def _check(model, expected_labels):
        if expected_labels is not None and model.labels != expected_labels:
            raise ModelError(f"{model.name}: labels {model.labels}, expected {expected_labels}")

    @classmethod
    def load(cls, models_dir: str | Path | None = None, backend: str | None = None, mode: str = "realtime",
             threshold: float | None = None, max_batch_size: int | None = None,
             rotations: int | None = None, content_view: bool | None = None) -> "DocumentClassifier":
        """``backend=None``: ``DOCAUTH_BACKEND`` (default ``auto``), as for every setting left None here."""
        settings = Settings.load()
        doc = load_model(DOCUMENT_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        side = load_model(SIDE_MODEL, models_dir=models_dir, backend=backend, mode=mode)
        return cls(doc, side,
                   threshold=settings.document_threshold if threshold is None else threshold,
                   max_batch_size=settings.max_batch_size if max_batch_size is None else max_batch_size,
                   rotations=settings.classifier_rotations if rotations is None else rotations,
                   content_view=settings.classifier_content_view if content_view is None else content_view)

    @property
    def side_labels(self) -> list[str]:
        return self.side_model.labels

    # --- stage protocol -------------------------------------------------------
    def preprocess(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """RGB ``uint8`` images of any size -> (N, views, H, W, 3) float32, exactly as in training.

        View 0 is the whole image; with ``content_view``, view 1 is its content crop (a copy of view 0 when
        the image has none, so batches of several callers stack).
        """
        h, w, _ = self.input_shape
        whole = preprocess.preprocess_batch(images, h, w)
        if not self.content_view:
            return whole[:, None]
        cropped = whole.copy()
        for i, image in enumerate(images):
            crop = content_view(image)
            if crop is not image:  # only real crops are resized; the rest keep the whole view
                cropped[i] = preprocess.preprocess_image(crop, h, w)
        return np.stack([whole, cropped], axis=1)

    def predict(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Preprocessed batch -> (document probabilities (N, 2), side probabilities (N, 3), NaN for non-documents).

        ``batch``: (N, views, H, W, 3) from :meth:`preprocess`, or (N, H, W, 3) for the whole images alone.
        """
        views = batch[:, None] if batch.ndim == 4 else batch
        n = len(views)
        doc_probs = self.probabilities(self.document_model, views[:, 0])
        side_probs = np.full((n, len(self.side_labels)), np.nan, np.float32)
        accepted = np.flatnonzero(doc_probs[:, 1] >= self.threshold)
        if accepted.size:
            side_probs[accepted] = self.side_probabilities(views[accepted])
        return doc_probs, side_probs

    def side_probabilities(self, views: np.ndarray) -> np.ndarray:
        """Side probabilities of (N, views, H, W, 3) documents: the whole image averaged with its content crop
        where it has one. The document model does not gain from the crop (measured), so only the side model
        sees it."""
        whole = views[:, 0]
        if views.shape[1] == 1:
            return self.probabilities(self.side_model, whole)
        cropped = np.flatnonzero(np.any(views[:, 1] != whole, axis=(1, 2, 3)))
        # One model call for both views.
        probs = self.probabilities(self.side_model, np.concatenate([whole, views[cropped, 1]]))
        out = probs[:len(whole)]
        out[cropped] = (out[cropped] + probs[len(whole):]) / 2
        return out

    def postprocess(self, doc_probs: np.ndarray, side_probs: np.ndarray,
                    sizes: Sequence[tuple[int, int]] | None = None) -> list[Classification]:
        """Probabilities -> results; ``sizes``: the original (height, width) of each image, when known."""
        out = []
        sizes = list(sizes) if sizes is not None else [None] * len(doc_probs)
        for p_doc, p_side, size in zip(doc_probs, side_probs, sizes):
            score = float(p_doc[1])
            if size is not None and min(size) < MIN_DOCUMENT_SIDE:
                out.append(Classification(False, 0.0, None, {}))
            elif score >= self.threshold and not np.isnan(p_side).any():
                scores = {label: float(v) for label, v in zip(self.side_labels, p_side)}
                out.append(Classification(True, score, self.side_labels[int(np.argmax(p_side))], scores))
            else:
                out.append(Classification(False, score, None, {}))
        return out

    def __call__(self, images: Sequence[np.ndarray]) -> list[Classification]:
        images = list(images)
        if not images:
            return []
        return self.postprocess(*self.predict(self.preprocess(images)), sizes=image_sizes(images))

    def models(self) -> list:
        """The runtime models it runs: the document model, then the side model."""
        return [self.document_model, self.side_model]

    def describe(self) -> dict:
        return {}  # nothing beyond its models

    def probabilities(self, model, batch: np.ndarray) -> np.ndarray:
        """Probabilities averaged over ``rotations`` quarter turns of each image (one model call per chunk).

        Both models were trained on captures in every orientation, so each turn is a fair view; their mistakes
        differ by turn and the average is right more often (measured: docs/training.md).
        """
        turns = self._turns(batch)
        step = max(1, self.max_batch_size // len(turns))
        outs = []
        for i in range(0, len(batch), step):
            chunk = batch[i:i + step]
            stacked = np.concatenate([np.ascontiguousarray(np.rot90(chunk, k, axes=(1, 2))) for k in turns])
            probs = model.predict(stacked)
            outs.append(probs.reshape(len(turns), len(chunk), -1).mean(axis=0))
        return np.concatenate(outs)

    def _turns(self, batch: np.ndarray) -> tuple[int, ...]:
        if self.rotations == 1:
            return (0,)
        if self.rotations == 2 or batch.shape[1] != batch.shape[2]:  # a quarter turn would change the shape
            return (0, 2)
        return (0, 1, 2, 3)
