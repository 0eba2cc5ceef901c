"""Does a model on another engine change what the reader finds? Boxes, reads and the model's own CPU.

    python bench/engine_agreement.py --model text_detector --engine openvino:threads=1 \
        --engine openvino:precision=bf16,threads=1 [--generated 30] [--real] [--out agreement.json]

Each image (generated captures of the OCR evaluation range, and with ``--real`` the shared real documents) is
read by :class:`docauth.ocr.reader.DocumentReader` once per engine, every other model on the reference engine
(``--reference``, ONNX Runtime one thread): the model's outputs are compared as its tolerance compares them
(:func:`docauth.runtime.tolerance.output_agreement`), and the reader's result (MRZ, printed fields, lines) must be
the same. The model's thread CPU time per engine is summed over the same calls, engines in turn per image.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="text_detector")
    parser.add_argument("--engine", action="append", required=True, help="a backend spec; repeat for several")
    parser.add_argument("--reference", default="onnxruntime:threads=1")
    parser.add_argument("--generated", type=int, default=30)
    parser.add_argument("--seed", type=int, default=460_000)
    parser.add_argument("--real", action="store_true", help="also the shared real documents (evaluation only)")
    parser.add_argument("--out")
    args = parser.parse_args()

    from docauth.config import shared_data_dir
    from docauth.ocr.reader import DocumentReader
    from docauth.runtime import load_model
    from docauth.runtime.model import load_metadata
    from docauth.runtime.tolerance import output_agreement, tolerance_of, within
    from docauth.training import real

    cases = real.generated_cases(args.generated, args.seed) if args.generated else []
    shared = shared_data_dir()
    if args.real and shared is not None:
        cases += real.real_docs_cases(shared / "real-docs") + real.specimen_cases(shared / "mrz-specimens")
    reader = DocumentReader.load(backend=args.reference)
    engines = [args.reference] + args.engine
    models = {e: load_model(args.model, backend=e) for e in engines}
    tolerance = tolerance_of(load_metadata(args.model))
    holder = _holder(reader, args.model)
    calls: dict[str, list] = defaultdict(list)  # engine -> [(input, output)] of this image
    cpu = defaultdict(float)

    def recording(engine):
        model = models[engine]

        class Recorded:
            def __getattr__(self, name):
                return getattr(model, name)

            def predict(self, batch):
                t = time.thread_time()
                out = model.predict(batch)
                cpu[engine] += time.thread_time() - t
                calls[engine].append((np.array(batch), np.array(out)))
                return out

            __call__ = predict

        return Recorded()

    rows = []
    worst = defaultdict(lambda: 1.0)
    for case in cases:
        image = case.load()
        results = {}
        calls.clear()
        for engine in engines:
            holder(recording(engine))
            result = reader(image, side=case.side).export()
            result.pop("timings_ms", None)
            results[engine] = result
        ref_calls = calls[args.reference]
        row = {"source": case.source, "file": case.file, "calls": len(ref_calls)}
        for engine in args.engine:
            got = calls[engine]
            same_inputs = len(got) == len(ref_calls) and all(
                a.shape == b.shape and np.array_equal(a, b) for (a, _), (b, _) in zip(got, ref_calls))
            measures = [output_agreement(o, r, tolerance) for (_, o), (_, r) in zip(got, ref_calls)]
            ious = [m["mask_iou"] for m in measures if m["mask_iou"] is not None]
            row[engine] = {"same_result": _same(results[engine], results[args.reference]),
                           "same_values": _same(_values(results[engine]), _values(results[args.reference])),
                           "differs": _differs(results[engine], results[args.reference]),
                           "same_inputs": same_inputs,
                           "within_tolerance": all(within(m, tolerance) for m in measures),
                           "max_abs_diff": max((m["max_abs_diff"] for m in measures), default=0.0),
                           "mask_iou": min(ious) if ious else None}
            if ious:
                worst[engine] = min(worst[engine], min(ious))
        rows.append(row)
        print(case.source, case.file, {e: row[e] for e in args.engine}, flush=True)
    summary = {"model": args.model, "reference": args.reference, "tolerance": tolerance, "images": len(rows),
               "cpu_s": {e: round(cpu[e], 2) for e in engines},
               "engines": {e: {"same_result": sum(r[e]["same_result"] for r in rows),
                               "same_values": sum(r[e]["same_values"] for r in rows),
                               "same_inputs": sum(r[e]["same_inputs"] for r in rows),
                               "within_tolerance": sum(r[e]["within_tolerance"] for r in rows),
                               "worst_mask_iou": round(worst[e], 5),
                               "cpu_vs_reference": round(cpu[e] / max(cpu[args.reference], 1e-9), 3)}
                           for e in args.engine}}
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"summary": summary, "rows": rows}, fh, indent=1)


def _same(a, b) -> bool:
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def _values(result: dict) -> dict:
    """The result without the printed reads' confidences: what the check decides on."""
    printed = {name: {k: v for k, v in read.items() if k != "confidence"} if isinstance(read, dict) else read
               for name, read in result.get("printed", {}).items()}
    return {**result, "printed": printed}


def _differs(a: dict, b: dict) -> list[str]:
    return sorted(k for k in set(a) | set(b) if not _same(a.get(k), b.get(k)))


def _holder(reader, model_name):
    """A setter that puts ``model`` wherever the reader holds ``model_name``."""
    if model_name == "text_detector":
        def put(model):
            reader.printed.detector.model = model
    elif model_name == "text_recognizer":
        def put(model):
            reader.printed.recognizer.model = model
    elif model_name == "mrz_lines":
        def put(model):
            reader.mrz_reader.model = model
    else:
        raise SystemExit(f"{model_name}: not a model the document reader holds")
    return put


if __name__ == "__main__":
    main()
