"""CPU per face encoding: dlib's own descriptor against dlib's network on the runtime layer, in one run.

    OMP_THREAD_LIMIT=1 PYTHONPATH=$PWD .venv/bin/python bench/bench_face_encoding.py [--rounds 4] [--core 0]

Every single-face photo of ``../shared/data/faces`` (its largest HOG box), encoded each way in turn, round after
round: ``dlib`` is ``face_recognition.face_encodings`` (5-point landmarks, chip, dlib's ResNet), ``chip`` the
landmarks and chip alone, and one row per engine of ``models/face_embedder.onnx`` (the same landmarks and chip,
then the model). The process is pinned to one core; CPU is its process time around each encoding, and the
largest difference from dlib's encoding is printed beside it.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--core", type=int, default=0, help="The one core the process runs on.")
    parser.add_argument("--engines", default="onnxruntime,openvino")
    args = parser.parse_args()
    os.sched_setaffinity(0, {args.core})

    from docauth.config import shared_data_dir
    from docauth.imageio import load_image
    from docauth.matching import face, face_embedder
    from docauth.runtime import load_model

    shared = shared_data_dir()
    if shared is None or not (shared / "faces" / "labels.csv").is_file():
        print("../shared/data/faces is absent", file=sys.stderr)
        return 2
    import face_recognition as fr  # the reference: dlib's own descriptor, as a user of face_recognition runs it
    cases = []
    with open(shared / "faces" / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["person"] != "multiple":
                image = face._check_image(load_image(shared / "faces" / row["file"]))
                boxes = face.face_locations(image)
                if boxes:
                    cases.append((image, boxes[:1]))

    def chip(image, boxes):
        return face_embedder.face_chips(image, boxes)

    def dlib_encoding(image, boxes):
        return np.asarray(fr.face_encodings(image, known_face_locations=boxes, num_jitters=1, model="small"))

    ways = {"dlib": dlib_encoding, "chip": chip}
    for engine in args.engines.split(","):
        model = load_model("face_embedder", backend=engine, mode="realtime")
        ways[model.spec] = lambda image, boxes, m=model: m.predict(chip(image, boxes).astype(np.float32))
    reference = [dlib_encoding(image, boxes) for image, boxes in cases]
    for way in ways.values():  # first calls allocate
        way(*cases[0])
    cpu = {name: [] for name in ways}
    diff = {name: 0.0 for name in ways}
    for _ in range(args.rounds):
        for (image, boxes), ref in zip(cases, reference):
            for name, way in ways.items():
                started = time.process_time()
                out = way(image, boxes)
                cpu[name].append((time.process_time() - started) * 1000)
                if name != "chip":
                    diff[name] = max(diff[name], float(np.abs(np.asarray(out, np.float64) - ref).max()))
    print(f"{len(cases)} faces x {args.rounds} rounds, one core; CPU ms per encoding")
    print("| way | median | mean | max abs diff to dlib |\n|---|---|---|---|")
    for name, values in cpu.items():
        shown = "-" if name == "chip" else f"{diff[name]:.1e}"
        print(f"| {name} | {np.median(values):.1f} | {np.mean(values):.1f} | {shown} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
