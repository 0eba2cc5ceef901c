"""Service throughput: checks/s at concurrency 1, 4 and 16, realtime vs throughput mode (loopback only).

    nice -n 10 .venv/bin/python bench/bench_service.py [--requests 32] [--rounds 2] [--root ../main] [--no-write]

For each mode it starts the real ``docauth serve`` (gunicorn, default workers
for the mode, shipped models; one temporary data dir for the run, so the
runtime profile tuned at the first start serves every later one), enrols the
test person, sends a fixed number of full checks (phone-style card photos of
that person, generated once) at each concurrency, and stops the server. The
modes alternate ``--rounds`` times (the host is shared: a ratio within one run
is the number to trust); ``--root`` adds the same modes served from another
checkout (e.g. main before a change). Besides checks/s it records the CPU
seconds the server's processes (workers, face children) spent per check.
Every loop is bounded in count and time. Results go to the "Service" section
of docs/benchmarks.md between the ``service`` markers.
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

import numpy as np  # noqa: E402
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

    def __init__(self, args: list[str], data_dir: Path, env_extra: dict | None = None, root: Path = ROOT,
                 log_name: str = "server.log"):
        from pipeline_support import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, DOCAUTH_DATA_DIR=str(data_dir), OMP_THREAD_LIMIT="1",
                        TF_CPP_MIN_LOG_LEVEL="2", DOCAUTH_RATE_LIMIT_PER_MINUTE="0", PYTHONPATH=str(root),
                        **(env_extra or {}))
        key = subprocess.run([str(DOCAUTH), "keys", "create", "--name", "bench"], env=self.env,
                             capture_output=True, text=True, check=True)
        self.key = key.stdout.strip().splitlines()[-1]
        self.headers = {"Authorization": "Bearer " + self.key}
        self.log_path = data_dir / log_name
        self.log = open(self.log_path, "w")
        self.started = time.monotonic()
        # Started in its checkout's folder: a face process started with plain ``python -m`` looks in the working
        # folder first, and must find the checkout under test there, not the one the bench runs from.
        self.proc = subprocess.Popen([str(DOCAUTH), *args, "--port", str(self.port)], env=self.env, cwd=str(root),
                                     stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.time_to_ready = None

    def wait_ready(self, timeout: float = 900) -> float:
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

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server's processes have spent so far: master, workers, face children."""
        import psutil

        master = psutil.Process(self.proc.pid)
        total = 0.0
        for p in [master, *master.children(recursive=True)]:
            try:
                t = p.cpu_times()
            except psutil.NoSuchProcess:
                continue
            total += t.user + t.system
        return total

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(30)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()


def run_load(server: Server, images: list[bytes], person_id: int, concurrency: int, n_requests: int) -> dict:
    jobs = [images[i % len(images)] for i in range(n_requests)]
    cpu0, load0 = server.cpu_s(), os.getloadavg()[0]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(lambda img: server.check(img, person_id), jobs))
    wall = time.perf_counter() - t0
    cpu = server.cpu_s() - cpu0
    latencies = [r[0] * 1000 for r in results if "decision" in r[1]]
    errors = sum(1 for r in results if "decision" not in r[1])
    decisions = {}
    for _, body in results:
        if "decision" in body:
            decisions[body["decision"]] = decisions.get(body["decision"], 0) + 1
    return {"concurrency": concurrency, "requests": n_requests, "errors": errors, "wall_s": wall,
            "checks_per_s": len(latencies) / wall, "p50": percentile(latencies, 50),
            "p95": percentile(latencies, 95), "decisions": decisions,
            "cpu_ms_per_check": cpu * 1000 / max(1, len(latencies)), "cores_busy": cpu / wall,
            "load": (load0 + os.getloadavg()[0]) / 2}


def machine() -> str:
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


def checkout_name(root: Path) -> str:
    """The short commit of a checkout (its folder's name when it is none)."""
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return out.stdout.strip() or root.resolve().name


def variant_env(entry: str) -> tuple[str, dict]:
    """``throughput+DOCAUTH_RUNNING_CHECKS=1`` -> ("throughput", {"DOCAUTH_RUNNING_CHECKS": "1"})."""
    mode, *pairs = entry.split("+")
    return mode, dict(pair.split("=", 1) for pair in pairs)


def serve_and_load(label: str, root: Path, data_dir: Path, images, concurrency: list[int], n_requests: int,
                   index: int, enrolled: dict) -> list[dict]:
    mode, env = variant_env(label.split("@")[0])
    server = Server(["serve", "--mode", mode], data_dir, env_extra=env, root=root, log_name=f"server-{index}.log")
    rows = []
    try:
        server.wait_ready()
        workers = server.log_path.read_text().count("Booting worker")
        server.wait_all_workers_ready(workers)
        if "id" not in enrolled:  # once per data dir: enrolled again, the person would be their own duplicate
            enrolled["id"] = server.enrol()
        pid = enrolled["id"]
        for img in images[:2 * workers]:
            server.check(img, pid)  # each worker warm on real input
        for c in concurrency:
            row = run_load(server, images, pid, c, n_requests)
            row.update(label=label, workers=workers, time_to_ready=server.time_to_ready)
            rows.append(row)
            print(f"{label:24s} c={c:<3d} {row['checks_per_s']:.2f} checks/s p50 {row['p50']:.0f} ms "
                  f"p95 {row['p95']:.0f} ms cpu {row['cpu_ms_per_check']:.0f} ms/check "
                  f"({row['cores_busy']:.2f} cores) load {row['load']:.1f} errors {row['errors']} "
                  f"{row['decisions']}", flush=True)
    finally:
        server.stop()
    return rows


