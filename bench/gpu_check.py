"""GPU check: the ONNX Runtime CUDA path of the runtime layer really running, its parity with the CPU path
and its speed, on the arrays the pipeline really feeds each model.

    python bench/gpu_check.py --inputs gpu_inputs.npz --out gpu_check.json

``--inputs`` holds batches recorded during checks of generated and real documents by bench/gpu_inputs.py
(float16, one key per batch, ``<model>__<n>``). Each model is loaded twice through :func:`docauth.runtime.loading.load`, on
``onnxruntime`` (CPU) and ``onnxruntime_cuda``; the script reports whether every node runs on CUDA (a session
with CPU fallback disabled loads), the largest output difference and top-class agreement, latency at batch 1,
images per second at the throughput batch (also with TF32 asked for), and the host-to-device / device-to-host copy times. Without a CUDA
provider it measures the CPU half and says why the GPU half is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time

import numpy as np

THROUGHPUT_BATCH = {"document": 32, "side": 32, "mrz_lines": 32, "text_recognizer": 32, "text_detector": 8}


def gpu_name() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no nvidia-smi ({exc})"
    return out.stdout.strip() or out.stderr.strip()


def timed(fn, repeats: int, warmup: int = 5) -> float:
    """Median milliseconds of ``fn()``."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def batches_by_model(path: str) -> dict[str, list[np.ndarray]]:
    data = np.load(path)
    out: dict[str, list[np.ndarray]] = {}
    for key in sorted(data.files):
        name = key.split("__")[0]
        out.setdefault(name, []).append(data[key].astype(np.float32))
    return out


def parity(name: str, cpu_out: np.ndarray, gpu_out: np.ndarray) -> dict:
    diff = float(np.max(np.abs(cpu_out - gpu_out)))
    if name == "text_detector":  # a probability map: the text pixels after the reader's threshold
        agree = float(np.mean((cpu_out > 0.3) == (gpu_out > 0.3)))
    elif name in ("text_recognizer", "mrz_lines"):  # per time step classes: whole sequences must agree
        agree = float(np.mean(np.all(cpu_out.argmax(-1) == gpu_out.argmax(-1), axis=-1)))
    else:
        agree = float(np.mean(cpu_out.argmax(-1) == gpu_out.argmax(-1)))
    return {"max_abs_diff": diff, "agreement": agree}


def throughput_batch(name: str, batches: list[np.ndarray]) -> np.ndarray:
    """The throughput batch from recorded samples of the most common shape (crops padded alike)."""
    shapes: dict[tuple, list[np.ndarray]] = {}
    for b in batches:
        for sample in b:
            shapes.setdefault(sample.shape, []).append(sample)
    samples = max(shapes.values(), key=len)
    n = THROUGHPUT_BATCH.get(name, 16)
    return np.stack([samples[i % len(samples)] for i in range(n)])


def cuda_only_session(ort, path: str) -> str:
    """'all nodes on CUDA' when a session with the CPU fallback disabled loads, else the refusal."""
    from docauth.runtime.engines.onnx_runtime import ort_errors

    so = ort.SessionOptions()
    so.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    so.log_severity_level = 3
    try:
        ort.InferenceSession(path, so, providers=["CUDAExecutionProvider"])
    except ort_errors() as exc:
        return f"not all on CUDA: {str(exc)[:200]}"
    return "all nodes on CUDA"


def transfer_costs(ort, path: str, batch: np.ndarray) -> dict:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    session = ort.InferenceSession(path, so, providers=["CUDAExecutionProvider"])
    inp, outp = session.get_inputs()[0].name, session.get_outputs()[0].name
    device_input = ort.OrtValue.ortvalue_from_numpy(batch, "cuda", 0)
    binding = session.io_binding()
    binding.bind_ortvalue_input(inp, device_input)
    binding.bind_output(outp, "cuda", 0)

    def run_bound():
        session.run_with_iobinding(binding)
        binding.synchronize_outputs()

    run_bound()
    return {
        "h2d_ms": timed(lambda: ort.OrtValue.ortvalue_from_numpy(batch, "cuda", 0), 30),
        "run_on_device_ms": timed(run_bound, 30),
        "d2h_ms": timed(lambda: binding.copy_outputs_to_cpu(), 30),
        "input_mb": batch.nbytes / 1e6,
    }


