"""Bounded load test of the HTTP service, on loopback only.

    nice -n 10 .venv/bin/python bench/load_test.py                     # start a server, measure, write docs
    .venv/bin/python bench/load_test.py --url http://127.0.0.1:8080 --key dak_... --no-write

What it measures, in one run (each part stops by itself: fixed request counts
and a wall-clock cap):

1. ``POST /v1/checks`` at concurrency 1, 8 and 32 for a fixed number of requests
   each: errors (anything but 200), latency p50/p95/p99 and throughput;
2. memory: resident set size of the server (master + workers) after 200 checks
   and after 2,000 checks; growth above 10% suggests a leak;
3. overload: a second server with ``DOCAUTH_MAX_INFLIGHT_CHECKS=1`` flooded with
   concurrent requests: refusals must be 503 + Retry-After, answered at once.

Without ``--url`` it starts ``docauth serve`` itself (as in tests/http_server.py:
temporary data dir, fresh API key, rate limit off so the limiter is not what is
measured) and stops it at the end. Writes the "Security and load" section of
docs/benchmarks.md between the ``load`` markers (skip with ``--no-write``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import io
import json
import os
import platform
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

BEGIN, END = "<!-- load:begin -->", "<!-- load:end -->"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


# -- request bodies -------------------------------------------------------------------------------
def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    boundary = "docauthload" + os.urandom(8).hex()
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, (filename, data, ctype) in files.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                  f"Content-Type: {ctype}\r\n\r\n".encode())
        out.write(data)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def scene_image() -> bytes:
    """A 640x480 photo-like scene that is not a document: the common rejection path."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[0:480, 0:640]
    img = np.stack([120 + 80 * np.sin(xx / 40 + c) * np.cos(yy / 55) for c in range(3)], -1)
    img += rng.normal(0, 10, img.shape)
    buf = io.BytesIO()
    Image.fromarray(np.clip(img, 0, 255).astype(np.uint8)).save(buf, format="JPEG", quality=85)
    return buf.getvalue()


def document_image() -> bytes:
    """A synthetic passport data page photographed phone-style (the full check path)."""
    from docauth.imageio import encode_jpeg
    from pipeline_support import ASTRONAUT_PERSON, astronaut_portrait, document_of

    return encode_jpeg(document_of(ASTRONAUT_PERSON, astronaut_portrait(), seed=11), quality=88)


# -- the client ----------------------------------------------------------------------------------
@dataclass
class LevelResult:
    concurrency: int
    requests: int
    ok: int = 0
    errors: dict = field(default_factory=dict)
    latencies_ms: list = field(default_factory=list, repr=False)
    decisions: dict = field(default_factory=dict)  # which path the checks took (accept/review/reject)
    wall_s: float = 0.0

    def export(self) -> dict:
        lat = sorted(self.latencies_ms)

        def pct(p):
            if not lat:
                return None
            return round(lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))], 1)

        return {"concurrency": self.concurrency, "requests": self.requests, "ok": self.ok,
                "errors": sum(self.errors.values()), "error_kinds": self.errors,
                "p50_ms": pct(50), "p95_ms": pct(95), "p99_ms": pct(99),
                "mean_ms": round(statistics.fmean(lat), 1) if lat else None,
                "throughput_rps": round(self.ok / self.wall_s, 2) if self.wall_s else None,
                "wall_s": round(self.wall_s, 2), "decisions": self.decisions}


class Client:
    """One keep-alive connection per thread; ``post`` returns (status, headers, body, seconds)."""

    def __init__(self, url: str, key: str, timeout: float = 60.0):
        parts = urlsplit(url)
        if parts.hostname not in LOOPBACK:
            raise SystemExit(f"refusing to load-test {parts.hostname}: loopback only")
        self.host, self.port, self.key, self.timeout = parts.hostname, parts.port or 80, key, timeout
        self._local = threading.local()

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        return conn

    def post(self, path: str, body: bytes, content_type: str):
        headers = {"Authorization": f"Bearer {self.key}", "Content-Type": content_type}
        start = time.perf_counter()
        for attempt in (1, 2):
            conn = self._conn()
            try:
                conn.request("POST", path, body=body, headers=headers)
                r = conn.getresponse()
                data = r.read()
                return r.status, dict(r.getheaders()), data, time.perf_counter() - start
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                self._local.conn = None  # the server closed an idle keep-alive: reconnect once
                if attempt == 2:
                    raise
            except OSError:
                conn.close()
                self._local.conn = None
                raise


