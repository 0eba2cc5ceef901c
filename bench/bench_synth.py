"""Synthetic data generation speed: per-category CPU time, mix-weighted mean, and the workers=2 speed-up.

Run:  nice -n 10 .venv/bin/python bench/bench_synth.py [--per-category 20] [--dataset 200] [--write]
``--write`` replaces the synth section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

import cv2

from docauth.synth import CATEGORIES, MIX, generate_dataset, generate_sample
from docauth.synth.seeds import TESTS

ROOT = Path(__file__).resolve().parent.parent
BEGIN, END = "<!-- synth:begin -->", "<!-- synth:end -->"
TARGET_MS = 60.0


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def per_category(n: int) -> dict[str, tuple[float, float]]:
    cv2.setNumThreads(1)
    for c in CATEGORIES:  # warm-up: fonts, caches
        generate_sample(TESTS.nth(50), 0, c)
    out = {}
    for c in CATEGORIES:
        t_cpu, t_wall = time.process_time(), time.perf_counter()
        for i in range(n):
            generate_sample(TESTS.nth(51), i, c)
        out[c] = ((time.process_time() - t_cpu) / n * 1000, (time.perf_counter() - t_wall) / n * 1000)
    return out


def dataset_speed(count: int) -> tuple[dict[int, float], bool]:
    """Wall time of generate_dataset with 1 and 2 workers, and whether both wrote identical files."""
    res, digests = {}, {}
    for workers in (1, 2):
        d = tempfile.mkdtemp(prefix="bench_synth_")
        try:
            t = time.perf_counter()
            generate_dataset(d, count, TESTS.nth(52), workers=workers)
            res[workers] = time.perf_counter() - t
            digests[workers] = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in Path(d).iterdir()}
        finally:
            shutil.rmtree(d)
    return res, digests[1] == digests[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-category", type=int, default=20)
    ap.add_argument("--dataset", type=int, default=200)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    cats = per_category(args.per_category)
    mix_cpu = sum(MIX[c] * cats[c][0] for c in CATEGORIES)
    mix_wall = sum(MIX[c] * cats[c][1] for c in CATEGORIES)
    ds, identical = dataset_speed(args.dataset)
    load = os.getloadavg()[0]
    head = " | ".join(CATEGORIES)
    cells = " | ".join(f"{cats[c][0]:.1f}" for c in CATEGORIES)
    section = f"""{BEGIN}
## Synthetic data: generation speed (`bench/bench_synth.py`)

CPU ms per generated sample (one OpenCV thread) by category and weighted by the mix, against {TARGET_MS:.0f} ms;
`generate_dataset` with one and two workers.

| {head} | **mix** |
|{"---:|" * (len(CATEGORIES) + 1)}
| {cells} | **{mix_cpu:.1f}** |

Mix: **{mix_cpu / TARGET_MS:.2f}x** the target (wall {mix_wall:.1f} ms), 20,000 images in about
{20000 * mix_cpu / 1000 / 60:.0f} min on one core. `generate_dataset` of {args.dataset}: {ds[1]:.1f} s with one worker,
{ds[2]:.1f} s with two ({ds[1] / ds[2]:.2f}x), byte-identical: {identical}.

Measured {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC on {cpu_model()}, {os.cpu_count()} cores, OpenCV
{cv2.__version__}, {args.per_category} samples per category; load average {load:.1f}.
{END}
"""
    print(section)
    if args.write:
        path = ROOT / "docs" / "benchmarks.md"
        text = path.read_text() if path.exists() else "# Benchmarks\n"
        if BEGIN in text and END in text:
            text = text[: text.index(BEGIN)] + section.rstrip("\n") + text[text.index(END) + len(END):]
        else:
            text = text.rstrip("\n") + "\n\n" + section
        path.write_text(text)


if __name__ == "__main__":
    main()