def pooled(rows: list[dict]) -> dict:
    checks = sum(r["requests"] - r["errors"] for r in rows)
    wall = sum(r["wall_s"] for r in rows)
    return {"checks_per_s": checks / wall, "p50": float(np.median([r["p50"] for r in rows])),
            "p95": float(np.median([r["p95"] for r in rows])),
            "cpu": sum(r["cpu_ms_per_check"] * (r["requests"] - r["errors"]) for r in rows) / max(1, checks)}


def section(rows: list[dict], order: list[str], concurrency: list[int], n_requests: int, rounds: int) -> list[str]:
    first = order[0]
    lines = [
        "## Service: throughput by mode (`bench/bench_service.py`)",
        "",
        f"{n_requests} full checks a level against `docauth serve`, modes alternating "
        f"{rounds} times in one run. Cells: checks/s (p95 ms); ratio: median of rounds; CPU: server processes' "
        "ms per check.",
        "",
        "| concurrency | " + " | ".join(order) + "".join(f" | {m} / {first}" for m in order[1:])
        + " | CPU " + " / ".join(order) + " |",
        "|---:|" + "---:|" * (2 * len(order)),
    ]
    for c in concurrency:
        cells, ratios, cpu = [], [], []
        base = [r for r in rows if r["label"] == first and r["concurrency"] == c]
        for m in order:
            mine = [r for r in rows if r["label"] == m and r["concurrency"] == c]
            p = pooled(mine)
            cells.append(f"{p['checks_per_s']:.2f} ({p['p95']:.0f})")
            cpu.append(f"{p['cpu']:.0f}")
            if m != first:
                ratio = np.median([a["checks_per_s"] / b["checks_per_s"] for a, b in zip(mine, base)])
                ratios.append(f"{ratio:.2f}x")
        lines.append(f"| {c} | " + " | ".join(cells + ratios + [" / ".join(cpu)]) + " |")
    bar = ""
    if "throughput" in order and first == "realtime" and 16 in concurrency:
        fast = [r for r in rows if r["label"] == "throughput" and r["concurrency"] == 16]
        slow = [r for r in rows if r["label"] == first and r["concurrency"] == 16]
        ratio = np.median([a["checks_per_s"] / b["checks_per_s"] for a, b in zip(fast, slow)])
        met = ratio >= 1.5 and pooled(fast)["checks_per_s"] >= 10
        bar = f" Bar at 16: throughput >= 1.5x realtime and >= 10 checks/s: {'met' if met else 'not met'}."
    workers = ", ".join(f"{m} {next(r['workers'] for r in rows if r['label'] == m)}" for m in order)
    loads = [r["load"] for r in rows]
    lines += ["", f"Errors: {sum(r['errors'] for r in rows)}. {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, "
              f"{machine()}, load {min(loads):.0f}-{max(loads):.0f}. Workers: {workers}.{bar}"]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=32, help="checks per concurrency level")
    ap.add_argument("--images", type=int, default=8)
    ap.add_argument("--concurrency", default="1,4,16")
    ap.add_argument("--modes", default="realtime,throughput",
                    help="served in this order each round; MODE+DOCAUTH_X=V sets a variable for that server")
    ap.add_argument("--rounds", type=int, default=2, help="times the modes alternate")
    ap.add_argument("--root", type=Path, default=None, help="also serve modes from this checkout")
    ap.add_argument("--root-modes", default=None, help="the modes served from --root (default: --modes)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    import tempfile

    images = card_photos(args.images)
    concurrency = [int(x) for x in args.concurrency.split(",")]
    labels = [(m, ROOT) for m in args.modes.split(",")]
    if args.root is not None:
        labels += [(f"{m}@{checkout_name(args.root)}", args.root.resolve())
                   for m in (args.root_modes or args.modes).split(",")]
    rows, enrolled = [], {}
    with tempfile.TemporaryDirectory(prefix="bench-service-") as tmp:
        index = 0
        for _ in range(args.rounds):
            for label, root in labels:
                rows += serve_and_load(label, root, Path(tmp), images, concurrency, args.requests, index, enrolled)
                index += 1
    order = [label for label, _ in labels]
    lines = section(rows, order, concurrency, args.requests, args.rounds)
    markdown = "\n".join(lines)
    print(markdown)
    if not args.no_write:
        write_section(markdown, BEGIN, END)


if __name__ == "__main__":
    main()
