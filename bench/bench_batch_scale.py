"""Archive scanner: images per second with 1 and 2 workers, this checkout against another, in turn.

    PYTHONPATH=$PWD nice -n 5 .venv/bin/python bench/bench_batch_scale.py [--count 120] [--workers 1,2] [--rounds 2]
        [--root OTHER_CHECKOUT] [--engine local|ray] [--no-write]

Generates ``--count`` images with docauth.synth (the held-out test seed: documents and non-documents, captured
as phones and scanners do), then runs ``docauth batch`` on them (shipped models) for each worker count and
checkout, alternating, ``--rounds`` times. Both checkouts use one runtime profile (measured once, by a first
short run of this checkout), so they run the same backends. Reports per run the wall time of the command,
img/s over it (model loading included) and after a quarter of the results (steady), the time to the first
line, and the CPU seconds of the scanner and every process under it (Ray's raylet and actors included), in all
and per image after the first quarter; the ratio of the most workers to the fewest. On a shared host the CPU per
image is the figure to compare; the rates hold only on a quiet one. Checks that every run gives every image
the same decision and reasons, and that the per-image ``timings_ms.total`` add up to no more than workers x
the run's wall time. Writes the ``archive`` (local engine) or ``archive_ray`` section of docs/benchmarks.md.
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

SECTIONS = {"local": ("<!-- archive:begin -->", "<!-- archive:end -->"),
            "ray": ("<!-- archive_ray:begin -->", "<!-- archive_ray:end -->")}
TITLES = {"local": "## Archive: `docauth batch` by workers (`bench/bench_batch_scale.py`)",
          "ray": "## Archive on Ray (`bench/bench_batch_scale.py --engine ray`)"}


class TreeCPU:
    """CPU seconds of a process and all its descendants, sampled: Ray's actors are children of its raylet, not
    of the scanner, so the scanner's own rusage misses them; a process's last sample stands for it after it
    exits."""

    def __init__(self, pid: int):
        import psutil  # deferred on purpose: an extra (requirements/extra.txt), only this bench needs it

        self.psutil = psutil
        self.root = psutil.Process(pid)
        self.seen: dict[tuple[int, float], float] = {}

    def sample(self) -> float:
        try:
            procs = [self.root, *self.root.children(recursive=True)]
        except self.psutil.NoSuchProcess:
            procs = []
        for proc in procs:
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    self.seen[(proc.pid, proc.create_time())] = times.user + times.system
            except (self.psutil.NoSuchProcess, self.psutil.AccessDenied):
                pass
        return sum(self.seen.values())


def run_batch(root: Path, images: Path, out: Path, data_dir: Path, workers: int, engine: str,
              expected: int = 0) -> dict:
    """One ``docauth batch`` run of ``root``'s code: wall seconds, first and last result line times, lines, CPU
    seconds in all and after a quarter of the ``expected`` lines: by then every worker has loaded and met its
    first images, so what follows is the steady cost per image without the workers' start."""
    out.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(root), DOCAUTH_DATA_DIR=str(data_dir), OMP_THREAD_LIMIT="1",
               TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [str(ROOT / ".venv" / "bin" / "python"), "-m", "docauth", "batch", str(images), "--out", str(out),
           "--workers", str(workers), "--engine", engine]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    tree = TreeCPU(proc.pid)
    first = last = None
    seen = 0
    mark = mark_lines = mark_cpu = None
    polls = 0
    while proc.poll() is None:
        lines = out.read_bytes().count(b"\n") if out.exists() else 0
        now = time.perf_counter() - start
        if polls % 5 == 0 or (lines > seen and mark is None):
            tree_cpu = tree.sample()
        if lines > seen:
            if first is None:
                first = now
            if mark is None and lines >= max(1, expected // 4):
                mark, mark_lines, mark_cpu = now, lines, tree_cpu
            last, seen = now, lines
        polls += 1
        time.sleep(0.05)
    wall = time.perf_counter() - start
    stdout, stderr = proc.communicate()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the scanner and its workers, once waited for
    tree_cpu = tree.sample()
    cpu_s = max((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), tree_cpu)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"docauth batch failed ({proc.returncode}):\n{stderr[-3000:]}")
    lines = out.read_bytes().count(b"\n")
    if lines > seen:
        last = wall
        if first is None:
            first = wall
    records = [json.loads(line) for line in out.read_text().splitlines()]
    steady = (lines - mark_lines) / (last - mark) if mark is not None and last > mark else None
    steady_cpu_ms = (tree_cpu - mark_cpu) * 1000 / (lines - mark_lines) if mark is not None and lines > mark_lines \
        else None
    return {"wall_s": wall, "first_line_s": first, "rate": lines / wall, "steady_rate": steady, "cpu_s": cpu_s,
            "steady_cpu_ms": steady_cpu_ms, "records": records,
            "summary": json.loads(stdout.strip().splitlines()[-1])["summary"]}


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
                                args.engine, expected=args.count)
                runs.setdefault((label, workers), []).append(run)
                print(f"round {round_no} {label} workers={workers}: {run['wall_s']:.1f} s, {run['rate']:.2f} img/s, "
                      f"steady {run['steady_rate'] or 0:.2f} img/s, first line {run['first_line_s'] or 0:.1f} s, "
                      f"CPU {run['cpu_s']:.1f} s, steady CPU {run['steady_cpu_ms'] or 0:.0f} ms/img, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)

    reference = decisions(next(iter(runs.values()))[0]["records"])
    same = all(decisions(r["records"]) == reference for rs in runs.values() for r in rs)
    honest = all(totals_within_wall(r, w) for (_, w), rs in runs.items() for r in rs)
    med = {key: {name: statistics.median(r[name] or 0 for r in rs)
                 for name in ("rate", "steady_rate", "first_line_s", "cpu_s", "steady_cpu_ms")}
           for key, rs in runs.items()}
    # Short: docs/benchmarks.md is held under 1500 words. The first-line times stay in runs.json.
    rows, ratios = [], []
    for label in roots:
        name = "this build" if label == "this" else label
        code = f"| {name} " if len(roots) > 1 else ""
        for workers in worker_counts:
            m = med[(label, workers)]
            threads = runs[(label, workers)][0]["summary"].get("threads_per_worker", "?")
            rows.append(f"{code}| {workers} | {threads} | {m['rate']:.2f} | {m['steady_rate']:.2f} | "
                        f"{m['cpu_s'] * 1000 / args.count:.0f} | {m['steady_cpu_ms']:.0f} |")
        if len(worker_counts) > 1:
            one, most = med[(label, worker_counts[0])], med[(label, worker_counts[-1])]
            ratios.append(f"{name + ': ' if code else ''}{worker_counts[-1]} / {worker_counts[0]} workers "
                          f"{most['rate'] / one['rate']:.2f}x, steady "
                          f"{most['steady_rate'] / max(one['steady_rate'], 1e-9):.2f}x")
    load_after = os.getloadavg()[0]
    lines = [
        TITLES[args.engine],
        "",
        f"{args.count} captures, {args.rounds} rounds in turn (median), load {load_before:.1f} -> {load_after:.1f}, "
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC. Steady: after a quarter of the results.",
        "",
        ("| code " if len(roots) > 1 else "") + "| workers | threads | img/s | steady img/s | CPU ms/img | steady |",
        ("|---" if len(roots) > 1 else "") + "|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "; ".join(ratios + [("decisions identical in every run" if same else "**decisions differ between runs**")
                            + (", totals within workers x wall" if honest else ", **totals exceed workers x wall**")])
        + ".",
    ]
    if args.engine == "ray" and len(roots) == 1:  # one sentence: the Ray section stays short
        ms = [med[("this", w)] for w in worker_counts]
        counts = " / ".join(str(w) for w in worker_counts)
        lines = [TITLES["ray"], "",
                 f"{args.count} captures, load {load_before:.0f}-{load_after:.0f}, "
                 f"{dt.datetime.now(dt.timezone.utc):%H:%M} UTC: {counts} actors "
                 + " / ".join(f"{m['rate']:.2f}" for m in ms) + " img/s, steady "
                 + " / ".join(f"{m['steady_rate']:.2f}" for m in ms) + "; CPU "
                 + " / ".join(f"{m['cpu_s'] * 1000 / args.count:.0f}" for m in ms)
                 + " ms/img with Ray's processes; " + ("decisions identical in every run." if same
                                                       else "**decisions differ between runs**.")]
    markdown = "\n".join(lines)
    print(markdown)
    (work / "runs.json").write_text(json.dumps({f"{k[0]}-{k[1]}": [{x: v for x, v in r.items() if x != "records"}
                                                                  for r in rs] for k, rs in runs.items()}, indent=1))
    if not args.no_write:
        write_section(markdown, *SECTIONS[args.engine])


if __name__ == "__main__":
    main()
