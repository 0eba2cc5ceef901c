"""Record the arrays each model receives during real checks, for bench/gpu_check.py.

    python bench/gpu_inputs.py --out gpu_inputs.npz [--generated 8] [--real 4]

Checks generated card fronts, backs and passport pages (the ``ocr_eval`` seed range) and a spread of the shared
real documents (``../shared/data/real-docs``, when present) with :func:`docauth.check`, and keeps each model's
input batches (float16, at most 3 of the detector's, 24 of any other), keyed ``<model>__<n>``.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

LIMITS = {"text_detector": 3}
DEFAULT_LIMIT = 24


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--generated", type=int, default=8)
    parser.add_argument("--real", type=int, default=4)
    args = parser.parse_args()

    import docauth
    from docauth.config import shared_data_dir
    from docauth.runtime.model import InferenceModel
    from docauth.synth.dataset import generate_dataset
    from docauth.synth.seeds import OCR_EVAL

    seen: dict[str, list[np.ndarray]] = defaultdict(list)
    predict = InferenceModel.predict

    def recording(self, batch):
        seen[self.name].append(np.array(batch, dtype=np.float32, ndmin=4))
        return predict(self, batch)

    InferenceModel.predict = InferenceModel.__call__ = recording
    with tempfile.TemporaryDirectory() as tmp:
        generate_dataset(Path(tmp), args.generated, seed=OCR_EVAL.default,
                         category=["td1_front", "td1_back", "td3_open"])
        paths = sorted(Path(tmp).rglob("*.jpg"))
        shared = shared_data_dir()
        if shared is not None and args.real:
            real = sorted((shared / "real-docs" / "images").glob("*/*.*"))
            paths += real[::max(1, len(real) // args.real)][:args.real]
        for path in paths:
            docauth.check(str(path))
    batches = {f"{name}__{i:03d}": batch.astype(np.float16)
               for name, found in seen.items() for i, batch in enumerate(found[:LIMITS.get(name, DEFAULT_LIMIT)])}
    np.savez_compressed(args.out, **batches)
    print(f"{args.out}: {len(paths)} images, " + ", ".join(f"{n} {len(b)}" for n, b in seen.items()))


if __name__ == "__main__":
    main()
