"""``docauth bench classify``: the classifiers on every backend and mode against Keras ``model.predict``.

One run, same inputs for every case. The baseline runs in a child process with
the environment as it was before docauth's threading plan (TensorFlow's own
defaults), as an application calling ``model.predict`` would. Every other case
runs here, after the plan was applied before TensorFlow's import.

* realtime: one image at a time through all models (document then side);
  latency per image = the sum, p50/p95 over images.
* throughput: bursts of single-image requests submitted to the models'
  micro-batchers (``load_model(mode="throughput")``); images/s over the burst.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from docauth.classifiers.preprocess import preprocess_batch
from docauth.classifiers.stage import DOCUMENT_MODEL, SIDE_MODEL
from docauth.config import Settings
from docauth.errors import DocauthError, ModelError
from docauth.runtime import backends, loading, threading as rt_threading, tuning
from docauth.runtime.engines.base import input_hwc
from docauth.runtime.inputs import scaled_for
from docauth.runtime.model import load_metadata, model_paths
from docauth.runtime.probe import cached_probe
from docauth.runtime.tuning import burst_step, measure_interleaved, summarize
from docauth.synth import generate_sample

# The models the classifier stage preprocesses itself (docauth.classifiers.preprocess).
CLASSIFIER_MODELS = (DOCUMENT_MODEL, SIDE_MODEL)

# fp32 FLOP per cycle per core with AVX-512: 2 FMA pipes x 16 fp32 lanes x 2 (multiply + add).
FLOP_PER_CYCLE_AVX512 = 64
FLOP_PER_CYCLE_AVX2 = 32


# --- inputs -----------------------------------------------------------------------------------------
def bench_inputs(metadata: dict, count: int, seed: int = 11) -> tuple[np.ndarray, str]:
    """Generated document/non-document photos, preprocessed as a check would: the classifiers' own
    preprocessing for the classifiers, an area resize onto the stated input scale for any other model."""
    h, w, c = input_hwc(metadata)
    images = [generate_sample(seed, i).image for i in range(count)]
    if metadata.get("name") in CLASSIFIER_MODELS and c == 3:
        return preprocess_batch(images, h, w), (f"docauth.synth.generate_sample(seed={seed}, 0..{count - 1}) "
                                                "through docauth.classifiers.preprocess")
    out = np.empty((count, h, w, c), np.float32)
    for i, image in enumerate(images):
        resized = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
        out[i] = resized.reshape(h, w, -1)[..., :c]
    return scaled_for(metadata, out), f"docauth.synth.generate_sample(seed={seed}), area-resized to {w}x{h}"


# --- FLOPs and peak -------------------------------------------------------------------------------
def onnx_flops(path: Path, input_shape: tuple[int, ...] | None = None) -> int | None:
    """Multiply-adds x 2 of Conv / MatMul / Gemm at batch 1, from the ONNX graph with inferred shapes.
    ``input_shape`` (batch included) fixes the input's sides where the graph leaves them open."""
    try:
        import onnx  # deferred on purpose: only the ONNX tooling needs it
        from onnx import numpy_helper, shape_inference
    except ImportError:
        return None
    model = onnx.load(str(path))
    graph_input = model.graph.input[0]
    dims = graph_input.type.tensor_type.shape.dim
    if input_shape is not None:
        for dim, size in zip(dims, input_shape):
            dim.ClearField("dim_param")
            dim.dim_value = size
    if dims and not dims[0].dim_value:
        dims[0].dim_value = 1
    model = shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(model.graph.value_info) + list(model.graph.output) + list(model.graph.input):
        shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    inits = {i.name: list(numpy_helper.to_array(i).shape) for i in model.graph.initializer}
    for node in model.graph.node:  # some exporters keep the weights in Constant nodes instead
        if node.op_type == "Constant" and node.attribute and node.attribute[0].HasField("t"):
            inits[node.output[0]] = list(node.attribute[0].t.dims)
    total = 0
    for node in model.graph.node:
        out = shapes.get(node.output[0])
        if not out or 0 in out:
            continue
        if node.op_type == "Conv" and node.input[1] in inits:
            w = inits[node.input[1]]  # [Cout, Cin/group, kh, kw]
            total += 2 * int(np.prod(out)) * int(np.prod(w[1:]))
        elif node.op_type in ("MatMul", "Gemm"):
            a = shapes.get(node.input[0]) or inits.get(node.input[0])
            if a:
                k = a[-1] if not (node.op_type == "Gemm" and any(at.name == "transA" and at.i for at in node.attribute)) \
                    else a[0]
                total += 2 * int(np.prod(out)) * int(k)
    return total


