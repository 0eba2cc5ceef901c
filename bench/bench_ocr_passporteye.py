"""PassportEye on the real MRZ specimens, for a side-by-side with docauth's reader.

PassportEye (MIT) is NOT a docauth dependency: it lives in its own virtualenv,
created by hand for this comparison only:

    python3 -m venv /tmp/peye-venv && /tmp/peye-venv/bin/pip install passporteye

This script skips cleanly (exit 0, a message) when that virtualenv is absent.
Exact match = the MRZ lines after PassportEye's own OCR clean-up equal
truth.csv, all lines; "false valid" = PassportEye says valid but the text differs.

    .venv/bin/python bench/bench_ocr_passporteye.py [--venv /tmp/peye-venv]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

DEFAULT_VENV = Path(os.environ.get("PASSPORTEYE_VENV", "/tmp/peye-venv"))

_RUNNER = r"""
import json, sys, time
from passporteye import read_mrz
from passporteye.mrz.text import MRZOCRCleaner
out = []
for path in json.loads(sys.argv[1]):
    t = time.perf_counter()
    try:
        m = read_mrz(path)
    except Exception as exc:  # third-party code on third-party images: record, do not stop
        out.append({"path": path, "lines": [], "valid": False, "error": repr(exc), "ms": 0})
        continue
    ms = (time.perf_counter() - t) * 1000
    if m is None:
        out.append({"path": path, "lines": [], "valid": False, "ms": ms})
        continue
    lines = MRZOCRCleaner.apply(m.aux.get("raw_text", ""))
    out.append({"path": path, "lines": list(lines), "valid": bool(m.valid), "ms": ms})
print(json.dumps(out))
"""


def run_passporteye(specimen_root: Path, venv: Path = DEFAULT_VENV) -> dict | None:
    """PassportEye's results on every specimen, or None when its virtualenv is absent."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from docauth.training.ocr_eval import load_truth

    python = venv / "bin" / "python"
    if not python.is_file():
        return None
    truth = load_truth(specimen_root)
    paths = [str(specimen_root / r["file"]) for r in truth]
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    proc = subprocess.run([str(python), "-c", _RUNNER, json.dumps(paths)], capture_output=True, text=True,
                          env=env, timeout=1800, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"PassportEye run failed: {proc.stderr[-2000:]}")
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    rows = []
    for r, res in zip(truth, results):
        exact = res["lines"] == r["lines"]
        rows.append({"file": r["file"], "exact": exact, "valid": res["valid"],
                     "false_valid": res["valid"] and not exact, "ms": round(res["ms"], 1)})
    n = len(rows)
    ms = sorted(r["ms"] for r in rows)
    return {
        "count": n,
        "mrz_exact": sum(r["exact"] for r in rows),
        "mrz_exact_rate": round(sum(r["exact"] for r in rows) / max(1, n), 4),
        "false_valid": sum(r["false_valid"] for r in rows),
        "median_ms": ms[n // 2] if ms else None,
        "rows": rows,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    ap.add_argument("--json-out", type=Path, default=None, help="also write the results here (bench_ocr.py reads it)")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from docauth.config import shared_data_dir

    shared = shared_data_dir()
    if shared is None or not (shared / "mrz-specimens" / "truth.csv").is_file():
        print("skip: ../shared/data/mrz-specimens is absent")
        return 0
    res = run_passporteye(shared / "mrz-specimens", args.venv)
    if res is None:
        print(f"skip: no PassportEye virtualenv at {args.venv} (see this script's docstring)")
        return 0
    if args.json_out:
        args.json_out.write_text(json.dumps(res, indent=1) + "\n")
    for r in res["rows"]:
        print(f"{'OK ' if r['exact'] else 'BAD'} {r['file']:<34} valid={r['valid']}")
    print(f"PassportEye: MRZ exact {res['mrz_exact']}/{res['count']} = {res['mrz_exact_rate']:.1%}, "
          f"false valid {res['false_valid']}, median {res['median_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
