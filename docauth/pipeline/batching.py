"""Classifier calls from concurrent requests batched together (throughput mode), and which micro-batchers a
stage's models go through (for the service's metrics)."""

from __future__ import annotations

import numpy as np

from docauth.classifiers.stage import DocumentClassifier, image_sizes
from docauth.config import Settings
from docauth.pipeline.contracts import Classifier, Reader
from docauth.runtime import InferenceModel
from docauth.runtime.batching import BatchingConfig, MicroBatcher


class BatchedClassifier:
    """Classifier calls from concurrent requests meet in the runtime's micro-batcher (throughput mode).

    Each caller preprocesses its own images (sizes differ); the batcher stacks the
    fixed-size model inputs of concurrent callers into one model call, waiting at
    most ``max_queue_delay_ms`` for companions. Calls with several images (the
    archive scanner) are batches already and go straight to the classifier.
    """

    def __init__(self, classifier: DocumentClassifier, config: BatchingConfig):
        self.inner = classifier
        self.batcher = MicroBatcher(self._predict, config, name="classifier")

    def _predict(self, batch: np.ndarray) -> np.ndarray:
        doc_probs, side_probs = self.inner.predict(batch)
        return np.concatenate([doc_probs, side_probs], axis=1)

    def __call__(self, images):
        images = list(images)
        if len(images) != 1:
            return self.inner(images)
        out = self.batcher(self.inner.preprocess(images))
        n_doc = out.shape[1] - len(self.inner.side_labels)
        return self.inner.postprocess(out[:, :n_doc], out[:, n_doc:], sizes=image_sizes(images))

    @property
    def mode(self):
        return "throughput"

    def models(self) -> list[InferenceModel]:
        return self.inner.models()

    def describe(self) -> dict:
        return {"batching": self.batcher.stats()}


def model_batchers(stage: Classifier | Reader) -> dict[str, MicroBatcher]:
    """{model name: MicroBatcher} of a stage's models that batch (the runtime's throughput mode), and the
    classifier's own batcher when it has one."""
    out = {model.name: model.batcher for model in stage.models() if model.batcher is not None}
    if isinstance(stage, BatchedClassifier):
        out["classifier"] = stage.batcher
    return out


def batched(classifier: DocumentClassifier, settings: Settings, config: BatchingConfig | None = None
            ) -> BatchedClassifier:
    if config is None:
        config = BatchingConfig(max_batch_size=settings.max_batch_size, max_queue_delay_ms=settings.max_queue_delay_ms)
    return BatchedClassifier(classifier, config)
