"""How often ``docauth check`` answers ``retake`` (ask for a new photo): on generated captures with each
defect (docauth.synth.defects), on clean generated captures, and on the real specimens in ../shared/data.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_retake.py --count 16 [--out bench/results/retake.json]

The whole check runs (a fresh temporary database, no person): the rate is of ``decision == "retake"``, and
each row also counts the checks that carry the defect's own reason. The thresholds in
docauth/pipeline/quality.py were fitted on generated captures only; the real specimens are evaluation.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REASON_OF = {"blur": "capture_blurred", "glare": "capture_glare", "cut_off": "capture_cut_off",
             "small": "capture_too_small", "dark": "capture_too_dark"}
DEFAULT_SEED = 480_000


def real_files(shared: Path) -> list[Path]:
    out = []
    for folder in (shared / "real-docs" / "images", shared / "mrz-specimens"):
        out += sorted(p for p in folder.rglob("*") if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".webp"))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=16, help="generated captures per defect (and clean)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"), help="the real data folder")
    parser.add_argument("--no-real", action="store_true", help="generated captures only")
    parser.add_argument("--out", default=None, help="write every check's reasons and scores here (JSON)")
    args = parser.parse_args()

    os.environ.setdefault("DOCAUTH_DATA_DIR", tempfile.mkdtemp(prefix="bench-retake-"))
    from docauth.config import Settings
    from docauth.imageio import load_image
    from docauth.pipeline import Pipeline
    from docauth.synth.defects import DEFECTS, defective_sample

    pipeline = Pipeline.load(Settings.load())
    rows: list[dict] = []

    def run(group: str, name: str, image, wanted: str | None) -> None:
        start = time.perf_counter()
        out = pipeline.check(image).export()
        codes = [r["code"] for r in out["reasons"]]
        quality = (out["stages"].get("quality") or {}).get("output") or {}
        rows.append({"group": group, "name": name, "decision": out["decision"], "reasons": codes,
                     "wanted_reason": wanted in codes if wanted else None, "quality": quality.get("scores"),
                     "ms": round((time.perf_counter() - start) * 1000)})
        print(f"{group:>10} {name[-50:]:<50} {out['decision']:<7} {','.join(codes)}", file=sys.stderr, flush=True)

    for defect in (None, *DEFECTS):
        for i in range(args.count):
            image, label = defective_sample(args.seed, i, defect)
            run(defect or "clean", f"{label['kind']}-{i}", image, REASON_OF.get(defect))
    shared = Path(args.shared)
    if not args.no_real and shared.is_dir():
        for path in real_files(shared):
            run("real", str(path.relative_to(shared)), load_image(path), None)

    print(table(rows))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


def table(rows: list[dict]) -> str:
    groups = collections.OrderedDict()
    for row in rows:
        groups.setdefault(row["group"], []).append(row)
    lines = ["| captures | n | retake | with the defect's own reason | other decisions |", "|---|---|---|---|---|"]
    for group, items in groups.items():
        n = len(items)
        retake = sum(r["decision"] == "retake" for r in items)
        own = sum(bool(r["wanted_reason"]) for r in items) if items[0]["wanted_reason"] is not None else None
        others = collections.Counter(r["decision"] for r in items if r["decision"] != "retake")
        label = {"clean": "generated, clean", "real": "real specimens (evaluation only)"}.get(group,
                                                                                         f"generated, {group}")
        lines.append(f"| {label} | {n} | {retake}/{n} ({100 * retake / n:.0f} %) | "
                     f"{'-' if own is None else f'{own}/{n}'} | "
                     f"{', '.join(f'{k} {v}' for k, v in sorted(others.items())) or '-'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
