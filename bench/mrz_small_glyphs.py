"""Zones printed small: how often a zone read valid is wrong, by how far apart its glyphs are in the photo, and
what a stricter bar for the characters no check digit covers costs (docauth.ocr.mrz.parse.at_glyph_pitch).

    PYTHONPATH=$PWD OMP_THREAD_LIMIT=1 .venv/bin/python bench/mrz_small_glyphs.py [--seed 470000] [--count 160]
        [--factors 1,0.4,0.3,0.25,0.2,0.17,0.14,0.12] [--soft] [--out rows.json] [--rows rows.json]

Generated card backs and passport pages (an OCR-evaluation seed), each downscaled by every factor (area
averaging; ``--soft`` first blurs by about 0.6 output pixels and saves as JPEG 80, as a phone's optics and app
would), the zone found and chosen as the check does (``DocumentReader.find_zone``) before it is judged at its
glyph pitch. Per zone it keeps the pitch and, per character, the recogniser's probability of what was read and
whether a check digit covers it; then prints, per pitch band, zones read exactly / valid / valid but wrong,
and for each candidate (pitch, probability) bar the valid-but-wrong zones left and the right ones made unsure.
Generated images only: the shared real sets are for measuring, never for fitting this bar.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BANDS = (3, 4, 5, 6, 7, 8, 10, 12, 16, float("inf"))
PITCHES = (4.5, 5.0, 5.5, 6.0, 7.0, 8.0)
MIN_PS = (0.9, 0.93, 0.95, 0.97, 0.99)


def captured(image: np.ndarray, factor: float, soft: bool) -> np.ndarray:
    if factor == 1.0:
        return image
    if soft:
        image = cv2.GaussianBlur(image, (0, 0), 0.6 / factor)
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(16, round(w * factor)), max(16, round(h * factor))), interpolation=cv2.INTER_AREA)
    if soft:
        _ok, data = cv2.imencode(".jpg", small[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 80])
        small = np.ascontiguousarray(cv2.imdecode(data, cv2.IMREAD_COLOR)[..., ::-1])
    return small


def collect(seed: int, count: int, factors: list[float], soft: bool) -> list[dict]:
    from docauth.config import Settings
    from docauth.ocr.mrz.format import LAYOUTS, checked_positions
    from docauth.pipeline import loaders
    from docauth.synth import generate_sample

    reader = loaders.load_reader(Settings.load(face_process=False))
    rows = []
    for i in range(count):
        sample = generate_sample(seed, i, category=("td1_back", "td3_open")[i % 2])
        truth = list(sample.label["mrz"] or [])
        for factor in factors:
            _located, read = reader.find_zone(captured(sample.image, factor, soft), side=sample.label["side"])
            if read is None or read.result.alternatives is None or read.result.type not in LAYOUTS:
                continue
            r = read.result
            checked = checked_positions(LAYOUTS[r.type])
            # Judged as before the bar: a character counts as sure above MIN_UNCHECKED_P (r.uncertain is the bar's).
            chars = [[dict(r.alternatives[n][k]).get(ch, 0.0) if k < len(r.alternatives[n]) else 0.0,
                      (n, k) in checked] for n, line in enumerate(r.lines) for k, ch in enumerate(line)]
            before = r.valid or any("px apart" in w for w in r.warnings)
            rows.append({"i": i, "factor": factor, "pitch": read.glyph_pitch(), "exact": r.lines == truth,
                         "valid": bool(before), "chars": chars})
        print(f"{i + 1}/{count}", file=sys.stderr, flush=True)
    return rows


def table(rows: list[dict]) -> None:
    print("| pitch under (px) | zones | exact | valid | valid but wrong |\n|---:|---:|---:|---:|---:|")
    for lo, hi in zip((0,) + BANDS, BANDS):
        band = [r for r in rows if lo <= r["pitch"] < hi]
        print(f"| {hi:g} | {len(band)} | {sum(r['exact'] for r in band)} | {sum(r['valid'] for r in band)} | "
              f"{sum(r['valid'] and not r['exact'] for r in band)} |")
    valid = [r for r in rows if r["valid"]]
    print(f"\nvalid but wrong left / right zones made unsure, of {len(valid)} valid "
          f"({sum(not r['exact'] for r in valid)} wrong), by unchecked-character bar:")
    print("| pitch under \\ p under | " + " | ".join(f"{p:g}" for p in MIN_PS) + " |")
    print("|---" * (len(MIN_PS) + 1) + "|")
    for pitch in PITCHES:
        cells = []
        for min_p in MIN_PS:
            unsure = [r["pitch"] < pitch and any(p < min_p for p, covered in r["chars"] if not covered) for r in valid]
            cells.append(f"{sum(not r['exact'] and not u for r, u in zip(valid, unsure))} / "
                         f"{sum(r['exact'] and u for r, u in zip(valid, unsure))}")
        print(f"| {pitch:g} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=470_000)
    ap.add_argument("--count", type=int, default=160)
    ap.add_argument("--factors", default="1,0.4,0.3,0.25,0.2,0.17,0.14,0.12")
    ap.add_argument("--soft", action="store_true", help="blur and JPEG as a phone would before reading")
    ap.add_argument("--out", help="write the rows here (JSON)")
    ap.add_argument("--rows", help="print the table of rows an earlier --out wrote, reading nothing")
    args = ap.parse_args()
    if args.rows:
        rows = json.loads(Path(args.rows).read_text())
    else:
        rows = collect(args.seed, args.count, [float(f) for f in args.factors.split(",")], args.soft)
        if args.out:
            Path(args.out).write_text(json.dumps(rows))
    table(rows)


if __name__ == "__main__":
    main()
