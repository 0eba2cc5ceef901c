"""Backend registry. Each backend module imports its framework lazily."""

from __future__ import annotations

from pathlib import Path

from docauth.errors import ConfigError, ModelError
from docauth.runtime.model import InferenceModel, load_metadata, model_paths

BACKENDS = ("keras",)


def load(name: str, *, models_dir: str | Path | None, backend: str, mode: str) -> InferenceModel:
    metadata = load_metadata(name, models_dir)
    if backend in ("auto", "keras"):
        return _load_keras(name, metadata, models_dir, mode)
    raise ConfigError(f"unknown backend {backend!r}; available: {', '.join(BACKENDS)}")


def _load_keras(name, metadata, models_dir, mode) -> InferenceModel:
    path = model_paths(name, models_dir).keras
    if not path.is_file():
        raise ModelError(f"model file missing: {path}")
    import keras
    import tensorflow as tf

    try:
        model = keras.saving.load_model(path, compile=False)
    except (ValueError, OSError, KeyError) as exc:
        raise ModelError(f"model file is corrupt or incompatible: {path}: {exc}") from exc
    h, w = metadata["input"]["height"], metadata["input"]["width"]
    c = metadata["input"].get("channels", 3)

    @tf.function(input_signature=[tf.TensorSpec([None, h, w, c], tf.float32)], reduce_retracing=True)
    def infer(x):
        return model(x, training=False)

    def run(batch):
        return infer(tf.convert_to_tensor(batch)).numpy()

    return InferenceModel(name=name, metadata=metadata, backend_name="keras", mode=mode, _run=run,
                          reason="Keras compiled function (fallback)")