def run_level(client: Client, path: str, body: bytes, ctype: str, *, concurrency: int, requests: int,
              max_seconds: float = 300.0) -> LevelResult:
    result = LevelResult(concurrency, requests)
    lock = threading.Lock()
    counter = iter(range(requests))
    deadline = time.monotonic() + max_seconds

    def worker():
        while time.monotonic() < deadline:
            with lock:
                if next(counter, None) is None:
                    return
            decision = None
            try:
                status, _, data, seconds = client.post(path, body, ctype)
                kind = None if status == 200 else f"http_{status}"
                if status == 200:
                    try:
                        decision = json.loads(data).get("decision")
                    except ValueError:
                        kind = "invalid_json"
            except OSError as exc:
                seconds, kind = None, type(exc).__name__
            with lock:
                if kind is None:
                    result.ok += 1
                    result.latencies_ms.append(seconds * 1000)
                    if decision:
                        result.decisions[decision] = result.decisions.get(decision, 0) + 1
                else:
                    result.errors[kind] = result.errors.get(kind, 0) + 1

    start = time.perf_counter()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(1.0, deadline - time.monotonic() + 60))
    result.wall_s = time.perf_counter() - start
    done = result.ok + sum(result.errors.values())
    if done < requests:
        result.errors["not_sent_before_deadline"] = requests - done
    return result


def memory_growth(client: Client, server, body: bytes, ctype: str, *, first: int = 200, total: int = 2000,
                  concurrency: int = 8) -> dict:
    """RSS of the server tree after ``first`` checks and after ``total`` checks."""
    warm = run_level(client, "/v1/checks", body, ctype, concurrency=concurrency, requests=first)
    time.sleep(0.5)
    rss_first = server.rss_bytes()
    rest = run_level(client, "/v1/checks", body, ctype, concurrency=concurrency, requests=total - first,
                     max_seconds=900)
    time.sleep(0.5)
    rss_total = server.rss_bytes()
    return {"checks_first": first, "checks_total": total, "rss_mb_after_first": round(rss_first / 2**20, 1),
            "rss_mb_after_total": round(rss_total / 2**20, 1),
            "growth_pct": round(100.0 * (rss_total - rss_first) / rss_first, 2),
            "errors": sum(warm.errors.values()) + sum(rest.errors.values()),
            "throughput_rps": rest.export()["throughput_rps"]}


def overload_probe(client: Client, body: bytes, ctype: str, *, concurrency: int = 24) -> dict:
    """Flood at once; count 200 vs 503 and check every 503 carries Retry-After and came fast."""
    def one(_):
        try:
            status, headers, data, seconds = client.post("/v1/checks", body, ctype)
            return status, headers.get("Retry-After"), seconds
        except OSError as exc:
            return type(exc).__name__, None, None

    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, range(concurrency)))
    refused = [r for r in results if r[0] == 503]
    return {"concurrency": concurrency, "ok": sum(1 for r in results if r[0] == 200), "refused_503": len(refused),
            "refused_with_retry_after": sum(1 for r in refused if r[1]),
            "slowest_refusal_ms": round(max((r[2] for r in refused), default=0) * 1000, 1),
            "other": [r[0] for r in results if r[0] not in (200, 503)]}


# -- report --------------------------------------------------------------------------------------
def machine() -> str:
    cpu = platform.processor() or "cpu"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}"


def section(report: dict) -> str:
    lines = [BEGIN, "## Security and load: HTTP service under load (`bench/load_test.py`)", "",
             "`POST /v1/checks` at rising concurrency, memory over many checks, a flooded server's refusals "
             "(p99 and decisions per level: the script's JSON lines).", "",
             "| concurrency | " + " | ".join(f"{name}: p50 / p95 ms | req/s" for name in report["levels"]) + " |",
             "|---:|" + "---:|---:|" * len(report["levels"])]
    by_level: dict[int, list[str]] = {}
    for levels in report["levels"].values():
        for lv in levels:
            by_level.setdefault(lv["concurrency"], []).append(
                f"{lv['p50_ms']} / {lv['p95_ms']} | {lv['throughput_rps']}")
    lines += [f"| {c} | " + " | ".join(cells) + " |" for c, cells in by_level.items()]
    errors = sum(lv["errors"] for levels in report["levels"].values() for lv in levels)
    notes = [f"Errors: {errors}."]
    mem = report.get("memory")
    if mem:
        notes.append(f"Memory (RSS, all processes): {mem['rss_mb_after_first']} MB after {mem['checks_first']} "
                     f"checks, {mem['rss_mb_after_total']} after {mem['checks_total']} (growth {mem['growth_pct']}%, "
                     f"limit 10%), {mem['errors']} errors.")
    ov = report.get("overload")
    if ov:
        notes.append(f"`DOCAUTH_MAX_INFLIGHT_CHECKS=1`, {ov['concurrency']} at once: {ov['ok']} served, "
                     f"{ov['refused_503']} refused 503 ({ov['refused_with_retry_after']} with Retry-After) within "
                     f"{ov['slowest_refusal_ms']} ms, other outcomes {ov['other'] or 'none'}.")
    notes.append("Tested: tests/test_reliability_load.py.")
    lines += ["", " ".join(notes), "",
              f"Measured {report['date']} on {machine()}; `docauth serve` {report['server']}, {report['models']} "
              "models.", END]
    return "\n".join(lines)


