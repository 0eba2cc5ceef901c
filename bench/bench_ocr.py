"""OCR stage benchmark: speed on one core, accuracy on the real specimens, PassportEye side by side.

    nice -n 10 .venv/bin/python bench/bench_ocr.py [--images 30] [--write-docs]

Speed: the process is pinned to one CPU core (sched_setaffinity), TensorFlow
and Tesseract run single-threaded. "MRZ reading" = text direction + MRZ detection +
line recognition + parsing + locate + rectify of one synthetic card photo
(``td1_back``, phone style); "full OCR" adds the printed fields (Tesseract)
and the cross-check. Medians over ``--images`` captures (first call excluded:
it loads and warms the models).

Targets (issue 3): MRZ reading <= 150 ms median, full OCR <= 600 ms.
``--write-docs`` replaces the OCR section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

os.environ["OMP_THREAD_LIMIT"] = "1"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ["TF_NUM_INTRAOP_THREADS"] = "1"
os.environ["TF_NUM_INTEROP_THREADS"] = "1"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (Tesseract runs as a child process).

    On a shared machine wall time includes waiting for the core; CPU time is what one
    uncontended core would need.
    """
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=30)
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--passporteye-json", type=Path, default=None,
                    help="results saved by bench_ocr_passporteye.py --json-out (else PassportEye is run here)")
    ap.add_argument("--eval-json", type=Path, default=None,
                    help="JSON written by `docauth eval ocr --json-out`, added to the docs section")
    ap.add_argument("--fresh-eval-json", type=Path, default=None,
                    help="the same on a seed no change was tuned on; summarised beside the first")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)

    from docauth.config import shared_data_dir
    from docauth.ocr.evaluate import evaluate_specimens
    from docauth.ocr.reader import DocumentReader
    from docauth.synth import generate_sample
    from docauth.synth.seeds import TESTS

    reader = DocumentReader.load()
    mrz_only = DocumentReader(reader.mrz_reader)
    images = [generate_sample(TESTS.nth(77), i, category="td1_back").image for i in range(args.images + 1)]
    reader(images[0])  # warm-up: graph tracing
    mrz_ms, full_ms, stage = [], [], {"locate_ms": [], "mrz_ms": [], "viz_ms": []}
    mrz_cpu, full_cpu = [], []
    for img in images[1:]:
        t, c = time.perf_counter(), _cpu_seconds()
        mrz_only(img)
        mrz_ms.append((time.perf_counter() - t) * 1000)
        mrz_cpu.append((_cpu_seconds() - c) * 1000)
        t, c = time.perf_counter(), _cpu_seconds()
        res = reader(img)
        full_ms.append((time.perf_counter() - t) * 1000)
        full_cpu.append((_cpu_seconds() - c) * 1000)
        for k in stage:
            stage[k].append(res.timings_ms.get(k, 0.0))
    speed = {"mrz_median_ms": _median(mrz_ms), "full_median_ms": _median(full_ms),
             "mrz_cpu_ms": _median(mrz_cpu), "full_cpu_ms": _median(full_cpu),
             "load": os.getloadavg()[0], **{k: _median(v) for k, v in stage.items()}}
    print(f"MRZ reading, one card photo, 1 core: median {speed['mrz_median_ms']:.0f} ms wall, "
          f"{speed['mrz_cpu_ms']:.0f} ms CPU (target <= 150)")
    print(f"full OCR, one card photo, 1 core:    median {speed['full_median_ms']:.0f} ms wall, "
          f"{speed['full_cpu_ms']:.0f} ms CPU incl. Tesseract (target <= 600); load average {speed['load']:.1f}")
    print("  stages: " + ", ".join(f"{k} {speed[k]:.0f}" for k in stage))

    spec = peye = None
    shared = shared_data_dir()
    if shared is not None and (shared / "mrz-specimens" / "truth.csv").is_file():
        spec = evaluate_specimens(reader, shared / "mrz-specimens")
        print(f"docauth on {spec['count']} real specimens: MRZ exact {spec['mrz_exact']} "
              f"({spec['mrz_exact_rate']:.1%}), false valid {spec['false_valid']}, median {spec['median_ms']} ms")
        from bench_ocr_passporteye import run_passporteye

        if args.passporteye_json and args.passporteye_json.is_file():
            import json

            peye = json.loads(args.passporteye_json.read_text())
        else:
            peye = run_passporteye(shared / "mrz-specimens")
        if peye is None:
            print("PassportEye: virtualenv absent, comparison skipped")
        else:
            print(f"PassportEye on the same specimens: MRZ exact {peye['mrz_exact']} ({peye['mrz_exact_rate']:.1%}), "
                  f"false valid {peye['false_valid']}, median {peye['median_ms']} ms")
    if args.write_docs:
        write_docs(speed, spec, peye, len(mrz_ms), args.eval_json, args.fresh_eval_json)
    return 0