def cpu_peak_gflops(probe) -> dict:
    ghz = (probe.cpu_max_mhz or probe.cpu_mhz or 0) / 1000
    per_cycle = FLOP_PER_CYCLE_AVX512 if probe.isa.get("avx512f") else FLOP_PER_CYCLE_AVX2
    return {"cores": probe.physical_cores, "ghz": round(ghz, 3), "flop_per_cycle_per_core": per_cycle,
            "peak_gflops": round(probe.physical_cores * ghz * per_cycle, 1),
            "assumption": (f"{probe.physical_cores} cores x {ghz:.2f} GHz (clock reported by the kernel; "
                           "the VM shows no boost clock) x "
                           f"{per_cycle} fp32 FLOP/cycle (2 FMA pipes x {per_cycle // 4} lanes x 2)")}


# --- baseline (child process) --------------------------------------------------------------------
def _baseline_child(models: list[str], models_dir: str, inputs_path: str, seconds: float) -> dict:
    import keras  # deferred on purpose: TensorFlow takes seconds to import

    data = np.load(inputs_path)
    loaded = {n: keras.saving.load_model(model_paths(n, models_dir).keras, compile=False) for n in models}
    for n in models:
        loaded[n].predict(data[n][:1], verbose=0)
        loaded[n].predict(data[n][:32], batch_size=32, verbose=0)
    count = len(data[models[0]])
    times = []
    start = time.perf_counter()
    i = 0
    while len(times) < 5 or (time.perf_counter() - start < seconds * 3 and len(times) < count):
        t0 = time.perf_counter()
        for n in models:
            loaded[n].predict(data[n][i % count][None], verbose=0)
        times.append(time.perf_counter() - t0)
        i += 1
    b32 = []
    start = time.perf_counter()
    while len(b32) < 3 or (time.perf_counter() - start < seconds * 3 and len(b32) < 10):
        idx = np.arange(len(b32) * 32, len(b32) * 32 + 32) % count
        t0 = time.perf_counter()
        for n in models:
            loaded[n].predict(data[n][idx], batch_size=32, verbose=0)
        b32.append(time.perf_counter() - t0)
    arr = np.array(times) * 1000
    import tensorflow as tf

    return {
        "what": "Keras model.predict, TensorFlow default threading, all models on each image",
        "tensorflow_threads": {"intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
                               "inter_op": tf.config.threading.get_inter_op_parallelism_threads()},
        "predict_batch1": {"batch": 1, "latency_ms_p50": round(float(np.percentile(arr, 50)), 2),
                           "latency_ms_p95": round(float(np.percentile(arr, 95)), 2),
                           "throughput_img_s": round(1000 / float(arr.mean()), 1), "iterations": len(arr)},
        "predict_batch32": {"batch": 32, "latency_ms_p50": round(float(np.median(b32)) * 1000, 2),
                            "throughput_img_s": round(32 / float(np.median(b32)), 1), "iterations": len(b32)},
    }


