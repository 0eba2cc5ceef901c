"""Archive scan of 1,000 generated images, killed with SIGKILL mid-run and resumed: every image exactly once.

    nice -n 10 .venv/bin/python bench/bench_batch_resume.py [--count 1000] [--kill-at 0.4] [--workers 1]
        [--factory pipeline_support:standin_pipeline] [--no-write]

Generates ``--count`` images with docauth.synth (documents and non-documents,
captured as phones and scanners do), runs ``docauth batch`` on them with the
shipped models (or ``--factory`` for the machinery alone), sends SIGKILL when
``--kill-at`` of the images are in the results file, resumes with
``--resume``, and verifies: every input path exactly once, no line lost, no
line repeated. Writes the result between the ``batch`` markers of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import ROOT  # noqa: E402
from doc_section import write_section  # noqa: E402  (bench/: this script's folder)

DOCAUTH = ROOT / ".venv" / "bin" / "docauth"
BEGIN, END = "<!-- batch:begin -->", "<!-- batch:end -->"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--kill-at", type=float, default=0.4)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--factory", default=None)
    ap.add_argument("--keep", default=None, help="keep the images and results in this folder")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    from docauth.synth import generate_dataset
    from docauth.synth.seeds import TEST

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-batch-"))
    images = work / "images"
    if not (images / "labels.jsonl").exists():
        generate_dataset(images, args.count, TEST.default, workers=2)
    inputs = sorted(str(p.resolve()) for p in images.glob("*.jpg"))
    out = work / "results.jsonl"
    out.unlink(missing_ok=True)
    env = dict(os.environ, DOCAUTH_DATA_DIR=str(work / "data"), OMP_THREAD_LIMIT="1", TF_CPP_MIN_LOG_LEVEL="2",
               PYTHONPATH=str(ROOT / "tests"))
    cmd = [str(DOCAUTH), "batch", str(images), "--out", str(out), "--workers", str(args.workers)]
    if args.factory:
        cmd += ["--pipeline-factory", args.factory]

    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    target = int(args.count * args.kill_at)
    while proc.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= target:
            proc.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    proc.wait()
    first_s = time.perf_counter() - t0
    killed_with = out.read_bytes().count(b"\n")

    t1 = time.perf_counter()
    resumed = subprocess.run(cmd + ["--resume"], env=env, capture_output=True, text=True)
    resume_s = time.perf_counter() - t1
    if resumed.returncode != 0:
        raise SystemExit(resumed.stderr[-3000:])
    records = [json.loads(line) for line in out.read_text().splitlines()]
    counts = Counter(r["path"] for r in records)
    missing = set(inputs) - set(counts)
    repeated = [p for p, n in counts.items() if n > 1]
    ok = not missing and not repeated and len(records) == len(inputs)
    engine = f"`--pipeline-factory {args.factory}` (machinery only)" if args.factory else "shipped models"
    rate = (len(records)) / (first_s + resume_s)
    lines = [
        "## Batch: kill and resume (`bench/bench_batch_resume.py`)",
        "",
        f"`docauth batch --workers {args.workers}`{' ' + engine if args.factory else ''}, {len(inputs)} generated "
        f"images, SIGKILL after {killed_with} results, `--resume`: "
        f"**{'every image exactly once' if ok else 'FAILED'}** ({len(missing)} missing, {len(repeated)} repeated); {rate:.2f} images/s. "
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC.",
    ]
    markdown = "\n".join(lines)
    print(markdown)
    if not args.no_write:
        write_section(markdown, BEGIN, END)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