def _bars(speed, spec, eval_json) -> list[str]:
    def verdict(ok):
        return "met" if ok else "**not met**"

    out = [f"MRZ reading <= 150 ms: the MRZ stage {speed['mrz_ms']:.0f} ms ({verdict(speed['mrz_ms'] <= 150)}); "
           f"an MRZ-only call, which also locates and rectifies the document, {speed['mrz_cpu_ms']:.0f} ms "
           f"({verdict(speed['mrz_cpu_ms'] <= 150)})",
           f"full OCR <= 600 ms: {speed['full_cpu_ms']:.0f} ms ({verdict(speed['full_cpu_ms'] <= 600)})"]
    if spec is not None:
        out.append(f"real specimens MRZ exact >= 80 %: {spec['mrz_exact_rate']:.1%} "
                   f"({verdict(spec['mrz_exact_rate'] >= 0.8)}); reported valid but wrong: {spec['false_valid']} "
                   f"({verdict(spec['false_valid'] == 0)})")
    syn = _synthetic(eval_json)
    if syn:
        rate = float(syn["mrz_exact_rate"])
        short = "" if int(syn["count"]) >= 2000 else ", the issue asks for 2,000 captures"
        # two decimals: a rate 0.05 points under a bar (0.9495) must not print as the bar itself
        out.append(f"synthetic MRZ exact >= 97 %: {rate:.2%} ({verdict(rate >= 0.97)}; "
                   f"{syn['mrz_count']} MRZs in {syn['count']} captures{short})")
        f = syn["fields"]
        worst = min(float(f[k]["exact_rate"]) for k in ("surname", "date_of_birth", "document_number"))
        out.append("synthetic surname / date of birth / document number >= 95 %: "
                   + " / ".join(f"{float(f[k]['exact_rate']):.2%}" for k in
                                ("surname", "date_of_birth", "document_number"))
                   + f" ({verdict(worst >= 0.95)}; card fronts carry no MRZ, so their fields are the printed reader's"
                   + _fronts(syn) + ")")
    return out


def _synthetic(eval_json) -> dict:
    """The synthetic part of a `docauth eval ocr --json-out` file; {} without one."""
    if eval_json is None or not Path(eval_json).is_file():
        return {}
    import json

    return json.loads(Path(eval_json).read_text()).get("synthetic") or {}


def _fresh_summary(eval_json) -> str | None:
    """One line for an evaluation on a seed that no change was tuned on (the main seed's misses were read)."""
    syn = _synthetic(eval_json)
    if not syn:
        return None
    f = syn["fields"]
    return (f"On a seed no change was tuned on (`docauth eval ocr --count {syn['count']} --seed {syn['seed']}`): "
            f"MRZ exact {syn['mrz_exact_rate']} of {syn['mrz_count']} (TD1 {syn['per_format']['TD1']['exact_rate']}, "
            f"TD3 {syn['per_format']['TD3']['exact_rate']}), reported valid but wrong {syn['mrz_false_valid']}; "
            "surname / date of birth / document number "
            + " / ".join(str(f[k]["exact_rate"]) for k in ("surname", "date_of_birth", "document_number"))
            + _fronts(syn) + f". Misses listed in {_relative(eval_json)}.")


def _relative(path) -> str:
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _fronts(syn: dict) -> str:
    front = (syn.get("fields_by_category") or {}).get("td1_front")
    if not front:
        return ""
    return ": fronts " + " / ".join(f"{float(front[k]):.0%}" for k in ("surname", "date_of_birth", "document_number"))


