"""Where and how models run.

One interface for every backend: a float32 NHWC batch in, probabilities out.

    model = load_model("document", backend="auto", mode="realtime")
    probs = model.predict(batch)        # (N, n_classes) float32
    model.metadata["labels"]

Stages never import TensorFlow, ONNX Runtime or OpenVINO themselves; they ask
this package for an :class:`InferenceModel`. Frameworks are imported lazily
inside the backend modules.
"""

from docauth.runtime.model import InferenceModel, load_metadata, load_model, model_paths

__all__ = ["InferenceModel", "load_metadata", "load_model", "model_paths"]
