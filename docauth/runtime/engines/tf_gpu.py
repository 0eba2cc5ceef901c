"""TensorFlow on a GPU: memory growth on, one host-to-device copy per batch, one copy back.

Chosen only when TensorFlow discovers a GPU (see :mod:`docauth.runtime.probe`).
"""

from __future__ import annotations

from docauth.errors import Unavailable
from docauth.runtime.engines.base import BackendSpec, Runner, input_hwc
from docauth.runtime.engines.keras_tf import compiled_function, load_keras_model


def enable_memory_growth(tf) -> list[str]:
    """Allocate GPU memory as needed instead of grabbing it all (several models share the card)."""
    names = []
    for gpu in tf.config.list_physical_devices("GPU"):
        try:
            tf.config.experimental.set_memory_growth(gpu, True)
        except RuntimeError:  # runtime already initialised: growth is whatever was set first
            pass
        names.append(gpu.name)
    return names


def load(spec: BackendSpec, paths, metadata: dict, mode: str) -> Runner:
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    gpus = enable_memory_growth(tf)
    if not gpus:
        raise Unavailable("tf_gpu: TensorFlow sees no GPU")
    device = spec.device or "/GPU:0"
    try:
        with tf.device(device):
            model = load_keras_model(paths.keras)
            infer = compiled_function(model, input_hwc(metadata))
    except (tf.errors.OpError, RuntimeError) as exc:  # driver/CUDA mismatch, device out of memory
        raise Unavailable(f"tf_gpu: cannot place the model on {device}: {exc}") from exc

    def run(batch):
        with tf.device(device):
            x = tf.constant(batch)  # the whole batch goes over once and stays on the device
            y = infer(x)
        return y.numpy()  # and comes back once

    return Runner(backend="tf_gpu", run=run, details={"device": device, "gpus": gpus, "memory_growth": True})