def run_baseline(models, models_dir, inputs: dict[str, np.ndarray], seconds: float, base_env: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        inputs_path = os.path.join(tmp, "inputs.npz")
        np.savez(inputs_path, **inputs)
        cmd = [sys.executable, "-m", "docauth.training.classifier_bench", "baseline", ",".join(models), str(models_dir),
               inputs_path, str(seconds)]
        proc = subprocess.run(cmd, env=base_env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise ModelError(f"baseline process failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- measured cases -----------------------------------------------------------------------------
def _realtime_step(loaded: dict, inputs: dict) -> Callable[[], None]:
    """One image through every model, one after the other (document, then side)."""
    names = list(loaded)
    count = len(inputs[names[0]])
    singles = {n: [np.ascontiguousarray(inputs[n][i][None]) for i in range(count)] for n in names}
    counter = iter(range(1 << 62))

    def step():
        i = next(counter) % count
        for n in names:
            loaded[n].predict(singles[n][i])

    return step


def _accuracy(loaded: dict, inputs: dict, reference: dict) -> dict:
    diffs, agree = [], []
    for n, model in loaded.items():
        out = model.predict(inputs[n]) if model.batcher is None else np.asarray(model.submit(inputs[n]).result())
        diffs.append(float(np.max(np.abs(out - reference[n]))))
        agree.append(float(np.mean(out.argmax(-1) == reference[n].argmax(-1))))
    return {"max_abs_diff_vs_keras": float(f"{max(diffs):.3g}"), "argmax_agreement": round(min(agree), 4)}


def _load_all(names, models_dir, backend: str, mode: str, settings: Settings) -> dict:
    return {n: loading.load(n, models_dir=models_dir, backend=backend, mode=mode, settings=settings)
            for n in names}


def run_classify_bench(names: list[str], *, models_dir=None, n_images: int = 64, seconds: float = 1.0,
                       progress: Callable[[str], None] | None = None) -> dict:
    say = progress or (lambda line: None)
    base_env = dict(os.environ)
    report = rt_threading.apply_threading(mode="realtime")  # before TensorFlow, as in production
    settings = Settings.load()
    models_dir = Path(models_dir or settings.models_dir)
    probe = cached_probe()
    metas = {n: load_metadata(n, models_dir) for n in names}
    inputs, source = {}, ""
    for n in names:
        inputs[n], source = bench_inputs(metas[n], n_images)
    say(f"inputs: {n_images} x {source}")

    say("baseline: Keras model.predict in a child process with default threading ...")
    baseline = run_baseline(names, models_dir, inputs, seconds, base_env)
    say(f"baseline: batch 1 p50 {baseline['predict_batch1']['latency_ms_p50']} ms, "
        f"batch 32 {baseline['predict_batch32']['throughput_img_s']} img/s")

    reference_models = _load_all(names, models_dir, "keras_tf", "realtime", settings)
    reference = {n: reference_models[n].predict(inputs[n]) for n in names}
    onnx_ready = all(model_paths(n, models_dir).onnx.is_file() for n in names)
    rows, chosen = [], {}

    profile = tuning.load_profile(tuning.profile_path(settings))
    tuned_batch = (profile or {}).get("choice", {}).get("throughput", {}).get("batch")
    if tuned_batch and profile.get("fingerprint") == probe.fingerprint():
        # every backend at the batch size the tuner chose, so backends are compared like for like
        settings = dataclasses.replace(settings, max_batch_size=int(tuned_batch))
    for mode in backends.MODES:
        keys = [spec.key for spec in backends.candidates(probe, mode, onnx_ready=onnx_ready)] + ["auto"]
        mode_rows = _measure_mode(keys, names, models_dir, mode, settings, inputs, reference, seconds, say)
        chosen_row = mode_rows.pop()
        rows.extend(mode_rows)
        _compare(chosen_row, [r for r in mode_rows if r.get("error") is None], baseline, mode)
        chosen[mode] = chosen_row
        say("chosen " + _row_line(chosen_row))

    flops = {n: onnx_flops(model_paths(n, models_dir).onnx) if onnx_ready else None for n in names}
    peak = cpu_peak_gflops(probe)
    best_tp = max((r for r in rows if r.get("error") is None), key=lambda r: r["throughput_img_s"], default=None)
    efficiency = None
    if best_tp and all(flops.values()):
        per_image = sum(flops.values())
        achieved = per_image * best_tp["throughput_img_s"] / 1e9
        efficiency = {"model_flops_per_image": flops, "best_backend": f"{best_tp['name']} ({best_tp['mode']})",
                      "achieved_gflops": round(achieved, 2), "fraction_of_fp32_peak": round(achieved / peak["peak_gflops"], 4),
                      "peak": peak}
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {k: probe.export()[k] for k in ("cpu_model", "physical_cores", "sockets", "cpu_mhz", "memory_gib",
                                                   "isa", "tf_gpus", "ort_providers", "openvino_devices",
                                                   "framework_versions", "fingerprint")},
        "models": {n: {"input": metas[n]["input"], "labels": metas[n]["labels"], "version": metas[n].get("version")}
                   for n in names},
        "inputs": {"count": n_images, "source": source},
        "threading": report.export(),
        "baseline": baseline,
        "backends": rows,
        "chosen": chosen,
        "efficiency": efficiency,
    }


def _measure_mode(keys, names, models_dir, mode, settings, inputs, reference, seconds, say) -> list[dict]:
    """Every backend of one mode, loaded side by side and measured interleaved (see measure_interleaved)."""
    rows, loaded_sets, steps, latencies = [], {}, {}, {}
    burst = 64
    for key in keys:
        row = {"name": key, "mode": mode}
        rows.append(row)
        try:
            loaded = _load_all(names, models_dir, key, mode, settings)
        except DocauthError as exc:
            row.update(error=exc.message, batch=None)
            say(_row_line(row))
            continue
        if key == "auto":
            row["name"] = " + ".join(dict.fromkeys(m.spec for m in loaded.values()))
            row["reason"] = {n: m.reason for n, m in loaded.items()}
            same = {m.spec for m in loaded.values()}
            batch = max(m.batcher.config.max_batch_size for m in loaded.values()) if mode == "throughput" else 1
            twin = next((r for r in rows[:-1] if r["name"] in same and len(same) == 1 and r.get("batch") == batch
                         and r.get("error") is None), None)
            if twin is not None:
                # The choice is one of the configurations measured above: its numbers are that row's
                # (measuring the same configuration twice would compare noise with noise).
                row["measured_as"] = twin["name"]
                for m in loaded.values():
                    m.close()
                continue
        loaded_sets[key] = loaded
        if mode == "realtime":
            row["batch"] = 1
            steps[key] = _realtime_step(loaded, inputs)
        else:
            row["batch"] = max(m.batcher.config.max_batch_size for m in loaded.values())
            latencies[key] = []
            singles = {n: [np.ascontiguousarray(x[None]) for x in inputs[n]] for n in names}
            steps[key] = burst_step({n: m.submit for n, m in loaded.items()}, singles, latencies[key], burst)
    try:
        times = measure_interleaved(steps, seconds=seconds * len(steps), rounds=5, min_iters=1 if mode == "throughput"
                                    else 5, warmup=1)
        for row, key in zip(rows, keys):
            if row.get("measured_as"):
                twin = next(r for r in rows if r["name"] == row["measured_as"] and r is not row)
                row.update({k: v for k, v in twin.items() if k not in ("name", "mode", "reason")})
                continue
            if key not in times:
                continue
            if mode == "realtime":
                row.update(summarize(times[key], 1))
            else:
                per_burst = np.median(times[key])
                lat = np.array(latencies[key]) * 1000
                row.update({"latency_ms_p50": round(float(np.percentile(lat, 50)), 3),
                            "latency_ms_p95": round(float(np.percentile(lat, 95)), 3),
                            "throughput_img_s": round(burst / float(per_burst), 1), "iterations": len(times[key]),
                            "mean_batch_size": round(float(np.mean(
                                [m.batcher.stats()["mean_batch_size"] for m in loaded_sets[key].values()])), 1)})
            row.update(_accuracy(loaded_sets[key], inputs, reference))
            if key != "auto":
                say(_row_line(row))
    finally:
        for loaded in loaded_sets.values():
            for m in loaded.values():
                m.close()
    return rows


def _compare(row: dict, same_mode: list[dict], baseline: dict, mode: str) -> None:
    if row.get("error") is not None or not same_mode:
        return
    if mode == "realtime":
        best = min(same_mode, key=lambda r: r["latency_ms_p50"])
        row["vs_best_measured"] = round(row["latency_ms_p50"] / best["latency_ms_p50"], 3)  # <= 1.1 wanted
        row["speedup_vs_predict_batch1"] = round(baseline["predict_batch1"]["latency_ms_p50"] / row["latency_ms_p50"], 1)
    else:
        best = max(same_mode, key=lambda r: r["throughput_img_s"])
        row["vs_best_measured"] = round(row["throughput_img_s"] / best["throughput_img_s"], 3)  # >= 0.9 wanted
        row["speedup_vs_predict_batch32"] = round(
            row["throughput_img_s"] / baseline["predict_batch32"]["throughput_img_s"], 1)
    row["best_measured"] = best["name"]


def _row_line(row: dict) -> str:
    if row.get("error"):
        return f"{row['mode']:10s} {row['name']:40s} error: {row['error'][:80]}"
    return (f"{row['mode']:10s} {row['name']:40s} batch {row['batch']:3d}  p50 {row['latency_ms_p50']:8.2f} ms  "
            f"p95 {row['latency_ms_p95']:8.2f} ms  {row['throughput_img_s']:8.1f} img/s  "
            f"diff {row['max_abs_diff_vs_keras']:.1e} argmax {row['argmax_agreement']:.3f}")


def format_report(result: dict) -> str:
    b = result["baseline"]
    lines = [f"machine: {result['machine']['cpu_model']}, {result['machine']['physical_cores']} cores; "
             f"{result['date']}; inputs: {result['inputs']['count']} x {result['inputs']['source']}",
             f"baseline model.predict batch 1: p50 {b['predict_batch1']['latency_ms_p50']} ms "
             f"p95 {b['predict_batch1']['latency_ms_p95']} ms; batch 32: {b['predict_batch32']['throughput_img_s']} img/s"]
    lines += [_row_line(r) for r in result["backends"]]
    for mode, row in result["chosen"].items():
        lines.append("chosen " + _row_line(row))
        for key in ("speedup_vs_predict_batch1", "speedup_vs_predict_batch32", "vs_best_measured"):
            if key in row:
                lines.append(f"    {key}: {row[key]}")
    eff = result.get("efficiency")
    if eff:
        lines.append(f"best {eff['best_backend']}: {eff['achieved_gflops']} GFLOP/s = "
                     f"{eff['fraction_of_fp32_peak']:.1%} of fp32 peak {eff['peak']['peak_gflops']} GFLOP/s "
                     f"({eff['peak']['assumption']})")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "baseline":
        _, _, models_arg, models_dir_arg, inputs_arg, seconds_arg = sys.argv
        print(json.dumps(_baseline_child(models_arg.split(","), models_dir_arg, inputs_arg, float(seconds_arg))))
    else:
        sys.exit("usage: python -m docauth.training.classifier_bench baseline MODELS MODELS_DIR INPUTS.npz SECONDS")


def format_markdown(result: dict) -> str:
    """The runtime section of docs/benchmarks.md from one run's JSON."""
    m, b = result["machine"], result["baseline"]
    isa = ", ".join(k for k, v in m["isa"].items() if v)
    versions = ", ".join(f"{k} {v}" for k, v in m["framework_versions"].items())
    out = [f"Measured {result['date']} on {m['cpu_model']}, {m['physical_cores']} cores / {m['sockets']} socket, "
           f"{m['cpu_mhz']} MHz, {m['memory_gib']} GiB; ISA {isa}; no GPU. {versions}. "
           f"Inputs: {result['inputs']['count']} x {result['inputs']['source']}. Models: "
           + ", ".join(f"{n} {v['input']['height']}x{v['input']['width']} ({len(v['labels'])} classes)"
                       for n, v in result["models"].items()) + ".",
           "",
           f"Baseline (Keras `model.predict`, TensorFlow default threading, child process): one image at a time "
           f"through all models p50 **{b['predict_batch1']['latency_ms_p50']} ms** (p95 "
           f"{b['predict_batch1']['latency_ms_p95']} ms); `model.predict` at batch 32: "
           f"**{b['predict_batch32']['throughput_img_s']} img/s**.",
           "",
           "| mode | backend | batch | p50 ms | p95 ms | img/s | max abs diff vs Keras | argmax agreement |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in result["backends"]:
        if r.get("error"):
            out.append(f"| {r['mode']} | {r['name']} | | | | | error: {r['error'][:60]} | |")
            continue
        out.append(f"| {r['mode']} | {r['name']} | {r['batch']} | {r['latency_ms_p50']} | {r['latency_ms_p95']} | "
                   f"{r['throughput_img_s']} | {r['max_abs_diff_vs_keras']:.1e} | {r['argmax_agreement']} |")
    out += ["", "Chosen by the deployment profile (`load_model(backend=\"auto\")`), measured in the same run:", ""]
    for mode, r in result["chosen"].items():
        if r.get("error"):
            out.append(f"- **{mode}**: error {r['error']}")
            continue
        if r.get("measured_as"):
            out.append(f"- ({mode}: the choice is the configuration of the row `{r['measured_as']}` above; "
                       "its numbers are that row's.)")
        if mode == "realtime":
            out.append(f"- **realtime**: {r['name']}: p50 {r['latency_ms_p50']} ms for all models together, "
                       f"**{r.get('speedup_vs_predict_batch1')}x** lower than `model.predict` one image at a time "
                       f"(target >= 10x); {r.get('vs_best_measured')} x the latency of the best measured "
                       f"({r.get('best_measured')}) (target <= 1.10).")
        else:
            out.append(f"- **throughput**: {r['name']} at batch {r['batch']}: {r['throughput_img_s']} img/s, "
                       f"**{r.get('speedup_vs_predict_batch32')}x** `model.predict` at batch 32 (target >= 3x); "
                       f"{r.get('vs_best_measured')} x the best measured ({r.get('best_measured')}) "
                       f"(target >= 0.90).")
    eff = result.get("efficiency")
    if eff:
        flops = ", ".join(f"{n} {v / 1e6:.1f} MFLOP" for n, v in eff["model_flops_per_image"].items())
        out += ["", f"Hardware limit: model FLOPs per image ({flops}, Conv/MatMul multiply-adds x 2 from the ONNX "
                    f"graph) x the best images/s ({eff['best_backend']}) = {eff['achieved_gflops']} GFLOP/s = "
                    f"**{eff['fraction_of_fp32_peak']:.1%} of the fp32 peak** {eff['peak']['peak_gflops']} GFLOP/s "
                    f"({eff['peak']['assumption']})."]
    return "\n".join(out)