def write_section(text: str, path: Path) -> None:
    current = path.read_text() if path.exists() else "# Benchmarks\n"
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        current = head + text + tail
    else:
        current = current.rstrip("\n") + "\n\n" + text + "\n"
    path.write_text(current)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="An already running server (loopback only); default: start one.")
    ap.add_argument("--key", help="API key for --url.")
    ap.add_argument("--workers", type=int, default=None, help="Workers of the started server (default: by mode).")
    ap.add_argument("--concurrency", default="1,8,32")
    ap.add_argument("--requests", type=int, default=200, help="Requests per concurrency level (scene image).")
    ap.add_argument("--document-requests", type=int, default=48,
                    help="Requests per level with a synthetic document (full check); 0 to skip.")
    ap.add_argument("--memory", default="200,2000", help="FIRST,TOTAL checks for the memory check; '' to skip.")
    ap.add_argument("--no-overload", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)

    from http_server import DocauthServer, test_models_dir

    levels = [int(c) for c in args.concurrency.split(",") if c]
    report = {"date": f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC", "levels": {}, "images": {}}
    server = None
    if args.url:
        client = Client(args.url, args.key)
        report["server"] = f"at {args.url}"
        report["models"] = "as configured"
    else:
        server = DocauthServer(workers=args.workers or 2, threads=2,
                               env={"DOCAUTH_RATE_LIMIT_PER_MINUTE": 0}).start()
        client = Client(server.url, server.key)
        report["server"] = f"realtime mode, {server.workers} workers x {server.threads} threads"
        report["models"] = "shipped" if test_models_dir() == ROOT / "models" else "untrained stand-ins"
    try:
        bodies = {"non-document scene 640x480": scene_image()}
        if args.document_requests:
            bodies["synthetic passport photo"] = document_image()
        for name, image in bodies.items():
            body, ctype = multipart({}, {"image": ("upload.jpg", image, "image/jpeg")})
            n = args.requests if name.startswith("non-document") else args.document_requests
            report["images"][name] = f"{len(image) // 1024} kB JPEG"
            run_level(client, "/v1/checks", body, ctype, concurrency=2, requests=8)  # warm-up
            report["levels"][name] = []
            for c in levels:
                lv = run_level(client, "/v1/checks", body, ctype, concurrency=c, requests=n).export()
                report["levels"][name].append(lv)
                print(json.dumps({"image": name, **lv}), flush=True)
        if args.memory and server is not None:
            first, total = (int(x) for x in args.memory.split(","))
            body, ctype = multipart({}, {"image": ("upload.jpg", bodies["non-document scene 640x480"], "image/jpeg")})
            report["memory"] = memory_growth(client, server, body, ctype, first=first, total=total)
            print(json.dumps({"memory": report["memory"]}), flush=True)
    finally:
        if server is not None:
            server.stop()
    if not args.no_overload and not args.url:
        with DocauthServer(workers=1, threads=8, env={"DOCAUTH_RATE_LIMIT_PER_MINUTE": 0,
                                                      "DOCAUTH_MAX_INFLIGHT_CHECKS": 1}) as small:
            body, ctype = multipart({}, {"image": ("d.jpg", bodies.get("synthetic passport photo",
                                                                        bodies["non-document scene 640x480"]),
                                                   "image/jpeg")})
            report["overload"] = overload_probe(Client(small.url, small.key), body, ctype)
            print(json.dumps({"overload": report["overload"]}), flush=True)
    if not args.no_write:
        write_section(section(report), ROOT / "docs" / "benchmarks.md")
    errors = sum(lv["errors"] for levels_ in report["levels"].values() for lv in levels_)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
