"""TensorFlow on CPU: the Keras model behind a compiled ``tf.function`` with a fixed input signature.

Never ``model.predict`` per request: it rebuilds a data pipeline on every
call (tens of ms). The Intel threading plan is put in place before TensorFlow
is imported (see :mod:`docauth.runtime.threading`).
"""

from __future__ import annotations

import sys
import zipfile

from docauth.errors import ModelError
from docauth.runtime import threading as rt_threading
from docauth.runtime.engines.base import BackendSpec, Runner, input_hwc
from docauth.runtime.model import verify_file


def ensure_threading(mode: str, threads: int | None = None) -> rt_threading.ThreadingReport:
    """Apply the threading plan once per process, before the first TensorFlow import when possible."""
    report = rt_threading.last_report()
    if report is None:
        plan = rt_threading.plan_for(mode)
        if threads:
            plan = rt_threading.ThreadingPlan(intra_op=threads, inter_op=plan.inter_op, omp_num_threads=threads)
        report = rt_threading.apply_threading(plan)
    if report.tf_config_applied is None:
        rt_threading.configure_tensorflow(report)
    return report


def openmp_runtimes_loaded() -> list[str]:
    """OpenMP libraries mapped into this process: OMP_*/KMP_* only matter when one is (stock TF has none)."""
    try:
        maps = open("/proc/self/maps").read()
    except OSError:
        return []
    names = ("libiomp5", "libgomp", "libomp")
    return sorted({line.rsplit("/", 1)[-1] for line in maps.splitlines() if any(n in line for n in names)})


def load_keras_model(path):
    if not path.is_file():
        raise ModelError(f"model file missing: {path}")

    import keras  # deferred on purpose: TensorFlow takes seconds to import

    try:
        return keras.saving.load_model(path, compile=False)
    except (ValueError, OSError, KeyError, TypeError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"model file is corrupt or incompatible: {path}: {exc}") from exc


def compiled_function(model, shape):
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    h, w, c = shape

    @tf.function(input_signature=[tf.TensorSpec([None, h, w, c], tf.float32)], reduce_retracing=True, autograph=False)
    def infer(x):
        return model(x, training=False)

    return infer


def load(spec: BackendSpec, paths, metadata: dict, mode: str) -> Runner:
    report = ensure_threading(mode, spec.threads)
    verify_file(paths.keras, metadata, required=False)  # serve's start-up check requires the hash
    model = load_keras_model(paths.keras)
    import tensorflow as tf  # deferred on purpose: TensorFlow takes seconds to import

    with tf.device("/CPU:0"):
        infer = compiled_function(model, input_hwc(metadata))

    def run(batch):
        with tf.device("/CPU:0"):
            return infer(tf.convert_to_tensor(batch)).numpy()

    details = {"threading": report.export(), "tensorflow_threads": rt_threading.tensorflow_threads(),
               "tensorflow_imported_before_plan": report.tensorflow_already_imported,
               "tf_version": tf.__version__, "openmp_runtimes_loaded": openmp_runtimes_loaded()}
    return Runner(backend="keras_tf", run=run, details=details)


def tensorflow_imported() -> bool:
    return "tensorflow" in sys.modules
