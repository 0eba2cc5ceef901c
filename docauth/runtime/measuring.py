"""Timing candidates side by side on a shared host: interleaved slices, wall clock and CPU time.

Other processes share these cores: the tuner and the benchmarks interleave the cases they compare and keep
medians, and real-time candidates are ranked by the CPU time of a call (:func:`compute_ms`), which other
processes' load does not stretch.
"""

from __future__ import annotations

import time
from concurrent.futures import wait
from typing import Callable

import numpy as np

from docauth.runtime.engines.base import BackendSpec
from docauth.runtime.threading import process_threads

# Engines whose calls wait on a device: their caller's CPU time says nothing of how long a call takes.
DEVICE_ENGINES = ("onnxruntime_cuda", "tf_gpu")
# Engines that run a one-thread call on the caller's thread (its thread CPU time equals the process's).
ONE_THREAD_ON_CALLER = ("onnxruntime", "openvino")


def on_device(spec: BackendSpec) -> bool:
    """Does the configuration run its calls on an accelerator (the caller waits, its CPU idle)?"""
    return spec.name in DEVICE_ENGINES or spec.device not in (None, "CPU")


def summarize(times_s: list[float], batch: int) -> dict:
    arr = np.array(times_s) * 1000
    median = float(np.percentile(arr, 50))
    return {"latency_ms_p50": round(median, 3), "latency_ms_p95": round(float(np.percentile(arr, 95)), 3),
            "throughput_img_s": round(batch * 1000 / median, 1), "iterations": len(arr)}


def measure_interleaved(cases: dict, *, seconds: float, rounds: int = 4, min_iters: int = 1, warmup: int = 1,
                        cpu: dict | None = None) -> dict[str, list[float]]:
    """Time every case in round-robin slices; returns per-iteration wall-clock seconds per case.

    ``seconds`` is the whole measurement, shared by the cases: ``rounds`` slices of each, a case's slice
    running ``min_iters`` calls at least (a slow case may overrun its share by those calls).

    Other processes share these cores; measuring each case in one block would
    let a burst of their work land on one case only. Interleaving spreads it
    over all cases, and medians (not means) keep the rest out. ``cpu``, when
    given, receives per case the iterations' (calling thread, whole process)
    CPU seconds, which other processes' load does not stretch.
    """
    for step in cases.values():
        for _ in range(warmup):
            step()
    times: dict[str, list[float]] = {key: [] for key in cases}
    if cpu is not None:
        cpu.update({key: [] for key in cases})
    slice_s = seconds / (rounds * max(1, len(cases)))
    for _ in range(rounds):
        for key, step in cases.items():
            start = time.perf_counter()
            n = 0
            while n < min_iters or time.perf_counter() - start < slice_s:
                c0, p0, t0 = time.thread_time(), time.process_time(), time.perf_counter()
                step()
                times[key].append(time.perf_counter() - t0)
                if cpu is not None:
                    cpu[key].append((time.thread_time() - c0, time.process_time() - p0))
                n += 1
    return times


def compute_ms(spec: BackendSpec, cpu_samples: list[tuple[float, float]], wall_samples: list[float]) -> float:
    """Median milliseconds one call computes: what its latency is on an idle host, measured so that other
    processes' load does not change it (a loaded host stretches wall-clock time, and not evenly between
    candidates measured a moment apart).

    A one-thread CPU engine (ONNX Runtime, OpenVINO) runs a call on its caller's thread entirely: that
    thread's CPU time. A multi-threaded one takes a share on its caller's thread and spreads the rest; it
    computes at least that share and at least its process CPU spread over its threads (which counts the
    process's other busy threads too, so one-thread candidates are measured on their own thread alone).
    A device engine's call waits on the device: its wall-clock time.
    """
    if on_device(spec) or not cpu_samples:
        return round(float(np.median(wall_samples)) * 1000, 3)
    if spec.threads == 1 and spec.name in ONE_THREAD_ON_CALLER:
        per_call = [caller for caller, _ in cpu_samples]
    else:
        threads = max(spec.threads or process_threads(), 1)
        per_call = [max(caller, process / threads) for caller, process in cpu_samples]
    return round(float(np.median(per_call)) * 1000, 3)


def measure(run: Callable[[np.ndarray], np.ndarray], inputs: np.ndarray, batch: int, *, seconds: float = 0.6) -> dict:
    """Latency percentiles and images/s of ``run`` at ``batch`` (one case alone)."""
    step = stepper(run, inputs, batch)
    return summarize(measure_interleaved({"case": step}, seconds=seconds, rounds=1)["case"], batch)


def stepper(run, inputs: np.ndarray, batch: int) -> Callable[[], object]:
    n = len(inputs)
    batches = [np.ascontiguousarray(np.take(inputs, range(i, i + batch), axis=0, mode="wrap"))
               for i in range(0, max(n, batch), batch)]
    counter = iter(range(1 << 62))
    return lambda: run(batches[next(counter) % len(batches)])


def burst_step(submitters: dict[str, Callable], singles: dict[str, list[np.ndarray]], latencies: list[float],
               burst: int = 64) -> Callable[[], None]:
    """A step that puts ``burst`` single-image requests into every model's batcher at once and waits for all.

    This is how throughput mode is used (many concurrent callers, every model's
    batcher busy at the same time), so backends that oversubscribe the cores
    under concurrency show it here.
    """
    names = list(submitters)
    count = len(singles[names[0]])
    counter = iter(range(1 << 62))

    def step():
        offset = next(counter) * burst
        futures = []
        for k in range(burst):
            for n in names:
                t0 = time.perf_counter()
                f = submitters[n](singles[n][(offset + k) % count])
                f.add_done_callback(lambda _f, t0=t0: latencies.append(time.perf_counter() - t0))
                futures.append(f)
        wait(futures)
        for f in futures:
            f.result()  # re-raises a failed batch

    return step
