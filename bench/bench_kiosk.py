"""Kiosk: time to ready, and full-check latency p50/p95/p99 one request at a time (loopback only).

    nice -n 10 .venv/bin/python bench/bench_kiosk.py [--checks 40] [--no-write]

Starts ``docauth kiosk`` (realtime mode, one worker, everything loaded and
warmed before /readyz says ready), measures the time from the command to
/readyz = 200, then sends ``--checks`` full checks of phone-style card photos
of the enrolled test person, sequentially. Reports client-side latency (HTTP
included) and the server's own ``timings_ms.total`` and per-stage medians.
Writes the "Kiosk" section of docs/benchmarks.md between the ``kiosk`` markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_service import Server, card_photos, machine, percentile  # noqa: E402
from doc_section import write_section  # noqa: E402  (bench/: this script's folder)

BEGIN, END = "<!-- kiosk:begin -->", "<!-- kiosk:end -->"
TARGET_P95_MS = 700


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checks", type=int, default=40)
    ap.add_argument("--images", type=int, default=10)
    ap.add_argument("--runs", type=int, default=1,
                    help="Repeat the --checks run this many times on the same server; the verdict takes the median "
                         "run's p95 (this host's speed drifts between minutes).")
    ap.add_argument("--baseline-env", metavar="KEY=VALUE",
                    help="Also start a second kiosk with this setting (e.g. DOCAUTH_FACE_PROCESS=0) and run the same "
                         "checks on it after each run: per-run p95 of both and their ratio, measured in turn.")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    images = card_photos(args.images, seed0=900)
    with tempfile.TemporaryDirectory(prefix="bench-kiosk-") as tmp:
        for name in ("main", "baseline"):
            (Path(tmp) / name).mkdir()
        server = Server(["kiosk"], Path(tmp) / "main")
        baseline, base_p95, base_p50, run_p50 = None, [], [], []
        try:
            ready = server.wait_ready()
            pid = server.enrol()
            if args.baseline_env:
                key, _, value = args.baseline_env.partition("=")
                baseline = Server(["kiosk"], Path(tmp) / "baseline", env_extra={key: value})
                baseline.wait_ready()
                base_pid = baseline.enrol()

            def baseline_run():
                run_p50.append(percentile(client[-args.checks:], 50))
                if baseline is not None:
                    latencies = [baseline.check(images[k % len(images)], base_pid)[0] * 1000
                                 for k in range(args.checks)]
                    base_p95.append(percentile(latencies, 95))
                    base_p50.append(percentile(latencies, 50))

            client, totals, stages, decisions = [], [], {}, {}
            by_kind: dict[str, list[float]] = {"card front": [], "passport page": []}
            rss = {"ready": server.rss_mb()}
            run_p95 = []
            for i in range(args.checks * args.runs):
                if i == min(20, args.checks // 4):
                    rss[f"after {i} checks"] = server.rss_mb()
                if i and i % args.checks == 0:
                    run_p95.append(percentile(client[-args.checks:], 95))
                    baseline_run()
                elapsed, body = server.check(images[i % len(images)], pid)
                if "decision" not in body:
                    raise RuntimeError(f"check failed: {body}")
                client.append(elapsed * 1000)
                # card_photos alternates: even images are ID-card fronts, odd ones passport data pages
                by_kind["card front" if (i % len(images)) % 2 == 0 else "passport page"].append(elapsed * 1000)
                totals.append(body["timings_ms"]["total"])
                decisions[body["decision"]] = decisions.get(body["decision"], 0) + 1
                for stage, ms in body["timings_ms"].items():
                    if stage != "total":
                        stages.setdefault(stage, []).append(ms)
            run_p95.append(percentile(client[-args.checks:], 95))
            baseline_run()
            rss[f"after {args.checks * args.runs} checks"] = server.rss_mb()
        finally:
            server.stop()
            if baseline is not None:
                baseline.stop()
    q = lambda v, p: percentile(v, p)  # noqa: E731
    lines = [
        "## Kiosk: full-check latency and time to ready (`bench/bench_kiosk.py`)",
        "",
        "Full checks one at a time (phone photos of the enrolled person's card fronts and passport pages), and "
        "the time from the command to `/readyz` 200.",
        "",
        "| latency | p50 ms | p95 ms | p99 ms |",
        "|---|---:|---:|---:|",
        f"| client (HTTP included) | {q(client, 50):.0f} | **{q(client, 95):.0f}** | {q(client, 99):.0f} |",
        f"| server `timings_ms.total` | {q(totals, 50):.0f} | {q(totals, 95):.0f} | {q(totals, 99):.0f} |",
        *(f"| client, {kind}s only | {q(v, 50):.0f} | {q(v, 95):.0f} | {q(v, 99):.0f} |"
          for kind, v in by_kind.items() if v),
        "",
        f"Ready in **{ready:.1f} s**; stage medians " + ", ".join(
            f"{k} {statistics.median(v):.0f}" for k, v in stages.items()) + " ms; "
        "memory " + ", ".join(f"{k} {v:.0f} MB" for k, v in (list(rss.items())[0], list(rss.items())[-1])) + ".",
        "",
        *([f"Baseline `{args.baseline_env}` run in turn, this build / baseline p95 per run: "
           + ", ".join(f"{a / b:.2f}" for a, b in zip(run_p95, base_p95))
           + f" (median {statistics.median(a / b for a, b in zip(run_p95, base_p95)):.2f}), p50: "
           + ", ".join(f"{a / b:.2f}" for a, b in zip(run_p50, base_p50)) + ".", ""]
          if base_p95 else []),
        f"Target: client p95 <= {TARGET_P95_MS} ms, median run: "
        + ("**met**" if statistics.median(run_p95) <= TARGET_P95_MS else "**not met**")
        + f" ({statistics.median(run_p95):.0f} ms; runs " + ", ".join(f"{v:.0f}" for v in run_p95) + ").",
        "",
        f"Measured {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC on {machine()}; `docauth kiosk` "
        f"(realtime, 1 worker), SQLite; {args.runs} run(s) of {args.checks} checks of {args.images} photos; "
        f"load average {load_before:.2f}.",
    ]
    markdown = "\n".join(lines)
    print(markdown)
    print(f"decisions {decisions}; memory {rss}")
    if not args.no_write:
        write_section(markdown, BEGIN, END)


if __name__ == "__main__":
    main()
