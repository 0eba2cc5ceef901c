"""CPU per full check on one core: generated captures and the shared real documents, this checkout against another.

    OMP_THREAD_LIMIT=1 PYTHONPATH=$PWD .venv/bin/python bench/bench_check_cpu.py [--root OTHER_CHECKOUT] \
        [--generated 30] [--seed 481000] [--rounds 2] [--no-real] [--json OUT] [--write-docs]

What a bank's check costs: the whole ``Pipeline.check`` with the holder's record (as ``docauth eval real`` runs
it), realtime mode, every model on one thread. Each checkout's pipeline runs in its own process, loaded and warmed
once; every image is checked by both in turn (alternating which goes first), ``--rounds`` times, and each image
keeps its least CPU (user + system of the process and its face child), which is what an uncontended core needs.
The machine is shared, so wall time is not used. Decisions and reasons are compared between the checkouts.
Real documents (``../shared/data``) are evaluation material: measured here, never tuned on.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
from pathlib import Path

import paired
from doc_section import cpu_name

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
SETS = ("generated", "real-docs", "mrz-specimens")


# -- one checkout's process -----------------------------------------------------------------------
def _cases(generated: int, seed: int, real: bool) -> dict[str, object]:
    from docauth.training.real import generated_cases, real_docs_cases, specimen_cases

    cases = list(generated_cases(generated, seed))
    if real and (SHARED / "real-docs").is_dir():
        cases += real_docs_cases(SHARED / "real-docs")
    if real and (SHARED / "mrz-specimens").is_dir():
        cases += specimen_cases(SHARED / "mrz-specimens")
    return {f"{case.source}:{case.file}": case for case in cases}


def serve(generated: int, seed: int, real: bool) -> None:
    """Read case keys (JSON lines) on stdin, check each, print its CPU and answer as one JSON line."""
    import psutil

    from docauth.config import Settings
    from docauth.errors import DocauthError
    from docauth.pipeline import Pipeline

    cases = _cases(generated, seed, real)
    pipeline = Pipeline.load(Settings.load(data_dir=tempfile.mkdtemp(), mode="realtime"))
    pipeline.warmup()
    me = psutil.Process()

    def cpu_ms() -> float:
        times = [me.cpu_times(), *(child.cpu_times() for child in me.children(recursive=True))]
        return sum(t.user + t.system for t in times) * 1000

    print(json.dumps({"ready": True, "keys": list(cases)}), flush=True)
    for line in sys.stdin:
        case = cases[json.loads(line)]
        try:
            image = case.load()
        except DocauthError as exc:
            print(json.dumps({"error": exc.message}), flush=True)
            continue
        before = cpu_ms()
        result = pipeline.check(image, claimed=dict(case.record) if case.record else None)
        cpu = cpu_ms() - before
        stages = {name: round(ms, 1) for name, ms in (result.timings_ms or {}).items()}
        print(json.dumps({"cpu_ms": cpu, "decision": result.decision, "reasons": sorted(result.reason_codes),
                          "stages_ms": stages}), flush=True)


# -- the comparison -----------------------------------------------------------------------------------
def _summary(rows: dict[str, dict[str, dict]], names: list[str]) -> list[dict]:
    out = []
    for group in SETS:
        keys = [key for key in rows if key.startswith(group + ":") and all("cpu_ms" in rows[key][n] for n in names)]
        if not keys:
            continue
        for name in names:
            cpu = [rows[key][name]["cpu_ms"] for key in keys]
            out.append({"set": group, "build": name, "images": len(keys), "median": statistics.median(cpu),
                        "p95": paired.p95(cpu), "mean": statistics.mean(cpu)})
    return out


def _table(summary: list[dict], names: list[str]) -> str:
    head = "| set | images | " + " | ".join(f"{n} median / p95 / mean" for n in names)
    lines = [head + (" | ratio of medians |" if len(names) == 2 else " |"),
             "|---|---:|" + "---:|" * len(names) + ("---:|" if len(names) == 2 else "")]
    for group in SETS:
        mine = {row["build"]: row for row in summary if row["set"] == group}
        if not mine:
            continue
        cells = [f"{mine[n]['median']:.0f} / {mine[n]['p95']:.0f} / {mine[n]['mean']:.0f}" for n in names]
        ratio = [f"{mine[names[1]]['median'] / mine[names[0]]['median']:.2f}"] if len(names) == 2 else []
        lines.append(f"| {group} | {mine[names[0]]['images']} | " + " | ".join(cells + ratio) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=None, help="another checkout, measured in turn (the baseline)")
    ap.add_argument("--generated", type=int, default=30, help="generated captures (card fronts, backs, pages)")
    ap.add_argument("--seed", type=int, default=481000)
    ap.add_argument("--rounds", type=int, default=2, help="checks of every image by each checkout")
    ap.add_argument("--no-real", action="store_true", help="generated captures only")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--write-docs", action="store_true", help="rewrite the section of docs/benchmarks.md")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    options = ["--generated", str(args.generated), "--seed", str(args.seed)] + (["--no-real"] if args.no_real else [])
    if args.serve:
        serve(args.generated, args.seed, not args.no_real)
        return
    roots = {"this": ROOT} if args.root is None else {"base": args.root.resolve(), "this": ROOT}
    procs = {name: paired.start(__file__, root, *options) for name, root in roots.items()}
    names = list(procs)
    keys = procs[names[0]].ready["keys"]
    rows: dict[str, dict[str, dict]] = {}
    n = 0
    for round_ in range(args.rounds):
        for key in keys:
            out = paired.ask_in_turn(procs, key, n)
            n += 1
            for name, reply in out.items():
                kept = rows.setdefault(key, {}).get(name)
                if kept is None or reply.get("cpu_ms", 0) < kept.get("cpu_ms", 0):
                    rows[key][name] = reply
            if round_ == 0:
                print(key, " | ".join(f"{name} {r.get('cpu_ms', 0):.0f} ms {r.get('decision')}"
                                      for name, r in out.items()), flush=True)
    paired.stop(procs)
    summary = _summary(rows, names)
    table = _table(summary, names)
    differ = [key for key, out in rows.items() if len(names) == 2
              and (out[names[0]].get("decision"), out[names[0]].get("reasons"))
              != (out[names[1]].get("decision"), out[names[1]].get("reasons"))]
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cpu = cpu_name()
    note = (f"Least CPU ms of {args.rounds} rounds a check, whole check with the holder's record, realtime mode, "
            f"one thread; generated: {args.generated} captures of seed {args.seed}. {when}, {cpu}. "
            f"Answers that differ between the builds: {len(differ) if len(names) == 2 else '-'}.")
    print("\n" + table + "\n\n" + note)
    if differ:
        print("differing answers:", differ)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary, "differ": differ}, indent=1))
    if args.write_docs:
        from doc_section import write_section

        write_section("## CPU per full check, one core (`bench/bench_check_cpu.py`)\n\n" + table + "\n\n"
                      + note + " Bar (issue 30): median <= 150 ms.", "<!-- check_cpu:begin -->",
                      "<!-- check_cpu:end -->")


if __name__ == "__main__":
    main()
