"""int8 (OpenVINO post-training quantisation, NNCF) for the models the reader runs: within their tolerance?

    pip install nncf   # not a docauth dependency: this check only
    python bench/int8_check.py [--models text_detector,text_recognizer,mrz_lines] [--calibrate 24] [--out int8.json]

Each model's inputs are recorded while :class:`docauth.ocr.reader.DocumentReader` reads generated captures: one
seed to calibrate on (generated only, never real documents), another seed (and, with ``--real``, the shared
real documents, measured only) to compare on. The int8 model is compared with the fp32 ONNX model on OpenVINO
by the model's stated tolerance (:mod:`docauth.runtime.tolerance`), and both are timed in the calling thread's
CPU time, one thread each.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np

CALIBRATION_SEED = 470_000
COMPARISON_SEED = 460_000


def record(cases, names):
    from docauth.ocr.reader import DocumentReader
    from docauth.runtime.model import InferenceModel

    seen = defaultdict(list)
    predict = InferenceModel.predict

    def recording(self, batch):
        if self.name in names:
            seen[self.name].append(np.array(batch, dtype=np.float32, ndmin=4))
        return predict(self, batch)

    InferenceModel.predict = InferenceModel.__call__ = recording
    try:
        reader = DocumentReader.load(backend="onnxruntime:threads=1")
        for case in cases:
            reader(case.load(), side=case.side)
    finally:
        InferenceModel.predict = InferenceModel.__call__ = predict
    return seen


def cpu_ms(compiled, batches) -> float:
    request = compiled.create_infer_request()
    request.infer({0: batches[0]})
    t = time.thread_time()
    for b in batches:
        request.infer({0: b})
    return (time.thread_time() - t) * 1000 / len(batches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="text_detector,text_recognizer,mrz_lines")
    parser.add_argument("--calibrate", type=int, default=24, help="generated captures to calibrate on")
    parser.add_argument("--compare", type=int, default=24, help="generated captures to compare on")
    parser.add_argument("--real", action="store_true", help="also compare on the shared real documents")
    parser.add_argument("--out")
    args = parser.parse_args()
    try:
        import nncf
    except ImportError:
        raise SystemExit("nncf is not installed: pip install nncf (this check only)")
    import openvino as ov

    from docauth.config import shared_data_dir
    from docauth.runtime.model import load_metadata, model_paths
    from docauth.runtime.tolerance import output_agreement, tolerance_of, within
    from docauth.training import real

    names = args.models.split(",")
    calibration = record(real.generated_cases(args.calibrate, CALIBRATION_SEED), names)
    cases = real.generated_cases(args.compare, COMPARISON_SEED)
    shared = shared_data_dir()
    if args.real and shared is not None:
        cases += real.real_docs_cases(shared / "real-docs")
    comparison = record(cases, names)
    core = ov.Core()
    config = {"INFERENCE_NUM_THREADS": 1, "PERFORMANCE_HINT": "LATENCY", "INFERENCE_PRECISION_HINT": "f32"}
    rows = []
    for name in names:
        meta = load_metadata(name)
        tolerance = tolerance_of(meta)
        model = core.read_model(str(model_paths(name).onnx))
        dynamic = [-1] * len(model.inputs[0].get_partial_shape())
        model.reshape({model.inputs[0].get_any_name(): dynamic})
        quantized = nncf.quantize(model, nncf.Dataset(calibration[name]), subset_size=len(calibration[name]))
        fp32 = core.compile_model(model, "CPU", config)
        int8 = core.compile_model(quantized, "CPU", config)
        measures = []
        for batch in comparison[name]:
            ref, got = fp32(batch)[0], int8(batch)[0]
            measures.append(output_agreement(got, ref, tolerance))
        ious = [m["mask_iou"] for m in measures if m["mask_iou"] is not None]
        row = {"model": name, "calibration_batches": len(calibration[name]), "compared_batches": len(measures),
               "within_tolerance": sum(within(m, tolerance) for m in measures),
               "max_abs_diff": max(m["max_abs_diff"] for m in measures),
               "min_mask_iou": min(ious) if ious else None,
               "fp32_cpu_ms": round(cpu_ms(fp32, comparison[name]), 2),
               "int8_cpu_ms": round(cpu_ms(int8, comparison[name]), 2), "tolerance": tolerance}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
