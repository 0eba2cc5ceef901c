"""Kiosk start: time to ready and the first checks' latency, this checkout against another, in turn.

    nice -n 10 .venv/bin/python bench/bench_kiosk_start.py [--root OTHER_CHECKOUT] [--rounds 3] [--cold]
        [--no-write]

Starts ``docauth kiosk`` of each checkout in turn (fresh data folder; the runtime profile the first start of
this checkout measured and the models it compiled are kept in it, as on a kiosk started before), measures the time from the command to
``/readyz`` 200, enrols the test person, then times the first full check (client side, HTTP included) and the
median of the next four; it records the CPU seconds the kiosk's processes spent until ready and each process's
resident memory (the worker, its face processes) after ready and after the checks. ``--cold`` adds one start of each without a profile (the kiosk's first start ever:
it measures the backends before it is ready). Writes the ``kiosk_start`` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import ROOT, Server, card_photos  # noqa: E402
from doc_section import write_section  # noqa: E402  (bench/: this script's folder)

BEGIN, END = "<!-- kiosk_start:begin -->", "<!-- kiosk_start:end -->"
LATER_CHECKS = 4
COMPILED_CACHE_DIR = "compiled-models"  # docauth.runtime.loading.COMPILED_CACHE_DIR (a baseline may not have it)


def process_rss_mb(server: Server) -> dict[str, float]:
    """Resident memory (MB) of each of the kiosk's processes: the gunicorn master, its worker, the worker's face
    processes (summed as ``face``, with their count)."""
    import psutil

    master = psutil.Process(server.proc.pid)
    out = {"master": master.memory_info().rss / 2**20, "worker": 0.0, "face": 0.0, "face_processes": 0}
    for proc in master.children(recursive=True):
        try:
            rss = proc.memory_info().rss / 2**20
            is_face = any("face_child" in part for part in proc.cmdline())
        except psutil.NoSuchProcess:
            continue
        if is_face:
            out["face"] += rss
            out["face_processes"] += 1
        else:
            out["worker"] += rss
    return out


def start_once(root: Path, data_dir: Path, images: list[bytes]) -> dict:
    server = Server(["kiosk"], data_dir, root=root)
    try:
        ready = server.wait_ready()
        ready_cpu = server.cpu_s()
        rss_ready = process_rss_mb(server)
        person = server.enrol()
        latencies = []
        for i in range(1 + LATER_CHECKS):
            elapsed, body = server.check(images[i % len(images)], person)
            if "decision" not in body:
                raise RuntimeError(f"check failed: {body}")
            latencies.append(elapsed * 1000)
        rss_checked = process_rss_mb(server)
    finally:
        server.stop()
    return {"ready_s": ready, "ready_cpu_s": ready_cpu, "first_ms": latencies[0],
            "later_ms": statistics.median(latencies[1:]), "rss_ready": rss_ready, "rss_checked": rss_checked}


def rss_text(rss: dict) -> str:
    face = f"face {rss['face'] / max(1, rss['face_processes']):.0f} x{rss['face_processes']}" \
        if rss["face_processes"] else "no face process"
    return f"master {rss['master']:.0f}, worker {rss['worker']:.0f}, {face}; total {total_rss(rss):.0f}"


def total_rss(rss: dict) -> float:
    return rss["master"] + rss["worker"] + rss["face"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="another checkout, started in turn (the baseline)")
    ap.add_argument("--label", default=None, help="the baseline's name in the table (default: its commit)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="also one start of each without a runtime profile")
    ap.add_argument("--profile", type=Path, default=None,
                    help="a runtime-profile.json of this machine to keep, instead of measuring one at a first start")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    roots = {"this build": ROOT}
    if args.root is not None:
        label = args.label or subprocess.run(["git", "-C", str(args.root), "rev-parse", "--short", "HEAD"],
                                             capture_output=True, text=True).stdout.strip()
        roots = {label: args.root.resolve(), "this build": ROOT}
    images = card_photos(4, seed0=900)
    load_before = os.getloadavg()[0]
    results: dict[tuple[str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-kiosk-start-") as tmp:
        kept = Path(tmp) / "kept"
        kept.mkdir()
        if args.profile is not None:
            shutil.copy(args.profile, kept / "runtime-profile.json")
        else:
            first = start_once(ROOT, kept, images)  # measures the backends once: the profile every start keeps
            print(f"profile measured (start without one: ready in {first['ready_s']:.1f} s)", flush=True)
            results[("this build", "no profile")] = [first]
        plan = [("kept profile", r) for r in range(args.rounds)] + ([("no profile", 0)] if args.cold else [])
        for case, round_no in plan:
            for label, root in roots.items():
                data_dir = Path(tmp) / f"{label}-{case}-{round_no}".replace(" ", "_")
                data_dir.mkdir()
                if case == "kept profile":  # what a kiosk started before keeps: its profile and compiled models
                    shutil.copy(kept / "runtime-profile.json", data_dir / "runtime-profile.json")
                    if (kept / COMPILED_CACHE_DIR).is_dir():
                        shutil.copytree(kept / COMPILED_CACHE_DIR, data_dir / COMPILED_CACHE_DIR)
                run = start_once(root, data_dir, images)
                results.setdefault((label, case), []).append(run)
                print(f"{case} {round_no} {label}: ready {run['ready_s']:.1f} s ({run['ready_cpu_s']:.1f} CPU s), "
                      f"first check {run['first_ms']:.0f} ms, later {run['later_ms']:.0f} ms; MB after ready: "
                      f"{rss_text(run['rss_ready'])}; after the checks: {rss_text(run['rss_checked'])}", flush=True)
    with_profile, cold, memory, face_processes = [], [], [], 0
    for (label, case), runs in results.items():  # in the order of `roots`: each list names them in turn
        med = {k: statistics.median(r[k] for r in runs) for k in ("ready_s", "ready_cpu_s", "first_ms", "later_ms")}
        if case == "kept profile":
            with_profile.append(f"{label} **{med['ready_s']:.1f}** ({med['ready_cpu_s']:.0f}) / "
                                f"{med['first_ms']:.0f} / {med['later_ms']:.0f}")
            rss = runs[-1]["rss_checked"]
            face_processes = rss["face_processes"]
            face = rss["face"] / max(1, face_processes)
            memory.append(f"{rss['master']:.0f} / {rss['worker']:.0f} / {face:.0f}")
        else:
            cold.append(f"{med['ready_s']:.1f}")
    lines = [
        "## Kiosk start (`bench/bench_kiosk_start.py`)",
        "",
        f"Ready s (CPU s) / first / next {LATER_CHECKS} checks ms, kept profile, median of {args.rounds} alternating "
        "starts: " + "; ".join(with_profile) + f". Fresh data dir: {'; '.join(cold) or 'not run'} s. MB after the "
        f"checks, master / worker / face process (x{face_processes}): " + "; ".join(memory) +
        f". {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, load {load_before:.2f}.",
    ]
    markdown = "\n".join(lines)
    print(markdown)
    if not args.no_write:
        write_section(markdown, BEGIN, END)


if __name__ == "__main__":
    main()
