"""1:N face search latency over 100,000 and 1,000,000 random templates.

    nice -n 10 .venv/bin/python bench/bench_face_index.py [--sizes 100000 1000000] [--queries 50] [--no-write]

Measures, in one run: building the index, the median (and p95) latency of one
``FaceIndex.search`` (k=5), the same with ``max_distance``, a naive float64
``np.linalg.norm(X - q)`` scan as the baseline ratio, enrolment of one template
and erasure of one person. Writes the matching section of docs/benchmarks.md
(between the ``matching`` markers) with the machine and the date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from docauth.store.index import FaceIndex  # noqa: E402

BEGIN, END = "<!-- matching:begin -->", "<!-- matching:end -->"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}"


def timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def bench_size(n: int, queries: int, rng: np.random.Generator) -> dict:
    # dlib encodings: 128 values of roughly +-0.1, norms near 0.9-1.0.
    vectors = rng.normal(0, 0.09, size=(n, 128)).astype(np.float32)
    person_ids = np.arange(n, dtype=np.int64) // 2  # two templates per person
    template_ids = np.arange(n, dtype=np.int64)
    start = time.perf_counter()
    index = FaceIndex(capacity=n + 16)
    index.add_many(template_ids, person_ids, vectors)
    build_s = time.perf_counter() - start
    qs = [vectors[rng.integers(n)] + rng.normal(0, 0.02, 128).astype(np.float32) for _ in range(queries)]
    it = iter(qs * 3)
    index.search(qs[0])  # warm-up
    search = timed(lambda: index.search(next(it), k=5), queries)
    bounded = timed(lambda: index.search(next(it), k=5, max_distance=0.5), queries)
    few = max(5, queries // 5)
    it_naive = iter(qs)
    naive = timed(lambda: np.argsort(np.linalg.norm(vectors.astype(np.float64) - next(it_naive).astype(np.float64), axis=1))[:5], few)
    next_id = [n]

    def enrol():
        index.add(next_id[0], 10**9 + next_id[0], rng.normal(0, 0.09, 128))
        next_id[0] += 1

    add = timed(enrol, 20)
    erase_ids = iter(rng.integers(0, n // 2, size=20).tolist())
    erase = timed(lambda: index.remove_person(next(erase_ids)), 20)
    return {
        "n": n,
        "build_s": build_s,
        "search_median_ms": statistics.median(search),
        "search_p95_ms": float(np.percentile(search, 95)),
        "bounded_median_ms": statistics.median(bounded),
        "naive_median_ms": statistics.median(naive),
        "add_median_ms": statistics.median(add),
        "erase_median_ms": statistics.median(erase),
        "memory_mb": n * 128 * 4 / 2**20,
    }


def markdown(results: list[dict], queries: int) -> str:
    lines = [
        BEGIN,
        "## Matching: 1:N face search (`bench/bench_face_index.py`)",
        "",
        f"Search (k=5, {queries} queries), enrolment and erasure in a face index of random 128-d templates (two "
        "per person), against a naive float64 numpy scan.",
        "",
        "| templates | matrix | build | search median (p95) | naive scan | enrol one | erase one person |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['n']:,} | {r['memory_mb']:.0f} MB | {r['build_s']:.2f} s | **{r['search_median_ms']:.1f} ms** "
            f"({r['search_p95_ms']:.1f}) | {r['naive_median_ms']:.1f} ms | {r['add_median_ms']:.3f} ms | "
            f"{r['erase_median_ms']:.2f} ms |"
        )
    lines += [
        "",
        f"Measured {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC on {machine()}.",
        END,
    ]
    return "\n".join(lines)


def write_section(section: str, path: Path) -> None:
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(4)
    results = []
    for n in args.sizes:
        r = bench_size(n, args.queries, rng)
        print(f"{n:>9,} templates: search median {r['search_median_ms']:.2f} ms (p95 {r['search_p95_ms']:.2f}), "
              f"naive {r['naive_median_ms']:.1f} ms, build {r['build_s']:.2f} s", flush=True)  # fmt: skip
        results.append(r)
    section = markdown(results, args.queries)
    print(section)
    if not args.no_write:
        write_section(section, ROOT / "docs" / "benchmarks.md")


if __name__ == "__main__":
    main()
