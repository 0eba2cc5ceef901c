"""A small untrained Keras CNN with metadata, for tests and benchmarks of the runtime layer.

The runtime layer must work with any model that follows the metadata format;
tests build one of these in a temporary directory so they never depend on the
shipped models being trained. Deterministic by ``seed``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from docauth.runtime.model import model_paths, record_checksums


def build_untrained_model(
    models_dir: str | Path,
    name: str = "untrained",
    *,
    height: int = 64,
    width: int = 64,
    channels: int = 3,
    labels: tuple[str, ...] = ("a", "b", "c"),
    width_multiplier: int = 1,
    seed: int = 0,
) -> Path:
    """Write ``<models_dir>/<name>.keras`` and ``<name>.json``; return the .keras path.

    The architecture mirrors a small image classifier (conv / batch-norm / relu
    blocks, separable convs, global pooling, softmax) so every backend meets the
    operator mix of the real models.
    """
    import keras  # deferred on purpose: TensorFlow's import takes seconds, and only tests build this model

    keras.utils.set_random_seed(seed)
    m = width_multiplier
    inputs = keras.Input((height, width, channels))
    x = keras.layers.Rescaling(1.0 / 255.0)(inputs)
    x = keras.layers.Conv2D(16 * m, 3, strides=2, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.ReLU()(x)
    for filters in (32 * m, 64 * m, 128 * m):
        x = keras.layers.SeparableConv2D(filters, 3, padding="same", use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    # Untrained conv features hardly differ between images; the mean colour does, so the
    # stand-in's decisions spread over its classes (argmax checks then mean something).
    colour = keras.layers.GlobalAveragePooling2D()(keras.layers.Rescaling(1.0 / 255.0, offset=-0.5)(inputs))
    x = keras.layers.Concatenate()([x, colour])
    x = keras.layers.Dropout(0.2)(x)
    head = keras.layers.Dense(len(labels), activation="softmax", name="head")
    outputs = head(x)
    model = keras.Model(inputs, outputs, name=name)
    # Non-trivial batch-norm statistics, so parity tests exercise them.
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, var = layer.get_weights()
            layer.set_weights([
                gamma * rng.uniform(0.5, 1.5, gamma.shape).astype("float32"),
                beta + rng.normal(0, 0.1, beta.shape).astype("float32"),
                mean + rng.normal(0, 0.1, mean.shape).astype("float32"),
                var * rng.uniform(0.5, 1.5, var.shape).astype("float32"),
            ])
    kernel, bias = head.get_weights()
    kernel[-channels:] = rng.normal(0, 12, (channels, len(labels))).astype("float32")
    head.set_weights([kernel, bias])
    paths = model_paths(name, models_dir)
    paths.keras.parent.mkdir(parents=True, exist_ok=True)
    model.save(paths.keras)
    metadata = {
        "name": name,
        "version": "untrained-1",
        "input": {"height": height, "width": width, "channels": channels, "range": [0.0, 255.0]},
        "labels": list(labels),
        "preprocessing": "RGB uint8 as float32 0..255, resized; the model rescales",
        "training": {"note": "untrained, for runtime tests"},
        "metrics": {},
    }
    paths.metadata.write_text(json.dumps(metadata, indent=2))
    record_checksums(name, models_dir)  # verified like a shipped model
    return paths.keras
