"""bf16 for part of a model only: which layers change the reads, and what the rest of the model costs in fp32.

    python bench/mixed_precision.py [--model text_recognizer] [--generated 30] [--seed 470000] \
        --plan "@bf16" --plan "@bf16|p2o.Conv.33@f32" [--fields 60] [--out mixed.json]

A plan is segments ``start@precision`` joined by ``|``. Each segment runs from the input of the op named
``start`` (empty: the model's input) to the next segment's start, compiled by OpenVINO (one thread) at its own
``INFERENCE_PRECISION_HINT``; the segments run in turn, fp32 arrays between them. A cut instead of per-node
markings because OpenVINO's CPU plugin drops a node's keep-fp32 mark (``precise``, the fp16-compression
attribute) when it fuses the node: a MatMul turned into a FullyConnected with its bias ran in bf16 whatever it
was marked.

The model's inputs are those the document reader gives it on generated captures (ONNX Runtime, one thread, is
the reference). For each plan: the thread CPU time over all of them (plans in turn, alternating order, four
rounds), the largest probability difference, and the greedy CTC reads that differ from the reference's. With
``--fields N`` each plan also reads N generated pages (seed 460,000, the evaluation's) whole, and the pages whose
field values, verdicts or printed texts differ are listed (``bench/engine_agreement.py``'s comparison).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

PRECISIONS = {"f32": "f32", "fp32": "f32", "bf16": "bf16"}
ROUNDS = 4


def parse_plan(text: str) -> list[tuple[str | None, str]]:
    """``"@bf16|p2o.Conv.33@f32"`` -> ``[(None, "bf16"), ("p2o.Conv.33", "f32")]``."""
    plan = []
    for part in text.split("|"):
        start, sep, precision = part.rpartition("@")
        if not sep or precision not in PRECISIONS:
            raise ValueError(f"segment {part!r} is not start@precision with precision one of {sorted(PRECISIONS)}")
        plan.append((start.strip() or None, PRECISIONS[precision]))
    if plan[0][0] is not None or any(start is None for start, _ in plan[1:]):
        raise ValueError(f"plan {text!r}: only the first segment starts at the model's input")
    return plan


def _read(core, path: Path, dynamic_shape: list[int]):
    model = core.read_model(str(path))
    model.reshape({model.inputs[0].get_any_name(): dynamic_shape})
    return model


def _input_of(model, op_name: str):
    for op in model.get_ordered_ops():
        if op.get_friendly_name() == op_name:
            return op.input(0).get_source_output()
    raise ValueError(f"no op named {op_name!r} in the model")


def segment(core, path: Path, dynamic_shape: list[int], start: str | None, end: str | None):
    """The part of the model from the input of op ``start`` to the input of op ``end`` (None: the model's
    input / outputs), as a model of its own with one parameter."""
    import openvino as ov  # deferred: OpenVINO is optional

    model = _read(core, path, dynamic_shape)
    outputs = [_input_of(model, end)] if end else list(model.outputs)
    if start is None:
        return ov.Model(outputs, model.get_parameters(), "segment")
    source = _input_of(model, start)
    parameter = ov.opset13.parameter(source.get_partial_shape(), source.get_element_type(), name="cut")
    for target in list(source.get_target_inputs()):
        target.replace_source_output(parameter.output(0))
    cut = ov.Model(outputs, [parameter], "segment")
    if len(cut.get_parameters()) != 1:
        raise ValueError(f"the part after {start!r} reads the model's input too: cut elsewhere")
    return cut


def compile_plan(plan: list[tuple[str | None, str]], path: Path, dynamic_shape: list[int], threads: int = 1):
    """A function running a batch through the plan's segments in turn, and the compiled segments."""
    import openvino as ov  # deferred: OpenVINO is optional

    core = ov.Core()
    compiled = []
    for i, (start, precision) in enumerate(plan):
        end = plan[i + 1][0] if i + 1 < len(plan) else None
        config = {"INFERENCE_PRECISION_HINT": precision, "INFERENCE_NUM_THREADS": threads,
                  "PERFORMANCE_HINT": "LATENCY"}
        compiled.append(core.compile_model(segment(core, path, dynamic_shape, start, end), "CPU", config))
    requests = [c.create_infer_request() for c in compiled]

    def run(batch: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(batch)
        for request in requests:
            request.infer({0: x})
            x = np.array(request.get_output_tensor(0).data, copy=True)
        return x

    return run, compiled


def runtime_precisions(compiled) -> dict[str, set[str]]:
    """{layer type: the precisions its layers run at} in one compiled segment (OpenVINO's execution graph)."""
    out: dict[str, set[str]] = {}
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        out.setdefault(info["layerType"].astype(str), set()).add(info["runtimePrecision"].astype(str))
    return out


def greedy_reads(probabilities: np.ndarray) -> list[tuple[int, ...]]:
    """Greedy CTC decoding of N x T x classes, blank first: each row's classes, repeats merged, blanks dropped."""
    reads = []
    for frames in probabilities:
        best = frames.argmax(-1)
        keep = (best != 0) & np.concatenate([[True], best[1:] != best[:-1]])
        reads.append(tuple(int(c) for c in best[keep]))
    return reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="text_recognizer")
    parser.add_argument("--plan", action="append", required=True, help="segments start@precision joined by |")
    parser.add_argument("--generated", type=int, default=30, help="generated pages whose model inputs are timed")
    parser.add_argument("--seed", type=int, default=470_000)
    parser.add_argument("--fields", type=int, default=0, help="generated pages (seed 460,000) read whole per plan")
    parser.add_argument("--out")
    args = parser.parse_args()
    try:
        plans = {text: parse_plan(text) for text in args.plan}
    except ValueError as exc:
        raise SystemExit(f"mixed_precision: {exc}") from exc

    sys.path.insert(0, str(Path(__file__).parent))
    from engine_agreement import _holder, _same, _values

    from docauth.ocr.reader import DocumentReader
    from docauth.runtime.model import load_metadata, model_paths
    from docauth.training import real

    meta = load_metadata(args.model)
    dynamic_shape = [-1, meta["input"]["channels"], meta["input"]["height"], -1] \
        if meta.get("input", {}).get("layout") == "NCHW" else [-1, -1, -1, -1]
    reader = DocumentReader.load(backend="onnxruntime:threads=1")
    put = _holder(reader, args.model)
    ort = _held(reader, args.model)
    batches: list[np.ndarray] = []

    class Recording:
        def __getattr__(self, name):
            return getattr(ort, name)

        def predict(self, batch):
            batches.append(np.array(batch))
            return ort.predict(batch)

        __call__ = predict

    put(Recording())
    for case in real.generated_cases(args.generated, args.seed):
        reader(case.load(), side=case.side)
    put(ort)
    runs = {"reference": ort.predict}
    for text, plan in plans.items():
        runs[text] = compile_plan(plan, model_paths(args.model).onnx, dynamic_shape)[0]
    outputs = {key: [run(b) for b in batches] for key, run in runs.items()}  # also the warm-up
    cpu = dict.fromkeys(runs, 0.0)
    order = list(runs)
    for r in range(ROUNDS):
        for key in (order if r % 2 == 0 else order[::-1]):
            t0 = time.thread_time()
            for b in batches:
                runs[key](b)
            cpu[key] += time.thread_time() - t0
    ref_reads = [read for out in outputs["reference"] for read in greedy_reads(out)]
    rows = []
    for key in runs:
        reads = [read for out in outputs[key] for read in greedy_reads(out)]
        rows.append({"plan": key, "inputs": len(reads), "calls": len(batches),
                     "cpu_ms": round(cpu[key] / ROUNDS * 1000, 1),
                     "cpu_vs_reference": round(cpu[key] / max(cpu["reference"], 1e-9), 3),
                     "max_abs_diff": round(max(float(np.abs(a - b).max()) for a, b in
                                               zip(outputs[key], outputs["reference"])), 4),
                     "reads_changed": sum(a != b for a, b in zip(reads, ref_reads))})
        print(json.dumps(rows[-1]), flush=True)
    fields = _fields(reader, put, ort, runs, args.fields, real, _same, _values) if args.fields else None
    if fields:
        print(json.dumps(fields, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"model": args.model, "generated": args.generated, "seed": args.seed,
                                              "rows": rows, "fields": fields,
                                              "created": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
                                             indent=1))


