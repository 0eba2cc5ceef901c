"""ONNX Runtime: CPU provider with explicit threads, CUDA provider with IO binding, OpenVINO provider.

Real-time sessions turn spinning off (``session.intra_op.allow_spinning=0``):
idle worker threads would otherwise burn the cores other requests and stages
need. Execution is sequential (these graphs are chains; parallel execution
only adds scheduling).
"""

from __future__ import annotations

from docauth.errors import ModelError, Unavailable
from docauth.runtime.engines.base import BackendSpec, Runner, file_sha256
from docauth.runtime.model import verify_file
from docauth.runtime.ort_env import import_ort
from docauth.runtime.threading import process_threads

PROVIDERS = {
    "onnxruntime": "CPUExecutionProvider",
    "onnxruntime_cuda": "CUDAExecutionProvider",
    "onnxruntime_openvino": "OpenVINOExecutionProvider",
}
SOURCE_SHA_KEY = "docauth.source_sha256"


def ort_errors():
    import_ort()
    from onnxruntime.capi import onnxruntime_pybind11_state as state  # deferred on purpose

    names = ("Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError", "RuntimeException",
             "InvalidProtobuf", "ModelLoaded", "NotImplemented", "InvalidGraph", "EPFail")
    return tuple(getattr(state, n) for n in names if hasattr(state, n)) + (RuntimeError,)


def default_threads(mode: str) -> int:
    cores = process_threads()
    return cores if mode == "throughput" else min(cores, 4)


def session_options(spec: BackendSpec, mode: str):
    ort = import_ort()

    so = ort.SessionOptions()
    so.intra_op_num_threads = spec.threads or default_threads(mode)
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    if mode == "realtime":
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        so.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return so


def check_fresh(session, paths) -> str | None:
    """The ONNX file records the sha256 of the .keras it came from; a retrained model makes it stale."""
    recorded = session.get_modelmeta().custom_metadata_map.get(SOURCE_SHA_KEY)
    if recorded and paths.keras.is_file() and file_sha256(paths.keras) != recorded:
        raise ModelError(f"{paths.onnx} is stale (its {paths.keras.name} changed); run `docauth export`")
    return recorded


def provider_list(spec: BackendSpec, mode: str):
    provider = PROVIDERS[spec.name]
    if provider == "CUDAExecutionProvider":
        device_id = int((spec.device or "0").split(":")[-1])
        # ONNX Runtime's CUDA provider rounds matrix inputs to TF32 by default, which changes the recogniser's
        # text on some crops against the fp32 CPU path the thresholds were set on; TF32 only when asked for.
        return [(provider, {"device_id": device_id, "use_tf32": "1" if spec.precision == "tf32" else "0"}),
                "CPUExecutionProvider"]
    if provider == "OpenVINOExecutionProvider":
        options = {"device_type": spec.device or "CPU", "precision": "BF16" if spec.precision == "bf16" else "FP32"}
        if spec.threads:
            options["num_of_threads"] = str(spec.threads)
        return [(provider, options), "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def load(spec: BackendSpec, paths, metadata: dict, mode: str) -> Runner:
    ort = import_ort()

    provider = PROVIDERS[spec.name]
    if provider not in ort.get_available_providers():
        raise Unavailable(f"{spec.name}: ONNX Runtime has no {provider} here")
    if not paths.onnx.is_file():
        raise ModelError(f"ONNX model missing: {paths.onnx}; run `docauth export`")
    verify_file(paths.onnx, metadata)  # a corrupt or replaced file would load and answer wrongly
    so = session_options(spec, mode)
    try:
        session = ort.InferenceSession(str(paths.onnx), so, providers=provider_list(spec, mode))
    except ort_errors() as exc:
        raise ModelError(f"ONNX Runtime cannot load {paths.onnx}: {exc}") from exc
    source_sha = check_fresh(session, paths)
    input_name = session.get_inputs()[0].name
    output_name = session.get_outputs()[0].name
    details = {"providers": session.get_providers(), "intra_op_threads": so.intra_op_num_threads,
               "spinning": mode != "realtime", "execution_mode": "sequential", "source_sha256": source_sha}

    if provider == "CUDAExecutionProvider":
        device_id = int((spec.device or "0").split(":")[-1])

        def run(batch):
            # IO binding: input copied to the device once, output fetched once, no per-run allocations on host.
            binding = session.io_binding()
            x = ort.OrtValue.ortvalue_from_numpy(batch, "cuda", device_id)
            binding.bind_ortvalue_input(input_name, x)
            binding.bind_output(output_name, "cuda", device_id)
            session.run_with_iobinding(binding)
            return binding.copy_outputs_to_cpu()[0]

        details["io_binding"] = True
    else:

        def run(batch):
            return session.run([output_name], {input_name: batch})[0]

    return Runner(backend=spec.name, run=run, details=details)
