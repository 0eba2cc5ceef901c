"""The face stage's CPU per full check and where it looked, this checkout against another, in one run.

    OMP_THREAD_LIMIT=1 PYTHONPATH=$PWD .venv/bin/python bench/bench_face_search.py --root /work/main \
        [--captures 20] [--seed 481000] [--real] [--mode realtime|throughput]

Each checkout's pipeline runs in its own process (its code by PYTHONPATH), loaded once and warmed up; every
capture is checked by both, in alternating order. Captures: ``generate_sample(seed, i, category)`` for i below
``--captures`` of ``td3_open`` and ``td1_front``; ``--real``: the shared real documents too (evaluation only).
Face CPU is the user+system time of the check's face work: in realtime mode the face processes' (children of
the checkout's process), in throughput mode the check thread's time inside the face stage. The machine is
shared, so wall time is not used.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import paired

ROOT = Path(__file__).resolve().parent.parent
REAL_DOCS = ROOT.parent / "shared" / "data" / "real-docs"
KINDS = ("td3_open", "td1_front")


# -- one checkout's process -----------------------------------------------------------------------
def serve(mode: str) -> None:
    """Read capture keys (JSON lines) on stdin, check each, print one JSON line per check."""
    import psutil

    from docauth.config import Settings
    from docauth.pipeline import Pipeline
    from docauth.synth import generate_sample
    from docauth.training.real import real_docs_cases

    real = {case.file: case for case in real_docs_cases(REAL_DOCS)} if REAL_DOCS.is_dir() else {}
    pipeline = Pipeline.load(Settings.load(data_dir=tempfile.mkdtemp(), mode=mode))
    pipeline.warmup()
    inside_face = [0.0]
    if mode != "realtime":  # the face stage runs in the check's thread: its thread time there
        encode = pipeline.faces.encode

        def timed_encode(*args, **kwargs):
            start = time.thread_time()
            try:
                return encode(*args, **kwargs)
            finally:
                inside_face[0] += time.thread_time() - start

        pipeline.faces.encode = timed_encode
    me = psutil.Process()

    def face_cpu() -> float:
        if mode != "realtime":
            return inside_face[0] * 1000
        times = [child.cpu_times() for child in me.children(recursive=True)]
        return sum(t.user + t.system for t in times) * 1000

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        key = json.loads(line)
        image = (generate_sample(key[1], key[2], category=key[3]).image if key[0] == "generated"
                 else real[key[1]].load())
        before = face_cpu()
        result = pipeline.check(image)
        cpu = face_cpu() - before
        stage = result.stages.get("face")
        face = (stage.output if stage is not None else None) or {}
        print(json.dumps({"cpu_ms": cpu, "checked": "searched" in face, "searched": face.get("searched"),
                          "found": bool(face.get("face_found")), "box": face.get("box"),
                          "not_found": "face_not_found" in result.reason_codes}), flush=True)


# -- the comparison -----------------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=False, help="another checkout, measured in turn (the baseline)")
    ap.add_argument("--captures", type=int, default=20, help="generated captures of each kind")
    ap.add_argument("--seed", type=int, default=481000)
    ap.add_argument("--real", action="store_true", help="the shared real documents too")
    ap.add_argument("--mode", choices=("realtime", "throughput"), default="realtime")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.mode)
        return
    keys = [["generated", args.seed, i, kind] for kind in KINDS for i in range(args.captures)]
    if args.real and REAL_DOCS.is_dir():
        with open(REAL_DOCS / "labels.csv", newline="") as fh:
            keys += [["real-docs", row["file"]] for row in csv.DictReader(fh)]
    roots = {"this": ROOT}
    if args.root is not None:
        roots = {"other": args.root.resolve(), "this": ROOT}
    procs = {name: paired.start(__file__, root, "--mode", args.mode) for name, root in roots.items()}
    rows = []
    for n, key in enumerate(keys):
        out = paired.ask_in_turn(procs, key, n)
        rows.append((key, out))
        print(key, " | ".join(f"{name} {r['cpu_ms']:.0f} ms {'found' if r['found'] else '-'} [{r['searched']}]"
                              for name, r in out.items()), flush=True)
    paired.stop(procs)
    print(f"\nface CPU per check ({args.mode}), checks that searched for a face:")
    print("| set | code | checks | median ms | p95 ms | mean ms | found | face_not_found | searched |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for group in [*KINDS, "real-docs"]:
        mine = [(k, o) for k, o in rows if (k[3] if k[0] == "generated" else k[0]) == group]
        for name in procs:
            runs = [o[name] for _k, o in mine if o[name]["checked"]]
            if not runs:
                continue
            cpu = [r["cpu_ms"] for r in runs]
            searched = Counter(r["searched"] for r in runs)
            print(f"| {group} | {name} | {len(runs)} | {statistics.median(cpu):.0f} | {paired.p95(cpu):.0f} | "
                  f"{statistics.mean(cpu):.0f} | {sum(r['found'] for r in runs)} | "
                  f"{sum(r['not_found'] for r in runs)} | "
                  + "; ".join(f"{s} x{c}" for s, c in searched.most_common()) + " |")
    if len(procs) == 2:
        other, this = procs
        changed = [k for k, o in rows if o[other]["found"] != o[this]["found"]]
        print(f"\ncaptures whose face was found by one checkout only: {changed or 'none'}")


if __name__ == "__main__":
    main()
