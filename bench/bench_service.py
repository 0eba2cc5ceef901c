"""Service throughput: checks/s at concurrency 1, 4 and 16, realtime vs throughput mode (loopback only).

    nice -n 10 .venv/bin/python bench/bench_service.py [--requests 32] [--no-write]

For each mode it starts the real ``docauth serve`` (gunicorn, default workers
for the mode, temporary data dir, shipped models), enrols the test person,
sends a fixed number of full checks (phone-style card photos of that person,
generated once) at each concurrency, and stops the server. Every loop is
bounded in count and time. Results go to the "Service" section of
docs/benchmarks.md between the ``service`` markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import platform
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import requests  # noqa: E402
from doc_section import write_section  # noqa: E402  (bench/: this script's folder)

DOCAUTH = ROOT / ".venv" / "bin" / "docauth"
BEGIN, END = "<!-- service:begin -->", "<!-- service:end -->"


def percentile(values, q):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def card_photos(count: int, seed0: int = 500) -> list[bytes]:
    """Phone photos of ID cards (TD1 front) and passport pages of the enrolled test person."""
    from docauth.imageio import encode_jpeg
    from pipeline_support import ASTRONAUT_PERSON, astronaut_portrait, document_of

    out = []
    for i in range(count):
        kind = "td1_front" if i % 2 == 0 else "td3_open"
        out.append(encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(), seed=seed0 + i, kind=kind), 90))
    return out


class Server:
    """``docauth serve``/``kiosk`` in a subprocess with its own data dir; stops itself on exit."""

    def __init__(self, args: list[str], data_dir: Path, env_extra: dict | None = None):
        from pipeline_support import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, DOCAUTH_DATA_DIR=str(data_dir), OMP_THREAD_LIMIT="1",
                        TF_CPP_MIN_LOG_LEVEL="2", DOCAUTH_RATE_LIMIT_PER_MINUTE="0", **(env_extra or {}))
        key = subprocess.run([str(DOCAUTH), "keys", "create", "--name", "bench"], env=self.env,
                             capture_output=True, text=True, check=True)
        self.key = key.stdout.strip().splitlines()[-1]
        self.headers = {"Authorization": "Bearer " + self.key}
        self.log_path = data_dir / "server.log"
        self.log = open(self.log_path, "w")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([str(DOCAUTH), *args, "--port", str(self.port)], env=self.env,
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.time_to_ready = None

    def wait_ready(self, timeout: float = 300) -> float:
        while time.monotonic() - self.started < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited:\n" + self.log_path.read_text()[-3000:])
            try:
                r = requests.get(self.url + "/readyz", timeout=2)
                if r.status_code == 200:
                    self.time_to_ready = time.monotonic() - self.started
                    return self.time_to_ready
            except (requests.ConnectionError, requests.Timeout):
                pass
            time.sleep(0.2)
        raise RuntimeError("server not ready in time:\n" + self.log_path.read_text()[-3000:])

    def wait_all_workers_ready(self, workers: int, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.log_path.read_text().count("ready: pipeline loaded") < workers:
            time.sleep(0.5)

    def enrol(self) -> int:
        import skimage.data

        from docauth.imageio import encode_png
        from pipeline_support import ASTRONAUT_PERSON

        r = requests.post(self.url + "/v1/persons", headers=self.headers, data=ASTRONAUT_PERSON,
                          files=[("photo", ("a.png", io.BytesIO(encode_png(skimage.data.astronaut()))))])
        r.raise_for_status()
        return r.json()["id"]

    def check(self, image: bytes, person_id: int) -> tuple[float, dict]:
        t = time.perf_counter()
        r = requests.post(self.url + "/v1/checks", headers=self.headers, data={"person_id": str(person_id)},
                          files={"image": ("card.jpg", io.BytesIO(image))}, timeout=120)
        elapsed = time.perf_counter() - t
        return elapsed, (r.json() if r.status_code == 200 else {"status": r.status_code, "body": r.text[:200]})

    def rss_mb(self) -> float:
        """Resident memory of the server process and its children (workers), MB."""
        import psutil

        master = psutil.Process(self.proc.pid)
        return sum(p.memory_info().rss for p in [master, *master.children(recursive=True)]) / 2**20

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()


def run_load(server: Server, images: list[bytes], person_id: int, concurrency: int, n_requests: int) -> dict:
    jobs = [images[i % len(images)] for i in range(n_requests)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(lambda img: server.check(img, person_id), jobs))
    wall = time.perf_counter() - t0
    latencies = [r[0] * 1000 for r in results if "decision" in r[1]]
    errors = sum(1 for r in results if "decision" not in r[1])
    decisions = {}
    for _, body in results:
        if "decision" in body:
            decisions[body["decision"]] = decisions.get(body["decision"], 0) + 1
    return {"concurrency": concurrency, "requests": n_requests, "errors": errors, "wall_s": wall,
            "checks_per_s": len(latencies) / wall, "p50": percentile(latencies, 50),
            "p95": percentile(latencies, 95), "decisions": decisions}


def machine() -> str:
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=32, help="checks per concurrency level")
    ap.add_argument("--images", type=int, default=8)
    ap.add_argument("--concurrency", default="1,4,16")
    ap.add_argument("--modes", default="realtime,throughput")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    import tempfile

    images = card_photos(args.images)
    rows = []
    for mode in args.modes.split(","):
        with tempfile.TemporaryDirectory(prefix=f"bench-{mode}-") as tmp:
            server = Server(["serve", "--mode", mode], Path(tmp))
            try:
                server.wait_ready()
                workers = 1 if mode == "throughput" else min(os.cpu_count() or 1, 4)
                server.wait_all_workers_ready(workers)
                pid = server.enrol()
                for img in images[:2]:
                    server.check(img, pid)  # each worker warm on real input
                for c in (int(x) for x in args.concurrency.split(",")):
                    row = run_load(server, images, pid, c, args.requests)
                    row.update(mode=mode, workers=workers, time_to_ready=server.time_to_ready)
                    rows.append(row)
                    print(f"{mode:10s} c={c:<3d} {row['checks_per_s']:.2f} checks/s p50 {row['p50']:.0f} ms "
                          f"p95 {row['p95']:.0f} ms errors {row['errors']} {row['decisions']}", flush=True)
            finally:
                server.stop()
    by = {(r["mode"], r["concurrency"]): r for r in rows}
    lines = [
        "## Service: throughput by mode (`bench/bench_service.py`)",
        "",
        f"Full checks of the enrolled person ({args.requests} per concurrency level, {args.images} phone photos) "
        "against `docauth serve` (gunicorn, loopback, SQLite) in each mode.",
        "",
    ]
    modes = args.modes.split(",")
    lines += ["| concurrency | " + " | ".join(f"{m} checks/s | {m} p50 / p95 ms" for m in modes) + " |",
              "|---:|" + "---:|---:|" * len(modes)]
    for c in (int(x) for x in args.concurrency.split(",")):
        cells = [f"{by[m, c]['checks_per_s']:.2f} | {by[m, c]['p50']:.0f} / {by[m, c]['p95']:.0f}"
                 if (m, c) in by else "- | -" for m in modes]
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    lines += ["", f"Errors: {sum(r['errors'] for r in rows)}. Measured {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC on {machine()}; workers x threads: "
              + ", ".join(sorted({f"{r['mode']} {r['workers']} x {32 if r['mode'] == 'throughput' else 2}"
                                  for r in rows})) + "."]
    markdown = "\n".join(lines)
    print(markdown)
    if not args.no_write:
        write_section(markdown, BEGIN, END)


if __name__ == "__main__":
    main()
