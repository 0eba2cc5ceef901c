"""The face stage where the layout puts the portrait vs over the whole page, in one run on the same images.

    OMP_THREAD_LIMIT=1 PYTHONPATH=$PWD .venv/bin/python bench/bench_face_region.py [--captures 20] [--pairs]

Captures: generated documents read by the shipped reader (its rectified page and zone), then the face stage of a
batch check run both ways on each, in alternating order: ``whole page`` is the search before the portrait region
(the rectified page, then the photo), ``portrait region`` is Pipeline._find_face today. CPU is this process's
user+system time (resource.getrusage) around each search; the machine is shared, so wall time is not used.

``--pairs``: the face pairs of docs/matching.md (`docauth eval faces`: every shared photo printed on a TD1 front
and a TD3 page, phone and scan captures, rectified from the capture's corners), each document's face found both
ways, judged against every real photo at the configured threshold.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from docauth.config import DEFAULT_FACE_THRESHOLD, Settings  # noqa: E402
from docauth.pipeline import Pipeline  # noqa: E402
from docauth.pipeline.faces import FaceStage  # noqa: E402
from docauth.pipeline.result import CheckResult  # noqa: E402


def cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def whole_page(faces, image, page):
    """The face search of a batch check before the portrait region: the rectified page, then the photo."""
    encoding, info = (None, {}) if page is None else faces.encode(page)
    if encoding is None:
        encoding, info = faces.encode(image)
    return encoding, info


def portrait_region(pipeline, image, ocr):
    return pipeline._find_face(CheckResult(), image, ocr, None)


def both(pipeline, faces, image, ocr, page, order: int):
    runs = {"whole page": lambda: whole_page(faces, image, page),
            "portrait region": lambda: portrait_region(pipeline, image, ocr)}
    names = list(runs) if order % 2 == 0 else list(runs)[::-1]
    out = {}
    for name in names:
        c0 = cpu_s()
        encoding, info = runs[name]()
        out[name] = (cpu_s() - c0, encoding, info)
    return out


def captures(pipeline, faces, count: int) -> None:
    from pipeline_support import ASTRONAUT_PERSON, astronaut_portrait, document_of

    cpu = {"whole page": [], "portrait region": []}
    found = {"whole page": 0, "portrait region": 0}
    same = []
    kinds = ("td3_open", "td1_front")
    for seed in range(count):
        image = document_of(ASTRONAUT_PERSON, astronaut_portrait(), seed=seed, kind=kinds[seed % 2])
        ocr = pipeline.reader(image)
        page = ocr.document.rectified if ocr.document is not None else None
        out = both(pipeline, faces, image, ocr, page, seed)
        for name, (seconds, encoding, info) in out.items():
            cpu[name].append(seconds * 1000)
            found[name] += encoding is not None
        a, b = out["whole page"][1], out["portrait region"][1]
        if a is not None and b is not None:
            same.append(float(np.linalg.norm(a - b)))
        print(f"seed {seed}: " + ", ".join(f"{n} {s * 1000:.0f} ms" for n, (s, _e, _i) in out.items())
              + f" ({out['portrait region'][2].get('searched')})", flush=True)
    for name in cpu:
        print(f"{name}: CPU per check median {np.median(cpu[name]):.1f} ms, mean {np.mean(cpu[name]):.1f} ms; "
              f"face found {found[name]}/{count}")
    if same:
        print(f"distance between the two encodings of a capture: median {np.median(same):.3f}, max {max(same):.3f}")


def pairs(pipeline, faces, seed: int = 20261122) -> None:
    from docauth.matching.face import encode_face, face_distance
    from docauth.training.face_threshold import (bundled_photos, captured_documents, id_portrait,
                                                 load_labelled_photos)

    faces_dir = ROOT.parent / "shared" / "data" / "faces"
    photos = load_labelled_photos(faces_dir) + bundled_photos() if faces_dir.is_dir() else bundled_photos()
    real = {}
    for person, name, image in photos:
        outcome = encode_face(image, allow_multiple=True)
        if outcome.face is not None:
            real[name] = (person, outcome.face)
    threshold = DEFAULT_FACE_THRESHOLD
    stats = {n: {"docs": 0, "found": 0, "gen": 0, "fr": 0, "imp": 0, "fa": 0, "cpu": [], "gd": []}
             for n in ("whole page", "portrait region")}
    order = 0
    for p_index, (person, name, image) in enumerate(photos):
        if name not in real:
            continue
        for shot in captured_documents(id_portrait(image, real[name][1].box), seed, p_index):
            doc, captured, flat = shot.document, shot.captured, shot.flat
            # The zone as the reader reports it: where it starts on the page, its format, its checks passed;
            # the page located (rectified from the capture's corners).
            zone = (SimpleNamespace(zone_top=doc.mrz_box[1] / doc.image.shape[0], type=doc.mrz_type, valid=True)
                    if doc.mrz_box else None)
            ocr = SimpleNamespace(document=SimpleNamespace(rectified=flat, found=True), mrz=zone)
            out = both(pipeline, faces, captured, ocr, flat, order)
            order += 1
            for n, (seconds, encoding, _info) in out.items():
                s = stats[n]
                s["docs"] += 1
                s["cpu"].append(seconds * 1000)
                if encoding is None:
                    continue
                s["found"] += 1
                for other, (other_person, face) in real.items():
                    d = float(face_distance(face.encoding, encoding))
                    if other_person == person:
                        s["gen"] += 1
                        s["fr"] += d > threshold
                        s["gd"].append(d)
                    else:
                        s["imp"] += 1
                        s["fa"] += d <= threshold
    for n, s in stats.items():
        print(f"{n}: found {s['found']}/{s['docs']}; genuine pairs {s['gen']}, false rejects {s['fr']} "
              f"({100 * s['fr'] / max(1, s['gen']):.1f} %), median genuine distance {np.median(s['gd']):.3f}; "
              f"impostor pairs {s['imp']}, false accepts {s['fa']}; CPU median {np.median(s['cpu']):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--captures", type=int, default=20)
    ap.add_argument("--pairs", action="store_true")
    args = ap.parse_args()
    settings = Settings.load(mode="throughput")
    faces = FaceStage.load(settings)
    pipeline = Pipeline.load(settings, faces=faces)
    pipeline.warmup()
    start = time.perf_counter()
    if args.captures:
        captures(pipeline, faces, args.captures)
    if args.pairs:
        pairs(pipeline, faces)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
