"""Re-capture: the shared real documents as a customer's phone would send them, each stage against the original.

The real sets are mostly flat scans and renders; customers send photos, turned a quarter or half turn, a few
degrees crooked, in perspective on a table with background around. Each named transform below is applied to
every selected real image (deterministic by ``--seed``), the full check runs as ``docauth eval real`` runs it
(docauth.training.real: its labels, its check, its scoring), and one line per transform is printed beside the
untransformed one, with the rows it loses and gains:

    PYTHONPATH=$PWD OMP_THREAD_LIMIT=1 .venv/bin/python bench/recapture.py [--transforms rot90,photo_plain]
        [--sets real-docs,mrz-specimens] [--limit N] [--match passports/,id_cards/]
        [--baseline earlier.json] [--out recapture.json] [--verbose]

Both sets are taken whole by default (103 images, about 2-3 minutes of one core per transform). A
transform is a function ``(RGB uint8 image, numpy Generator) -> RGB uint8 image`` registered with
``@transform("name")``; nothing else needs to change to measure a new one. The real images are for measuring
only: nothing may be fitted to this table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

Transform = Callable[[np.ndarray, np.random.Generator], np.ndarray]
TRANSFORMS: dict[str, Transform] = {}
PRINTED_THREE = ("surname", "date_of_birth", "document_number")


def transform(name: str) -> Callable[[Transform], Transform]:
    """Register a re-capture under ``name`` (the order of registration is the table's order)."""

    def register(fn: Transform) -> Transform:
        TRANSFORMS[name] = fn
        return fn

    return register


@transform("none")
def identity(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return image


@transform("rot90")
def rot90(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(image, 1))  # a quarter turn counter-clockwise


@transform("rot180")
def rot180(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(image, 2))


@transform("rot270")
def rot270(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.ascontiguousarray(np.rot90(image, 3))


def skewed(image: np.ndarray, degrees: float, fill: int = 255) -> np.ndarray:
    """Turned by ``degrees`` (counter-clockwise) on a canvas that keeps every corner, the rest ``fill``."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    nw, nh = int(np.ceil(w * cos + h * sin)), int(np.ceil(w * sin + h * cos))
    m[0, 2] += nw / 2 - w / 2
    m[1, 2] += nh / 2 - h / 2
    return cv2.warpAffine(image, m, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=(fill, fill, fill))


@transform("skew+4")
def skew_left(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return skewed(image, 4.0)  # a scan laid crooked on a white bed


@transform("skew-4")
def skew_right(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return skewed(image, -4.0)


def photographed(image: np.ndarray, rng: np.random.Generator, background: np.ndarray) -> np.ndarray:
    """The document in perspective on ``background`` (already the frame's size), with margin all round.

    The camera leans towards one edge (that edge comes out shorter), the corners move a little on their own,
    and the document turns up to 3 degrees; its own resolution is kept (the frame grows instead).
    """
    from docauth.synth.capture import composite

    h, w = image.shape[:2]
    fh, fw = background.shape[:2]
    rect = np.float64([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    lean = rng.uniform(0.04, 0.10)
    edge = int(rng.integers(4))  # top, right, bottom, left: the edge farther from the camera
    a, b = edge, (edge + 1) % 4
    mid = (rect[a] + rect[b]) / 2
    rect[a] += (mid - rect[a]) * lean
    rect[b] += (mid - rect[b]) * lean
    rect += rng.normal(0, 0.012 * min(w, h), size=(4, 2))
    th = np.deg2rad(rng.uniform(-3, 3))
    turn = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    quad = rect @ turn.T
    lo, hi = quad.min(0), quad.max(0)
    mx, my = 0.03 * fw, 0.03 * fh  # background on every side, never a cut-off edge
    offset = np.array([rng.uniform(min(mx - lo[0], fw - mx - hi[0]), max(mx - lo[0], fw - mx - hi[0])),
                       rng.uniform(min(my - lo[1], fh - my - hi[1]), max(my - lo[1], fh - my - hi[1]))])
    quad = quad + offset
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    homography = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    return composite(background, image, None, homography, quad, float(rng.uniform(0.1, 0.3)), rng)


def frame_size(image: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    """A frame 25-45 % larger than the document on each axis: background all round."""
    h, w = image.shape[:2]
    return int(h * rng.uniform(1.25, 1.45)), int(w * rng.uniform(1.25, 1.45))


@transform("photo_plain")
def photo_plain(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    fh, fw = frame_size(image, rng)
    shade = rng.uniform(50, 200) * rng.uniform(0.9, 1.1, size=3)
    ramp = np.linspace(rng.uniform(0.85, 1.0), rng.uniform(1.0, 1.15), fw)[None, :, None]
    background = np.clip(shade[None, None, :] * ramp + rng.normal(0, 3, (fh, fw, 1)), 0, 255).astype(np.uint8)
    return photographed(image, rng, background)


@transform("photo_textured")
def photo_textured(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    from docauth.synth.scenes import surface

    fh, fw = frame_size(image, rng)
    background, _ = surface(rng, fh, fw, kind=str(rng.choice(["wood", "table", "fabric", "carpet", "stone"])))
    return photographed(image, rng, background)


def downscaled(image: np.ndarray, factor: float) -> np.ndarray:
    """The whole image ``factor`` times its size (area averaging, as a camera farther away records it)."""
    h, w = image.shape[:2]
    size = (max(16, round(w * factor)), max(16, round(h * factor)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def jpeg_blurred(image: np.ndarray, quality: int = 50, sigma: float = 1.0) -> np.ndarray:
    """Softly focused (Gaussian, ``sigma`` px) and saved as a phone's app saves it (JPEG at ``quality``)."""
    soft = cv2.GaussianBlur(image, (0, 0), sigma)
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(soft, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.cvtColor(cv2.imdecode(data, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


@transform("scale0.7")
def scale_07(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return downscaled(image, 0.7)


@transform("scale0.5")
def scale_05(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return downscaled(image, 0.5)


@transform("scale0.35")
def scale_035(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return downscaled(image, 0.35)


@transform("jpeg50_blur")
def jpeg50_blur(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return jpeg_blurred(image)


def recaptured(case, name: str, seed: int):
    """The case with its image re-captured by transform ``name``; the same seed gives the same image of the same
    file, whichever others are measured beside it (``--match`` and ``--limit`` see what the whole run saw)."""
    key = [seed, zlib.crc32(name.encode()), zlib.crc32(f"{case.source}/{case.file}".encode())]
    fn = TRANSFORMS[name]
    return dataclasses.replace(case, load=lambda: np.ascontiguousarray(fn(case.load(), np.random.default_rng(key))))


def line(rows: list[dict]) -> dict:
    """The measures of one transform: counts of rows right, and each row's outcome for the comparison."""
    from docauth.training import real

    s = real.summarise(rows)
    outcome = {}
    for r in rows:
        if "error" in r:
            continue
        key = f"{r['source']}/{r['file']}"
        outcome[key] = {"document": r["is_document"], "side": r["side_check"] == r["side"],
                        "mrz": r["mrz_exact"] if r["has_mrz"] else None,
                        **{f: p["exact"] for f, p in r["printed"].items() if f in PRINTED_THREE}}
    return {"document": s["document"], "side": s["side_check"], "mrz_exact": s["mrz_exact"],
            "mrz_false_valid": s["mrz_false_valid"], "printed_three": s["printed_three"],
            "median_ms": s["median_ms"], "outcome": outcome}


def compare(base: dict, other: dict) -> tuple[list[str], list[str]]:
    """(lost, gained): every row-measure right untransformed and wrong here, and the reverse."""
    lost, gained = [], []
    for key, measures in base["outcome"].items():
        now = other["outcome"].get(key, {})
        for measure, right in measures.items():
            if right is None or measure not in now:
                continue
            if right and not now[measure]:
                lost.append(f"{key}:{measure}")
            elif now[measure] and not right:
                gained.append(f"{key}:{measure}")
    return lost, gained


def cell(pair) -> str:
    right, total = pair
    return f"{right}/{total}"


def table(lines: dict[str, dict]) -> str:
    out = ["| transform | document | side (check) | MRZ exact | MRZ valid but wrong | printed three exact "
           "| row-measures lost / gained vs none | median ms |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    base = lines.get("none")
    for name, ln in lines.items():
        delta = "-"
        if base is not None and name != "none":
            lost, gained = compare(base, ln)
            delta = f"{len(lost)} / {len(gained)}"
        out.append(f"| {name} | {cell(ln['document'])} | {cell(ln['side'])} | {cell(ln['mrz_exact'])} | "
                   f"{ln['mrz_false_valid']} | {cell(ln['printed_three'])} | {delta} | {ln['median_ms']} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transforms", default=",".join(TRANSFORMS),
                        help=f"comma-separated, of: {', '.join(TRANSFORMS)} (none is always added)")
    parser.add_argument("--sets", default="real-docs,mrz-specimens", help="real-docs, mrz-specimens or both")
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--limit", type=int, default=0, help="only the first N cases (a quick look)")
    parser.add_argument("--match", default="", help="only files whose path holds one of these (comma-separated)")
    parser.add_argument("--out", default=None, help="write every row and the table's counts here (JSON)")
    parser.add_argument("--baseline", default=None,
                        help="take the untransformed rows from this earlier --out instead of checking them again")
    parser.add_argument("--verbose", action="store_true", help="name each row-measure lost and gained")
    args = parser.parse_args()
    names = ["none"] + [n for n in args.transforms.split(",") if n and n != "none"]
    unknown = [n for n in names if n not in TRANSFORMS]
    if unknown:
        parser.error(f"unknown transform(s) {', '.join(unknown)}; known: {', '.join(TRANSFORMS)}")

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from docauth.config import shared_data_dir
    from docauth.training import real

    wanted = [name for name in ("real-docs", "mrz-specimens") if name in args.sets.split(",")]
    cases = [case for found in real.shared_sources(shared_data_dir(), wanted).values() for case in found]
    if not cases:
        print("recapture: no real documents here (../shared/data is absent); nothing to measure", file=sys.stderr)
        return 0
    parts = [m for m in args.match.split(",") if m]
    cases = [c for c in cases if not parts or any(m in c.file for m in parts)][: args.limit or None]
    print(f"recapture: {len(cases)} real images ({args.sets}), "
          f"transforms {', '.join(names)}, seed {args.seed}", file=sys.stderr)

    lines: dict[str, dict] = {}
    rows: dict[str, list] = {}
    if args.baseline:
        keep = {(c.source, c.file) for c in cases}
        rows["none"] = [r for r in json.loads(Path(args.baseline).read_text())["rows"]["none"]
                        if (r["source"], r["file"]) in keep]
        lines["none"] = line(rows["none"])
        names.remove("none")
    with tempfile.TemporaryDirectory(prefix="docauth-recapture-") as tmp:
        pipeline, reader = real.evaluation_pipeline(Path(tmp))
        for name in names:
            start = time.process_time()
            batch = [recaptured(c, name, args.seed) for c in cases]
            rows[name] = real.evaluate(pipeline, reader, batch)
            lines[name] = line(rows[name])
            print(f"  {name}: {time.process_time() - start:.0f} s CPU; "
                  f"{table({n: lines[n] for n in ('none', name) if n in lines}).splitlines()[-1]}", file=sys.stderr)
            write(args.out, args.seed, lines, rows)  # as it goes: a long run stopped early keeps what it measured
        pipeline.store.close()
    print(table(lines))
    if args.verbose and "none" in lines:
        for name in (n for n in names if n != "none"):
            lost, gained = compare(lines["none"], lines[name])
            print(f"{name}: lost {', '.join(lost) or '-'}; gained {', '.join(gained) or '-'}")
    return 0


def write(out: str | None, seed: int, lines: dict[str, dict], rows: dict[str, list]) -> None:
    if out:
        counts = {n: {k: v for k, v in ln.items() if k != "outcome"} for n, ln in lines.items()}
        Path(out).write_text(json.dumps({"seed": seed, "lines": counts, "rows": rows}, indent=1, default=str) + "\n")


if __name__ == "__main__":
    sys.exit(main())
