"""Backend registry: which engines exist, which are usable here, and loading one model on one engine.

Each engine lives in ``docauth/runtime/engines/<module>.py`` and imports its
framework only when loaded (``load_spec`` imports the engine module by name).
Choosing an engine and falling back is :mod:`docauth.runtime.loading`'s work.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from docauth.errors import ConfigError, Unavailable
from docauth.runtime.engines.base import BackendSpec, Runner
from docauth.runtime.model import model_paths
from docauth.runtime.probe import HardwareProbe
from docauth.runtime.threading import process_share

ENGINES = {
    "keras_tf": "docauth.runtime.engines.keras_tf",
    "tf_gpu": "docauth.runtime.engines.tf_gpu",
    "onnxruntime": "docauth.runtime.engines.onnx_runtime",
    "onnxruntime_cuda": "docauth.runtime.engines.onnx_runtime",
    "onnxruntime_openvino": "docauth.runtime.engines.onnx_runtime",
    "openvino": "docauth.runtime.engines.openvino_native",
}
ALIASES = {"keras": "keras_tf", "tensorflow": "keras_tf", "ort": "onnxruntime"}
BACKENDS = tuple(ENGINES)
MODES = ("realtime", "throughput")
FALLBACK = BackendSpec("keras_tf")
KERAS_ENGINES = ("keras_tf", "tf_gpu")
# Engines that compile a model for this machine at load and can keep the result on disk for the next start.
CACHING_ENGINES = ("openvino",)


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@dataclass(frozen=True)
class Availability:
    name: str
    available: bool
    reason: str


def availability(probe: HardwareProbe) -> list[Availability]:
    """Every registered backend, whether this machine can run it, and why (not)."""
    out = []
    tf_ok = _installed("tensorflow")
    out.append(Availability("keras_tf", tf_ok, "TensorFlow installed" if tf_ok else "TensorFlow not installed"))
    out.append(Availability("tf_gpu", tf_ok and bool(probe.tf_gpus),
                            f"TensorFlow sees {probe.tf_gpus}" if probe.tf_gpus else "TensorFlow sees no GPU"))
    providers = set(probe.ort_providers)
    out.append(Availability("onnxruntime", "CPUExecutionProvider" in providers,
                            "CPUExecutionProvider" if "CPUExecutionProvider" in providers
                            else "onnxruntime not installed"))
    cuda = "CUDAExecutionProvider" in providers
    out.append(Availability("onnxruntime_cuda", cuda,
                            "CUDAExecutionProvider installed" if cuda else "no CUDAExecutionProvider (CPU onnxruntime)"))
    ov_ep = "OpenVINOExecutionProvider" in providers
    out.append(Availability("onnxruntime_openvino", ov_ep, "OpenVINOExecutionProvider installed" if ov_ep
                            else "no OpenVINOExecutionProvider (needs onnxruntime-openvino)"))
    ov_ok = bool(probe.openvino_devices)
    out.append(Availability("openvino", ov_ok, f"OpenVINO devices {probe.openvino_devices}" if ov_ok
                            else "OpenVINO not installed or no device"))
    return out


def candidates(probe: HardwareProbe, mode: str, *, thread_options: tuple[int, ...] | None = None,
               onnx_ready: bool = True) -> list[BackendSpec]:
    """Every backend x setting worth measuring here for ``mode``, in the safe default ranking."""
    ok = {a.name for a in availability(probe) if a.available}
    cores = max(probe.physical_cores, 1)
    if thread_options is None:
        # 1 thread per model is measured in both modes: with several models (or callers) at once,
        # one thread each can beat all cores each, which oversubscribe (ONNX Runtime's spinning especially).
        thread_options = tuple(sorted({1, cores}))
    # Order = the ranking used when nothing was measured: GPU, then exact-fp32 CPU engines (one thread
    # first: no oversubscription when several models or callers run at once), bf16 after fp32 because
    # its accuracy cost must be measured before it is preferred, TensorFlow last.
    specs: list[BackendSpec] = []
    if "tf_gpu" in ok:
        specs.append(BackendSpec("tf_gpu"))
    if onnx_ready:
        if "onnxruntime_cuda" in ok and probe.has_gpu:
            specs.append(BackendSpec("onnxruntime_cuda"))
        if "openvino" in ok:
            for device in [d for d in probe.openvino_devices if d.startswith("GPU")]:
                specs.append(BackendSpec("openvino", device=device))
        if "onnxruntime" in ok:
            specs.extend(BackendSpec("onnxruntime", threads=t) for t in sorted(thread_options))
        if "openvino" in ok and "CPU" in probe.openvino_devices:
            precisions = ["fp32", "bf16"] if probe.supports_bf16 else ["fp32"]
            for precision in precisions:
                if mode == "throughput":
                    # the batch split evenly over the streams vs. one sample per async request
                    specs.append(BackendSpec("openvino", precision=precision))
                    specs.append(BackendSpec("openvino", precision=precision, stream_batch=1))
                    continue
                for t in sorted(thread_options, reverse=True):
                    # threads=None is OpenVINO's own choice (all cores); narrower ones are measured too. One
                    # thread is always spelled so, also where it is all cores: the tuner picks the engine among
                    # one-thread calls.
                    specs.append(BackendSpec("openvino", precision=precision,
                                             threads=None if t == cores and t > 1 else t))
        if "onnxruntime_openvino" in ok:
            specs.append(BackendSpec("onnxruntime_openvino"))
    if "keras_tf" in ok:
        specs.append(BackendSpec("keras_tf"))
    return specs


def load_spec(spec: BackendSpec, name: str, metadata: dict, models_dir, mode: str,
              compiled_cache: Path | None = None) -> Runner:
    """Load one model on one engine. Framework failures arrive as ModelError / Unavailable.
    ``compiled_cache``: a folder where an engine that compiles the model for this CPU (OpenVINO) keeps what it
    compiled, so that the next process loading the same model the same way starts without compiling."""
    engine = ENGINES.get(spec.name)
    if engine is None:
        raise ConfigError(f"unknown backend {spec.name!r}; available: {', '.join(BACKENDS)} or auto")
    try:
        module = importlib.import_module(engine)
    except ImportError as exc:
        raise Unavailable(f"backend {spec.name} cannot be imported: {exc}") from exc
    try:
        caching = compiled_cache is not None and spec.name in CACHING_ENGINES
        extra = {"compiled_cache": compiled_cache} if caching else {}
        return module.load(within_share(spec), model_paths(name, models_dir), metadata, mode, **extra)
    except ImportError as exc:  # framework not installed
        raise Unavailable(f"backend {spec.name}: framework not installed: {exc}") from exc


def within_share(spec: BackendSpec) -> BackendSpec:
    """``spec`` with at most this process's share of the cores as threads, when a share is set (each worker of
    the batch scanner); a spec without a thread count would otherwise take every core in every worker."""
    share = process_share()
    if share is None or spec.name in ("onnxruntime_cuda", "tf_gpu"):
        return spec
    return spec.with_(threads=min(spec.threads or share, share))


def resolve_spec(backend: str) -> BackendSpec:
    spec = BackendSpec.parse(backend)
    if spec.name in ALIASES:
        spec = spec.with_(name=ALIASES[spec.name])
    if spec.name not in ENGINES:
        raise ConfigError(f"unknown backend {spec.name!r}; available: {', '.join(BACKENDS)} or auto")
    return spec
