#!/usr/bin/env python
"""Side on the real sets: the side model alone, `docauth classify` (model + the zone read first) and the check.

    nice -n 10 .venv/bin/python bench/side_real.py [--models-dir DIR] [--no-check] [--output FILE]

Real images are for evaluation only (never training, never tuning): run this once per model or rule change and
record the numbers (docs/training.md). Sets: ``real-docs/`` (labels.csv ``side``) and ``mrz-specimens/``
(truth.csv ``side``); rows whose side is ``both`` (front and back on one sheet) are counted apart, since no
single side is right for them. The check is run without faces, text or store: its side does not depend on them.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SIDES = ("front", "back", "open")


def _rows(shared: Path) -> dict[str, list[tuple[Path, str]]]:
    sets = {}
    docs = shared / "real-docs"
    if (docs / "labels.csv").is_file():
        with open(docs / "labels.csv", newline="") as fh:
            sets["real-docs"] = [(docs / r["file"], r["side"]) for r in csv.DictReader(fh)]
    spec = shared / "mrz-specimens"
    if (spec / "truth.csv").is_file():
        with open(spec / "truth.csv", newline="") as fh:
            sets["mrz-specimens"] = [(spec / r["file"], r["side"]) for r in csv.DictReader(fh)]
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", type=Path, default=None)
    parser.add_argument("--no-check", action="store_true", help="Skip the full check (the slowest part).")
    parser.add_argument("--output", type=Path, default=None, help="Write the per-image rows and totals here (JSON).")
    args = parser.parse_args()

    from docauth.classifiers import DocumentClassifier
    from docauth.config import shared_data_dir
    from docauth.imageio import load_image
    from docauth.ocr.reader import DocumentReader
    from docauth.pipeline import Pipeline

    shared = shared_data_dir()
    if shared is None:
        sys.exit("../shared/data is absent")
    clf = DocumentClassifier.load(models_dir=args.models_dir)
    reader = DocumentReader.load(models_dir=args.models_dir, read_viz=not args.no_check)
    pipeline = Pipeline(classifier=clf, reader=reader, faces=None, text_matcher=None)
    report: dict = {"models_dir": str(args.models_dir or "models"), "sets": {}}
    for name, rows in _rows(shared).items():
        items = []
        for path, truth in rows:
            image = load_image(path)
            [classified] = pipeline.classify([image])
            item = {"file": path.name, "truth": truth, "document": classified.is_document,
                    "model": classified.side_model, "classify": classified.side, "source": classified.side_source}
            if not args.no_check:
                result = pipeline.check(image)
                item["check"] = result.document.get("side") if result.document.get("is_document") else None
                ocr = result.stages.get("ocr")
                mrz = (ocr.output or {}).get("mrz") if ocr is not None and ocr.status == "ok" else None
                item["check_zone"] = f"{mrz.get('type')} {'valid' if mrz.get('valid') else 'invalid'}" if mrz else None
            items.append(item)
            print(json.dumps(item), flush=True)
        sided = [it for it in items if it["truth"] in SIDES]
        totals = {"images": len(items), "documents": sum(it["document"] for it in items), "sided": len(sided),
                  "both": sum(it["truth"] == "both" for it in items)}
        for answer in ("model", "classify", "check"):
            if sided and answer in sided[0]:
                totals[answer] = sum(it[answer] == it["truth"] for it in sided)
        report["sets"][name] = {"totals": totals, "items": items}
        print(name, json.dumps(totals), flush=True)
    if args.output:
        args.output.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
