"""OpenVINO native runtime on the exported ONNX model.

LATENCY hint: one stream, a small pool of infer requests for concurrent callers.
THROUGHPUT hint: several streams; a batch is split across them and run with an
``AsyncInferQueue`` so every stream works at once. ``precision=bf16`` sets
``INFERENCE_PRECISION_HINT`` (only offered on CPUs with AVX512_BF16 or AMX);
its accuracy cost is measured by the parity tests and the benchmark.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
from pathlib import Path

import numpy as np

from docauth.errors import ModelError, Unavailable
from docauth.runtime.engines.base import BackendSpec, Runner, file_sha256
from docauth.runtime.engines.onnx_runtime import SOURCE_SHA_KEY
from docauth.runtime.model import expected_sample_shape, verify_file


# OpenVINO's CPU_RUNTIME_CACHE_CAPACITY counts prepared kernels, not shapes: a shape of the text recogniser needs
# about 40, so this keeps a dozen shapes (a page's widths and batch sizes). Fewer than one shape's worth prepared
# every kernel again at each call, which took about as long as the call's arithmetic; unbounded, memory grows
# with every shape seen.
KERNEL_CACHE_ENTRIES = 500

log = logging.getLogger(__name__)


@functools.lru_cache(maxsize=1)
def core():
    import openvino  # deferred on purpose: OpenVINO is optional and slow to import

    return openvino.Core()


def cpu_supports_bf16() -> bool:
    return "BF16" in core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def writable_folder(path: Path) -> bool:
    """Make ``path`` if needed; False (the model then compiles at every start) where it cannot be written."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.warning("openvino: compiled models are not kept (%s: %s)", path, exc.strerror or exc)
        return False
    return os.access(path, os.W_OK)


def compile_config(spec: BackendSpec, mode: str) -> dict:
    hint = spec.hint or ("THROUGHPUT" if mode == "throughput" else "LATENCY")
    config = {"PERFORMANCE_HINT": hint,
              "INFERENCE_PRECISION_HINT": "bf16" if spec.precision == "bf16" else "f32"}
    if spec.threads:
        config["INFERENCE_NUM_THREADS"] = spec.threads
    return config


def _type_name(value) -> str:
    """OpenVINO element type as its short name ("bf16", "f32")."""
    return value.to_string() if hasattr(value, "to_string") else str(value)


def _check_fresh(model, paths) -> None:
    try:
        recorded = model.get_rt_info(["framework", SOURCE_SHA_KEY]).astype(str)
    except (KeyError, RuntimeError):  # exported by something else: nothing recorded
        recorded = None
    if recorded and paths.keras.is_file() and file_sha256(paths.keras) != recorded:
        raise ModelError(f"{paths.onnx} is stale (its {paths.keras.name} changed); run `docauth export`")


def load(spec: BackendSpec, paths, metadata: dict, mode: str, compiled_cache: Path | None = None) -> Runner:
    """``compiled_cache``: OpenVINO's own cache of compiled models (``CACHE_DIR``), keyed by the model, the
    configuration, the device and OpenVINO's version: a stale entry is never used, only left behind."""
    device = spec.device or "CPU"
    ov_core = core()
    if device not in ov_core.available_devices:
        raise Unavailable(f"openvino: device {device} not available ({ov_core.available_devices})")
    if spec.precision == "bf16" and device == "CPU" and not cpu_supports_bf16():
        raise Unavailable("openvino: this CPU has no bf16 support (needs AVX512_BF16 or AMX)")
    if not paths.onnx.is_file():
        raise ModelError(f"ONNX model missing: {paths.onnx}; run `docauth export`")
    verify_file(paths.onnx, metadata)  # a corrupt or replaced file would compile and answer wrongly
    config = compile_config(spec, mode)
    if compiled_cache is not None and writable_folder(compiled_cache):
        config["CACHE_DIR"] = str(compiled_cache)
    if device == "CPU" and None in expected_sample_shape(metadata):
        # A model whose input sides vary keeps prepared kernels per shape seen: bounded (KERNEL_CACHE_ENTRIES).
        config["CPU_RUNTIME_CACHE_CAPACITY"] = KERNEL_CACHE_ENTRIES
    sample = expected_sample_shape(metadata)
    dynamic_sides = None in sample
    try:
        model = ov_core.read_model(str(paths.onnx))
        _check_fresh(model, paths)
        model.reshape({model.inputs[0].get_any_name(): [-1] + [-1 if d is None else d for d in sample]})
        compiled = ov_core.compile_model(model, device, config)
    except RuntimeError as exc:
        raise ModelError(f"OpenVINO cannot compile {paths.onnx}: {exc}") from exc
    n_requests = max(int(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")), 1)
    details = {"device": device, "config": {k: str(v) for k, v in config.items()},
               "streams": str(compiled.get_property("NUM_STREAMS")), "infer_requests": n_requests,
               "inference_precision": _type_name(compiled.get_property("INFERENCE_PRECISION_HINT"))}

    # A pool of requests: each caller borrows one, so concurrent callers never share a request.
    pool: queue.SimpleQueue = queue.SimpleQueue()
    for _ in range(n_requests):
        pool.put(compiled.create_infer_request())

    def run_one(batch):
        request = pool.get()
        try:
            request.infer({0: batch})
            return np.array(request.get_output_tensor(0).data, copy=True)
        finally:
            pool.put(request)

    if config["PERFORMANCE_HINT"] != "THROUGHPUT" or n_requests == 1:
        if mode != "realtime" or dynamic_sides:
            return Runner(backend="openvino", run=run_one, details=details)
        # Real-time: a static batch-1 graph (no shape inference or reallocation per call) for single
        # images, the dynamic one for the occasional larger batch.
        try:
            model.reshape({model.inputs[0].get_any_name(): [1, *sample]})
            static_request = ov_core.compile_model(model, device, config).create_infer_request()
        except RuntimeError as exc:
            raise ModelError(f"OpenVINO cannot compile {paths.onnx} for batch 1: {exc}") from exc
        static_lock = threading.Lock()

        def run_realtime(batch):
            if len(batch) == 1 and static_lock.acquire(blocking=False):
                try:
                    static_request.infer({0: batch})
                    return np.array(static_request.get_output_tensor(0).data, copy=True)
                finally:
                    static_lock.release()
            return run_one(batch)

        details["static_batch1"] = True
        return Runner(backend="openvino", run=run_realtime, details=details)

    import openvino  # deferred on purpose: OpenVINO is optional and slow to import

    async_queue = openvino.AsyncInferQueue(compiled, n_requests)
    results: dict[int, np.ndarray] = {}

    def on_done(request, index):
        results[index] = np.array(request.get_output_tensor(0).data, copy=True)

    async_queue.set_callback(on_done)
    lock = threading.Lock()  # one batch at a time through the async queue; callers of run_one are separate

    def run(batch):
        if len(batch) == 1:
            return run_one(batch)
        if spec.stream_batch:  # small requests keep each stream's activations in its core's cache
            chunks = [batch[i:i + spec.stream_batch] for i in range(0, len(batch), spec.stream_batch)]
        else:
            chunks = np.array_split(batch, min(n_requests, len(batch)))
        with lock:
            results.clear()
            for i, chunk in enumerate(chunks):
                async_queue.start_async({0: chunk}, userdata=i)
            async_queue.wait_all()
            return np.concatenate([results[i] for i in range(len(chunks))])

    details["async_infer_queue"] = True
    details["stream_batch"] = spec.stream_batch or "even split"
    return Runner(backend="openvino", run=run, details=details)
