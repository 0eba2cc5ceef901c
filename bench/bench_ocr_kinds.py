"""Full OCR per kind of page, CPU time on one core: card backs, passport pages, card fronts (side given).

    [DOCAUTH_BACKEND=openvino:threads=1] nice -n 10 .venv/bin/python bench/bench_ocr_kinds.py [--images 12]
        [--root OTHER_CHECKOUT] [--json OUT]

``--root`` imports docauth from another checkout (e.g. a ``git worktree`` of the commit before a change), so
two readers are measured in one session on one machine: compare the two runs' medians as a ratio. CPU time of
this process and its children (Tesseract may run as a child) counts what one uncontended core would need.
The first call of each kind loads and warms the models and is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

KINDS = (("td1_back", "back"), ("td3_open", "open"), ("td1_front", "front"))
SEED = 481_000  # an OCR-evaluation seed no reader change was measured on


def _cpu_ms() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime) * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=12)
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    os.environ["OMP_THREAD_LIMIT"] = "1"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    sys.path.insert(0, str(args.root))
    from docauth.config import Settings
    from docauth.ocr.reader import DocumentReader
    from docauth.synth import generate_sample

    # Passed explicitly: a checkout before DocumentReader.load() read DOCAUTH_BACKEND by itself ignored it.
    reader = DocumentReader.load(backend=Settings.load().backend)
    out = {"root": str(args.root), "images": args.images, "kinds": {}}
    for category, side in KINDS:
        images = [generate_sample(SEED, i, category=category).image for i in range(args.images + 1)]
        reader(images[0], side=side)
        cpu = []
        for image in images[1:]:
            start = _cpu_ms()
            reader(image, side=side)
            cpu.append(_cpu_ms() - start)
        cpu.sort()
        out["kinds"][category] = {"median_cpu_ms": round(cpu[len(cpu) // 2], 1),
                                  "p90_cpu_ms": round(cpu[int(0.9 * (len(cpu) - 1))], 1)}
        print(f"{category:10s} median {cpu[len(cpu) // 2]:6.0f} ms CPU, p90 {cpu[int(0.9 * (len(cpu) - 1))]:6.0f} ms",
              flush=True)
    out["measured"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