def write_docs(speed, spec, peye, n_images, eval_json=None, fresh_eval_json=None) -> None:
    path = ROOT / "docs" / "benchmarks.md"
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    lines = [
        "<!-- ocr:begin -->",
        "## OCR (locate, MRZ, printed fields)",
        "",
        "Method: the MRZ is searched on the photo as taken: the text direction (0-180 degrees) from the "
        "directions between neighbouring glyphs, the image turned level, MRZ lines from connected-component text "
        "lines (2-3 long, aligned, fixed-pitch, equally long lines of one column, one block per paragraph; a line "
        "whose glyphs blur welded into a few blobs counts by its length), and when that reads nothing valid, once "
        "more along the direction of the welded runs themselves (their second moments: motion blur leaves too "
        "few single glyphs, or the glyphs' direction follows other text); each line cut into a 32x768 strip "
        "and read by "
        "a CTC line recogniser (`models/mrz_lines`, trained by `docauth train mrz` on rendered OCR-B MRZs plus "
        "synthetic captures, some strips coarsened and blurred), both ways up in one batch (when neither way "
        "passes its checks, a recogniser-confidence gap of 0.1 or more says which way is up, else the score); "
        "a block that fails its checks but looks like an MRZ is read again from its lines cut six other ways "
        "(higher, lower, shorter, taller, tighter, looser) and each line's seven reads voted character by "
        "character, the vote kept when every check digit passes on it; "
        "its per-character alternatives drive the check-digit "
        "correction in `docauth.ocr.mrz.parse_mrz` (a filler read inside a date is a lost digit the check digit "
        "restores; a check digit does not verify a field with two or more uncertain characters, nor a "
        "character whose runner-up it cannot tell apart (G/Q, H/R: values 10 apart); an issuing "
        "state or nationality that is no ICAO code is respelled from the recogniser's candidates, or as the "
        "document's other code one letter away, or whose two differing letters were read as filler; a code "
        "with letters the recogniser was unsure of is confirmed by the other code read surely where they agree, "
        "and respelled as it where they differ only in those letters; zeros in an "
        "empty optional field are filler; a line a filler or two short or long, as a frame-wise recogniser "
        "merges repeated '<', is refitted inside one of its runs of fillers when exactly one refit makes every "
        "check digit pass); a block read "
        "without an MRZ's structure, or with a score under 50 at a recogniser confidence under 0.8, is other "
        "text taken for an MRZ and dropped (a sharp MRZ failing its checks is kept: reported invalid); an "
        "uncertain name letter (names carry no check digit) is settled when exactly one spelling over the "
        "recogniser's top candidates is a word printed on the page, and MRZ names are preferred to printed "
        "ones that disagree. The document quad is the largest "
        "plausible quad whose four sides lie on image edges about as well as the best-supported one (mean "
        "support within 0.1; a side along the photo's frame counts as on an edge, but a quad on edges all round "
        "covering 60 % of such a quad is preferred to it; with no quad on edges the document is the whole "
        "photo), preferring those shaped like a document (TD1 card, TD2/TD3 page, and an open "
        "booklet only when an MRZ was read; within 10 %), among the contours of Canny edges and colour "
        "segments and the quads closed by pairs of straight (Hough) edges, on three Canny maps (thresholds from "
        "the median brightness, and from the 90th and 80th percentiles of the gradient magnitude: a pale card on "
        "a pale table keeps its border) (the outline model of "
        "`docauth.ocr.outline` when one is shipped; none is yet); an open booklet is cut at the fold to the page "
        "holding a TD3/MRV-A zone; when the MRZ is valid, the search (at 480 px instead of 640) stops at the "
        "first batch of candidates (per edge map its contours and colour segments, then the straight-line "
        "searches) holding one on edges within 6 % of the diagonal of where the MRZ puts the document (ICAO "
        "sizes around the zone), and without one the MRZ's placement is used; when no valid "
        "MRZ was read on the photo as taken, it is read again on the located document warped flat. A printed "
        "field agrees with the MRZ when the labelled value does, or when the MRZ's value is printed anywhere on "
        "the page (`found_in_print`). The quarter-turn comes from the MRZ or, without one, from the card "
        "outline's landscape shape (for a card side, or any outline in a TD1 card's proportions when the side is "
        "not known), label-above-value layout votes and Tesseract's orientation "
        "detector (its only use). "
        "Printed fields (`docauth/ocr/printed/`): the PP-OCRv4 mobile text detector on the upright document at "
        "640 px (DB regions; one several lines tall is cut again at higher thresholds), lines above the MRZ and "
        "wider than two glyphs read by the PP-OCRv4 recogniser (ONNX through the runtime layer, 48 px high, "
        "batched by width, Latin-script classes only, a dropped space put back from the glyph pitch); captions "
        "matched in about 25 languages (bilingual and numbered, fuzzily; the longest keyword decides), the value "
        "below or beside its caption; where an MRZ was read, its values are looked for among the value-sized "
        "lines, those whose length best fits first, four at a time, and the captions read (by their last 18 "
        "glyphs) only for a value not found; a TD1 back in one card's proportions is not read for print. A page "
        "without an MRZ that gives one field or none is read again on the whole photo and the other way up, and "
        "the read with more fields kept.",
        "",
        f"Measured {dt.date.today().isoformat()} on {_cpu_name()}, pinned to 1 core "
        f"(`nice -n 10 .venv/bin/python bench/bench_ocr.py --write-docs`; load average "
        f"{speed['load']:.1f} on 2 cores, see below).",
        "",
        "| measure | result | target |",
        "|---|---|---|",
        f"| MRZ reading of one card photo (median of {n_images}), CPU time | {speed['mrz_cpu_ms']:.0f} ms | <= 150 ms |",
        f"| full OCR of one card photo (median of {n_images}), CPU time incl. printed fields | "
        f"{speed['full_cpu_ms']:.0f} ms | <= 600 ms |",
        f"| same, wall time (load average {speed['load']:.1f} on 2 cores while measured) | "
        f"{speed['mrz_median_ms']:.0f} / {speed['full_median_ms']:.0f} ms | |",
        f"| of which locate+rectify / MRZ / printed fields | {speed['locate_ms']:.0f} / {speed['mrz_ms']:.0f} / "
        f"{speed['viz_ms']:.0f} ms | |",
    ]
    if spec is not None:
        lines += [
            "",
            f"Real specimens (`../shared/data/mrz-specimens`, {spec['count']} images), MRZ read exactly (all lines):",
            "",
            "| reader | MRZ exact | reported valid but wrong | median time |",
            "|---|---|---|---|",
            f"| docauth (CTC line recogniser + check-digit correction) | {spec['mrz_exact']}/{spec['count']} "
            f"({spec['mrz_exact_rate']:.1%}) | {spec['false_valid']} | {spec['median_ms']:.0f} ms |",
        ]
        if peye is not None:
            when = f", measured {peye['measured']}" if peye.get("measured") else ""
            lines.append(f"| PassportEye 2.2.2 (Tesseract, separate venv{when}) | {peye['mrz_exact']}/{peye['count']} "
                         f"({peye['mrz_exact_rate']:.1%}) | {peye['false_valid']} | {peye['median_ms']:.0f} ms |")
        else:
            lines.append("| PassportEye | not run (no /tmp/peye-venv) | | |")
        missed = [r["file"] for r in spec["rows"] if not r["exact"]]
        lines += ["", f"docauth misses: {', '.join(missed) if missed else 'none'}."]
        printed = spec.get("printed_fields")
        if printed:
            lines += ["", "Printed fields (`docauth/ocr/printed`) on the same specimens, against the fields of their true MRZ "
                      "(read = a value was given; exact = it equals the MRZ's): "
                      + "; ".join(f"{name.replace('_', ' ')} {p['exact']} exact of {p['read']} read "
                                  f"({p['specimens']} specimens)" for name, p in printed.items())
                      + ". The field bars are measured on generated captures only; on real layouts the printed "
                        "reader is far weaker, and where a valid MRZ exists the fields come from it."]
    syn = _synthetic(eval_json)
    if syn:
        lines += [
            "",
            f"Synthetic captures (`docauth eval ocr --count {syn['count']} --seed {syn['seed']}`, "
            f"docauth.synth phone photos and scans, td1_back / td3_open / td1_front in turn):",
            "",
            "| measure | exact-match rate | n |",
            "|---|---|---|",
            f"| MRZ, all lines | {syn['mrz_exact_rate']} | {syn['mrz_count']} |",
        ]
        lines += [f"| MRZ {k} | {v['exact_rate']} | {v['count']} |" for k, v in syn["per_format"].items()]
        lines += [f"| field {k} as reported (MRZ where it vouches for it, else printed) | {v['exact_rate']} | {v['count']} |"
                  for k, v in syn["fields"].items()]
        lines += [f"| printed only (VIZ) {k} | {v['exact_rate']} | {v['count']} |"
                  for k, v in syn["viz_fields"].items()]
        lines += [f"| MRZ reported valid but wrong | {syn['mrz_false_valid']} | {syn['mrz_count']} |",
                  f"| quarter-turn found | {syn['rotation_rate']} | {syn['count']} |"]
        by_category = syn.get("fields_by_category") or {}
        if by_category:
            lines += ["", "Final fields by category (backs and passport pages carry an MRZ; card fronts only print):",
                      "", "| category | surname | date of birth | document number |", "|---|---|---|---|"]
            lines += [f"| {cat} | {v.get('surname')} | {v.get('date_of_birth')} | {v.get('document_number')} |"
                      for cat, v in by_category.items()]
        if syn.get("median_ms") is not None:
            lines += ["", f"Median {syn['median_ms']:.0f} ms per capture; every miss is listed in "
                          f"{_relative(eval_json)}."]
    fresh = _fresh_summary(fresh_eval_json)
    if fresh:
        lines += ["", fresh]
    lines += ["", "Issue 3 bars, from the numbers above:", ""] + [f"- {b}" for b in _bars(speed, spec, eval_json)]
    lines.append("<!-- ocr:end -->")
    section = "\n".join(lines) + "\n"
    if "<!-- ocr:begin -->" in text:
        text = re.sub(r"<!-- ocr:begin -->.*?<!-- ocr:end -->\n?", section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    print(f"wrote the OCR section of {path}")


if __name__ == "__main__":
    sys.exit(main())
