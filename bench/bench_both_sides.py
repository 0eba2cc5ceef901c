"""Both sides of a card in one image: the front's printed values read exactly and OCR CPU, against another checkout.

    OMP_THREAD_LIMIT=1 PYTHONPATH=$PWD .venv/bin/python bench/bench_both_sides.py [--root OTHER_CHECKOUT] \
        [--images 16] [--seed 474000] [--one-side 8] [--json OUT]

Sets, all generated (no shared image is looked at):
- ``sheet``: ``td1_both`` captures as the generator makes them (phone photos and scans of a sheet);
- ``sheet-small``: the same, shrunk until the back is 300 px wide and saved as JPEG (specimens are posted small);
- ``composed``: a generated front and back of one holder (``render_document``, seeded) composed into one image
  as scans of both sides are: stacked or side by side, either first, a thin paper margin, the whole image 300-800
  px on its long side, JPEG;
- ``one-side``: card backs, card fronts and passport pages alone (``generate_sample``), for their CPU and answers.
Each checkout's reader runs in its own process; every image is read by both in turn. Per set: the front's
surname, birth date and number exact (``field_equal``), values read wrongly, OCR CPU median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import paired

ROOT = Path(__file__).resolve().parent.parent
FRONT_VALUES = ("surname", "date_of_birth", "document_number")
ONE_SIDE = (("td1_back", "back"), ("td1_front", "front"), ("td3_open", "open"))


def _keys(images: int, seed: int, one_side: int) -> list[list]:
    keys = [["sheet", seed, i] for i in range(images)] + [["sheet-small", seed, i] for i in range(images)]
    keys += [["composed", seed + 1, i] for i in range(images)]
    keys += [[category, seed + 2, i] for category, _ in ONE_SIDE for i in range(one_side)]
    return keys


def composed(seed: int, index: int):
    """A front and back of one generated holder on one scanned sheet; (RGB image, the front's fields)."""
    import cv2
    import numpy as np

    from docauth.synth import render_document

    rng = np.random.default_rng([seed, index])
    back = render_document("td1_back", rng)
    front = render_document("td1_front", rng, identity=back.fields)
    while front.mrz:  # a card prints its zone on one side: a front that prints one too is drawn again
        front = render_document("td1_front", rng, identity=back.fields)
    height, width = back.image.shape[:2]
    face = np.ascontiguousarray(front.image[:height, :width])
    gap, margin = int(height * rng.uniform(0.02, 0.1)), int(height * rng.uniform(0.0, 0.05))
    paper = rng.uniform(235, 256, 3).astype(np.uint8)
    stacked = rng.random() < 0.7
    cards = [face, back.image] if rng.random() < 0.8 else [back.image, face]
    if stacked:
        sheet = np.empty((2 * margin + 2 * height + gap, 2 * margin + width, 3), np.uint8)
        places = [(margin, margin), (margin + height + gap, margin)]
    else:
        sheet = np.empty((2 * margin + height, 2 * margin + 2 * width + gap, 3), np.uint8)
        places = [(margin, margin), (margin, margin + width + gap)]
    sheet[:] = paper
    for card, (y, x) in zip(cards, places):
        sheet[y:y + height, x:x + width] = card
    long_side = rng.uniform(300, 800)
    scale = long_side / max(sheet.shape[:2])
    small = cv2.resize(sheet, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    _, encoded = cv2.imencode(".jpg", small[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(75, 95))])
    return cv2.imdecode(encoded, cv2.IMREAD_COLOR)[..., ::-1].copy(), dict(front.fields)


def image_of(key: list):
    """The image a key names and the printed fields it holds (None for a set measured for CPU only)."""
    import cv2
    import numpy as np

    from docauth.synth import generate_sample

    group, seed, index = key
    if group == "composed":
        return composed(seed, index)
    sample = generate_sample(seed, index, category="td1_both" if group.startswith("sheet") else group)
    if group != "sheet-small":
        return sample.image, sample.label["fields"] if group == "sheet" else None
    back = np.asarray(sample.label["capture"]["back_corners"], float)
    scale = 300 / np.linalg.norm(back[1] - back[0])
    small = cv2.resize(sample.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    _, encoded = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(encoded, cv2.IMREAD_UNCHANGED), sample.label["fields"]


def serve(images: int, seed: int, one_side: int) -> None:
    """Read keys (JSON lines) on stdin, read each image, print its CPU and its front values as one JSON line."""
    from docauth.config import Settings
    from docauth.ocr.reader import DocumentReader
    from docauth.training.ocr_eval import field_equal

    reader = DocumentReader.load(backend=Settings.load().backend)
    reader(image_of(["sheet", seed, 0])[0])  # loads and warms every model
    print(json.dumps({"keys": _keys(images, seed, one_side)}), flush=True)
    sides = dict(ONE_SIDE)
    for line in sys.stdin:
        key = json.loads(line)
        image, truth = image_of(key)
        start = time.process_time()
        result = reader(image, side=sides.get(key[0]))
        out: dict = {"cpu_ms": (time.process_time() - start) * 1000, "viz": result.viz,
                     "mismatch": sorted(k for k, v in result.consistency.items() if v.get("agree") is False)}
        if truth is not None:
            out["exact"] = sum(field_equal(n, result.viz.get(n), truth[n]) for n in FRONT_VALUES)
            out["wrong"] = sum(result.viz.get(n) is not None and not field_equal(n, result.viz.get(n), truth[n])
                               for n in FRONT_VALUES)
        print(json.dumps(out), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="another checkout, measured in turn (the baseline)")
    ap.add_argument("--images", type=int, default=16, help="images in each both-sides set")
    ap.add_argument("--seed", type=int, default=474000)
    ap.add_argument("--one-side", type=int, default=8, help="images of each one-side kind")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    options = ["--images", str(args.images), "--seed", str(args.seed), "--one-side", str(args.one_side)]
    if args.serve:
        serve(args.images, args.seed, args.one_side)
        return
    roots = {"this": ROOT} if args.root is None else {"base": args.root.resolve(), "this": ROOT}
    procs = {name: paired.start(__file__, root, *options) for name, root in roots.items()}
    rows = []
    for n, key in enumerate(procs["this"].ready["keys"]):
        out = paired.ask_in_turn(procs, key, n)
        rows.append({"key": key, **out})
        print(key, " | ".join(f"{name} {r['cpu_ms']:.0f} ms exact {r.get('exact', '-')} wrong {r.get('wrong', '-')}"
                              f"{' mismatch ' + ','.join(r['mismatch']) if r['mismatch'] else ''}"
                              for name, r in out.items()), flush=True)
    paired.stop(procs)
    print()
    for group in ("sheet", "sheet-small", "composed", "td1_back", "td1_front", "td3_open"):
        mine = [row for row in rows if row["key"][0] == group]
        if not mine:
            continue
        cells = []
        for name in procs:
            cpu = statistics.median(row[name]["cpu_ms"] for row in mine)
            if "exact" in mine[0][name]:
                cells.append(f"{name}: exact {sum(r[name]['exact'] for r in mine)}/{3 * len(mine)}, wrong "
                             f"{sum(r[name]['wrong'] for r in mine)}, mismatch "
                             f"{sum(bool(r[name]['mismatch']) for r in mine)}, CPU median {cpu:.0f} ms")
            else:
                cells.append(f"{name}: CPU median {cpu:.0f} ms, "
                             f"mismatch {sum(bool(r[name]['mismatch']) for r in mine)}")
        same = (sum(row["base"]["viz"] == row["this"]["viz"] for row in mine) if "base" in procs else None)
        print(f"{group:12s} {len(mine):3d} images | " + " | ".join(cells)
              + (f" | printed values identical {same}/{len(mine)}" if same is not None else ""))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