def _held(reader, model_name):
    return {"text_detector": lambda: reader.printed.detector.model,
            "text_recognizer": lambda: reader.printed.recognizer.model,
            "mrz_lines": lambda: reader.mrz_reader.model}[model_name]()


def _fields(reader, put, ort, runs, pages, real, same, values) -> dict:
    """{plan: {"same_values": pages, "differs": [(file, what differs)]}} against the reference's reads."""

    class Plan:
        def __init__(self, run):
            self.run = run

        def __getattr__(self, name):
            return getattr(ort, name)

        def predict(self, batch):
            return self.run(batch)

        __call__ = predict

    out = {key: {"pages": pages, "same_values": 0, "same_result": 0, "differs": []} for key in runs
           if key != "reference"}
    for case in real.generated_cases(pages, 460_000):
        image = case.load()
        results = {}
        for key, run in runs.items():
            put(ort if key == "reference" else Plan(run))
            result = reader(image, side=case.side).export()
            result.pop("timings_ms", None)
            results[key] = result
        for key in out:
            out[key]["same_result"] += same(results[key], results["reference"])
            if same(values(results[key]), values(results["reference"])):
                out[key]["same_values"] += 1
            else:
                got, ref = values(results[key]), values(results["reference"])
                out[key]["differs"].append([case.file, sorted(k for k in set(got) | set(ref)
                                                              if not same(got.get(k), ref.get(k)))])
    put(ort)
    return out


if __name__ == "__main__":
    main()
