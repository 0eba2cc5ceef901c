"""Where and how models run.

One interface for every backend: a float32 NHWC batch in, probabilities out.

    model = load_model("document", backend="auto", mode="realtime")
    probs = model.predict(batch)        # (N, n_classes) float32
    model.metadata["labels"]

Stages never import TensorFlow, ONNX Runtime or OpenVINO themselves; they ask
this package for an :class:`InferenceModel`. Frameworks are imported lazily
inside the backend modules (``docauth/runtime/engines/``).

- :mod:`~docauth.runtime.loading`: ``load_model``, the one place a model is loaded (choice, fallback, batcher)
- :mod:`~docauth.runtime.backends`: registry (keras_tf, tf_gpu, onnxruntime[_cuda|_openvino], openvino)
- :mod:`~docauth.runtime.probe`: CPU/ISA/GPU/provider discovery (injectable for tests)
- :mod:`~docauth.runtime.threading`: Intel threading plan, applied before TensorFlow's import
- :mod:`~docauth.runtime.batching`: the throughput mode's micro-batcher
- :mod:`~docauth.runtime.tuning`: measurements, the deployment profile, ``backend="auto"``
- :mod:`~docauth.runtime.export`: Keras -> ONNX with a parity check
- :mod:`~docauth.runtime.inputs`: image-like inputs on a model's stated scale, for measuring
- :mod:`~docauth.runtime.untrained`: a small untrained model, for tests of this layer
"""

from docauth.runtime.batching import BatchingConfig, MicroBatcher, batched
from docauth.runtime.loading import load_model
from docauth.runtime.model import InferenceModel, load_metadata, model_paths

__all__ = ["BatchingConfig", "InferenceModel", "MicroBatcher", "batched", "load_metadata", "load_model",
           "model_paths"]
