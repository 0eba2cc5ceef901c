"""Archive scanner: images per second with 1 and 2 workers, this checkout against another, in turn.

    nice -n 10 .venv/bin/python bench/bench_batch_scale.py [--count 120] [--workers 1,2] [--rounds 2]
        [--root OTHER_CHECKOUT] [--engine local|ray] [--no-write]

Generates ``--count`` images with docauth.synth (the held-out test seed: documents and non-documents, captured
as phones and scanners do), then runs ``docauth batch`` on them (shipped models) for each worker count and
checkout, alternating, ``--rounds`` times. Both checkouts use one runtime profile (measured once, by a first
short run of this checkout), so they run the same backends. Reports per run the wall time of the command,
img/s over it (model loading included), the time to the first result line and the CPU seconds of the scanner
and its workers (local engine; Ray's actors are not its children); checks that every run gives every image
the same decision and reasons, and that the per-image ``timings_ms.total`` add up to no more than workers x
the run's wall time. Writes the ``archive`` section of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import ROOT  # noqa: E402
from doc_section import write_section  # noqa: E402  (bench/: this script's folder)

BEGIN, END = "<!-- archive:begin -->", "<!-- archive:end -->"


def run_batch(root: Path, images: Path, out: Path, data_dir: Path, workers: int, engine: str) -> dict:
    """One ``docauth batch`` run of ``root``'s code: wall seconds, first and last result line times, lines."""
    out.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(root), DOCAUTH_DATA_DIR=str(data_dir), OMP_THREAD_LIMIT="1",
               TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [str(ROOT / ".venv" / "bin" / "python"), "-m", "docauth", "batch", str(images), "--out", str(out),
           "--workers", str(workers), "--engine", engine]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = last = None
    seen = 0
    first_lines = 0
    while proc.poll() is None:
        lines = out.read_bytes().count(b"\n") if out.exists() else 0
        now = time.perf_counter() - start
        if lines > seen:
            if first is None:
                first, first_lines = now, lines
            last, seen = now, lines
        time.sleep(0.05)
    wall = time.perf_counter() - start
    stdout, stderr = proc.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the scanner and its workers, once waited for
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"docauth batch failed ({proc.returncode}):\n{stderr[-3000:]}")
    lines = out.read_bytes().count(b"\n")
    if lines > seen:
        last = wall
        if first is None:
            first, first_lines = wall, lines
    records = [json.loads(line) for line in out.read_text().splitlines()]
    steady = (lines - first_lines) / (last - first) if last and first and last > first else None
    return {"wall_s": wall, "first_line_s": first, "rate": lines / wall, "steady_rate": steady, "cpu_s": cpu_s,
            "records": records, "summary": json.loads(stdout.strip().splitlines()[-1])["summary"]}


def decisions(records: list[dict]) -> dict:
    return {Path(r["path"]).name: (r.get("decision"), tuple(r.get("reasons", ())), "error" in r) for r in records}


def totals_within_wall(run: dict, workers: int) -> bool:
    totals_ms = sum(r["result"]["timings_ms"]["total"] for r in run["records"] if "result" in r)
    return totals_ms <= run["wall_s"] * 1000.0 * workers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--root", type=Path, default=None, help="another checkout to measure in turn (the baseline)")
    ap.add_argument("--label", default=None, help="the baseline's name in the table (default: its commit)")
    ap.add_argument("--engine", default="local", choices=["local", "ray"])
    ap.add_argument("--work", type=Path, default=None, help="keep images, profile and results here")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    worker_counts = [int(w) for w in args.workers.split(",")]

    from docauth.synth import generate_dataset
    from docauth.synth.seeds import TEST

    work = args.work or Path(tempfile.mkdtemp(prefix="bench-batch-scale-"))
    images = work / f"images-{args.count}"
    if not (images / "labels.jsonl").exists():  # the scanner takes only the images of the folder
        generate_dataset(images, args.count, TEST.default, workers=2)
    profile_dir = work / "profile"
    if not (profile_dir / "runtime-profile.json").exists():  # one short run measures the backends once
        sample = work / "profile-sample"
        sample.mkdir(exist_ok=True)
        for p in sorted(images.glob("*.jpg"))[:4]:
            shutil.copy(p, sample / p.name)
        run_batch(ROOT, sample, work / "profile-sample.jsonl", profile_dir, 1, "local")
    roots = {"this": ROOT}
    if args.root is not None:
        label = args.label or subprocess.run(["git", "-C", str(args.root), "rev-parse", "--short", "HEAD"],
                                             capture_output=True, text=True).stdout.strip()
        roots = {label: args.root.resolve(), "this": ROOT}
    load_before = os.getloadavg()[0]
    runs: dict[tuple[str, int], list[dict]] = {}
    for round_no in range(args.rounds):
        for workers in worker_counts:
            for label, root in roots.items():
                data_dir = work / f"data-{label}-{workers}"
                shutil.rmtree(data_dir, ignore_errors=True)
                data_dir.mkdir(parents=True)
                shutil.copy(profile_dir / "runtime-profile.json", data_dir / "runtime-profile.json")
                run = run_batch(root, images, work / f"results-{label}-{workers}.jsonl", data_dir, workers,
                                args.engine)
                runs.setdefault((label, workers), []).append(run)
                print(f"round {round_no} {label} workers={workers}: {run['wall_s']:.1f} s, {run['rate']:.2f} img/s, "
                      f"steady {run['steady_rate'] or 0:.2f} img/s, first line {run['first_line_s'] or 0:.1f} s, "
                      f"CPU {run['cpu_s']:.1f} s", flush=True)

    reference = decisions(next(iter(runs.values()))[0]["records"])
    same = all(decisions(r["records"]) == reference for rs in runs.values() for r in rs)
    honest = all(totals_within_wall(r, w) for (_, w), rs in runs.items() for r in rs)
    med = {key: (statistics.median(r["rate"] for r in rs), statistics.median(r["steady_rate"] or 0 for r in rs),
                 statistics.median(r["first_line_s"] or 0 for r in rs),
                 statistics.median(r["cpu_s"] for r in rs) * 1000 / args.count) for key, rs in runs.items()}
    rows = []
    for label in roots:
        for workers in worker_counts:
            rate, _steady, _first, cpu_ms = med[(label, workers)]
            rows.append(f"| {'this build' if label == 'this' else label} | {workers} | {rate:.2f} | {cpu_ms:.0f} |")
    lines = [
        "## Archive: `docauth batch` by workers (`bench/bench_batch_scale.py`)",
        "",
        f"{args.count} generated captures, {args.engine} engine, loading included, {args.rounds} rounds in turn "
        f"(median).",
        "",
        "| code | workers | img/s | CPU ms/img |",
        "|---|---:|---:|---:|",
        *rows,
        "",
        ("Decisions and reasons identical in every run" if same else "**Decisions differ between runs**")
        + ("; per-image totals within workers x wall" if honest else "; **per-image totals exceed workers x wall**")
        + f". {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, load {load_before:.2f}.",
    ]
    markdown = "\n".join(lines)
    print(markdown)
    (work / "runs.json").write_text(json.dumps({f"{k[0]}-{k[1]}": [{x: v for x, v in r.items() if x != "records"}
                                                                  for r in rs] for k, rs in runs.items()}, indent=1))
    if not args.no_write:
        write_section(markdown, BEGIN, END)


if __name__ == "__main__":
    main()
