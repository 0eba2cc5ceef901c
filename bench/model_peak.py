"""How close each model runs to the machine's limit: FLOP per input x inputs per CPU-second, over one core's peak.

    python bench/model_peak.py [--models document,side,mrz_lines,text_recognizer] [--seconds 2] [--out peak.json]

Each model on each one-thread CPU engine here (ONNX Runtime; OpenVINO fp32, and bf16 where the CPU has it), at
batch 1 and batch 32, timed in the calling thread's CPU time (the one-thread engines compute there; other
processes' load does not stretch it), engines interleaved. FLOP: multiply-adds x 2 of Conv / MatMul / Gemm from
the ONNX graph at the input size the metadata states. Peaks of one core at the kernel's reported clock: fp32
AVX-512, 2 FMA pipes x 16 lanes x 2 = 64 FLOP/cycle; AMX bf16, 1,024 FLOP/cycle (Intel's figure per core);
bf16 configurations are set against the AMX peak, fp32 ones against the AVX-512 peak.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

FP32_FLOP_PER_CYCLE = 64
AMX_BF16_FLOP_PER_CYCLE = 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="document,side,mrz_lines,text_recognizer")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per configuration")
    parser.add_argument("--out")
    args = parser.parse_args()

    from docauth.runtime import backends
    from docauth.runtime.engines.base import BackendSpec, input_hwc
    from docauth.runtime.inputs import sample_inputs, scaled_for
    from docauth.runtime.model import load_metadata, model_paths
    from docauth.runtime.probe import cached_probe
    from docauth.runtime.tolerance import output_agreement, tolerance_of, within
    from docauth.training.classifier_bench import onnx_flops

    probe = cached_probe()
    ghz = (probe.cpu_max_mhz or probe.cpu_mhz or 0) / 1000
    amx = bool(probe.isa.get("amx_bf16"))
    specs = [BackendSpec("onnxruntime", threads=1), BackendSpec("openvino", threads=1)]
    if probe.supports_bf16:
        specs.append(BackendSpec("openvino", threads=1, precision="bf16"))
    rows = []
    for name in args.models.split(","):
        meta = load_metadata(name)
        h, w, c = (s or d for s, d in zip(input_hwc(meta), (640, 640, 3)))
        x = scaled_for(meta, sample_inputs((h, w, c), 32, seed=1, text_lines=3))
        layout = (1, c, h, w) if meta.get("input", {}).get("layout") == "NCHW" else (1, h, w, c)
        flops = onnx_flops(model_paths(name).onnx, layout)
        tolerance = tolerance_of(meta)
        runners = {s.key: backends.load_spec(s, name, meta, None, "realtime") for s in specs}
        reference = runners[specs[0].key].run(x)
        cases = {(k, b): (r, [np.ascontiguousarray(x[i:i + b]) for i in range(0, 32, b)])
                 for k, r in runners.items() for b in (1, 32)}
        cpu = {key: 0.0 for key in cases}
        done = {key: 0 for key in cases}
        for runner, batches in cases.values():
            runner.run(batches[0])  # warm-up
        rounds = 8
        for _ in range(rounds):
            for key, (runner, batches) in cases.items():
                t0 = time.thread_time()
                while time.thread_time() - t0 < args.seconds / rounds:
                    runner.run(batches[done[key] % len(batches)])
                    done[key] += 1
                cpu[key] += time.thread_time() - t0
        for (key, batch), seconds in cpu.items():
            per_s = done[(key, batch)] * batch / seconds
            bf16 = "bf16" in key
            peak = ghz * (AMX_BF16_FLOP_PER_CYCLE if bf16 and amx else FP32_FLOP_PER_CYCLE)
            measures = output_agreement(runners[key].run(x), reference, tolerance)
            rows.append({"model": name, "spec": key, "batch": batch, "mflop_per_input": round(flops / 1e6, 1),
                         "inputs_per_cpu_s": round(per_s, 1), "gflops": round(flops * per_s / 1e9, 2),
                         "peak": "AMX bf16" if bf16 and amx else "AVX-512 fp32",
                         "fraction_of_peak": round(flops * per_s / 1e9 / peak, 4) if peak else None,
                         "within_tolerance": within(measures, tolerance)})
            print(json.dumps(rows[-1]), flush=True)
        for runner in runners.values():
            runner.close()
    out = {"cpu": probe.cpu_model, "ghz": ghz, "amx": amx, "rows": rows,
           "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