def check_model(name: str, batches: list[np.ndarray], models_dir: str, repeats: int) -> dict:
    from docauth.runtime.engines.onnx_runtime import import_ort
    from docauth.runtime.loading import load

    ort = import_ort()
    row: dict = {"model": name, "batches": len(batches)}
    cpu = load(name, models_dir=models_dir, backend="onnxruntime", mode="realtime")
    row["cpu_threads"] = cpu.details.get("intra_op_threads")
    one = batches[0][:1]
    big = throughput_batch(name, batches)
    row["throughput_batch"] = list(big.shape)
    row["cpu_b1_ms"] = timed(lambda: cpu.predict(one), repeats)
    row["cpu_tp_img_s"] = len(big) / (timed(lambda: cpu.predict(big), max(3, repeats // 10), warmup=1) / 1000)
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        row["gpu"] = "no CUDAExecutionProvider in this onnxruntime"
        return row
    gpu = load(name, models_dir=models_dir, backend="onnxruntime_cuda", mode="realtime")
    row["gpu_providers"] = gpu.details.get("providers")
    path = os.path.join(models_dir, f"{name}.onnx")
    row["placement"] = cuda_only_session(ort, path)
    checks = [parity(name, cpu.predict(b), gpu.predict(b)) for b in batches]
    row["max_abs_diff"] = max(c["max_abs_diff"] for c in checks)
    row["agreement"] = statistics.mean(c["agreement"] for c in checks)
    row["gpu_b1_ms"] = timed(lambda: gpu.predict(one), repeats)
    row["gpu_tp_img_s"] = len(big) / (timed(lambda: gpu.predict(big), repeats) / 1000)
    tf32 = load(name, models_dir=models_dir, backend="onnxruntime_cuda:precision=tf32", mode="realtime")
    checks = [parity(name, cpu.predict(b), tf32.predict(b)) for b in batches]
    row["tf32_max_abs_diff"] = max(c["max_abs_diff"] for c in checks)
    row["tf32_agreement"] = statistics.mean(c["agreement"] for c in checks)
    row["tf32_tp_img_s"] = len(big) / (timed(lambda: tf32.predict(big), repeats) / 1000)
    row["transfer_b1"] = transfer_costs(ort, path, one)
    row["transfer_tp"] = transfer_costs(ort, path, big)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", required=True)
    parser.add_argument("--models-dir", default="models")
    parser.add_argument("--out", default="gpu_check.json")
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args()
    from docauth.runtime.engines.onnx_runtime import import_ort

    ort = import_ort()
    preload = getattr(ort, "preload_dlls", None)
    if preload is not None and "CUDAExecutionProvider" in ort.get_available_providers():
        preload()  # CUDA and cuDNN from the nvidia-* wheels beside this interpreter, when the system has none
    facts = {"gpu": gpu_name(), "onnxruntime": ort.__version__, "providers": ort.get_available_providers(),
             "cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
             "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    try:
        import tensorflow as tf  # noqa: F401 - only to report whether the TensorFlow GPU path can be tried

        facts["tensorflow"] = f"{tf.__version__}, GPUs: {tf.config.list_physical_devices('GPU')}"
    except ImportError as exc:
        facts["tensorflow"] = f"not importable here ({exc})"
    print(json.dumps(facts, indent=1), flush=True)
    rows = []
    for name, batches in batches_by_model(args.inputs).items():
        row = check_model(name, batches, args.models_dir, args.repeats)
        print(json.dumps(row), flush=True)
        rows.append(row)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump({"facts": facts, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
