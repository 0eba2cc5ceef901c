#!/usr/bin/env python
"""Runtime benchmark of the classifiers: `docauth bench classify` with its JSON kept beside this script.

    nice -n 10 .venv/bin/python bench/classify.py [--seconds 1.5] [--images 64]

Run `docauth export` (ONNX files) and `docauth tune` (deployment profile) first,
so "chosen" is what the service would run. Results: bench/results/classify.json;
the summary goes into docs/benchmarks.md (runtime section) by hand.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from docauth.training.classifier_bench import format_markdown, format_report, run_classify_bench

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="document,side")
    parser.add_argument("--models-dir", default=None)
    parser.add_argument("--images", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--output", type=Path, default=HERE / "results" / "classify.json")
    parser.add_argument("--markdown", type=Path, default=None, help="Also write the docs section (markdown) here.")
    args = parser.parse_args()
    result = run_classify_bench(args.models.split(","), models_dir=args.models_dir, n_images=args.images,
                                seconds=args.seconds, progress=print)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1))
    print(format_report(result))
    print(f"written: {args.output}")
    if args.markdown:
        args.markdown.write_text(format_markdown(result) + "\n")
        print(f"written: {args.markdown}")


if __name__ == "__main__":
    main()
