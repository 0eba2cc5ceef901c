"""``docauth eval real``: every stage on real documents beside generated ones, in one table.

Each image goes through one full check (the check a bank runs), with the person's record taken from the
image's own labels, so a genuine customer is simulated: every reason the check raises that the document does
not deserve is a false alarm. The same run gives the side model's answer alone, the check's side, the MRZ
read, and the printed fields as read (before any MRZ value replaces them).

Real sets (``../shared/data``, evaluation only, never training): ``real-docs/`` (side, MRZ and printed-field
labels) and ``mrz-specimens/`` (side and MRZ; their printed fields are compared with the MRZ's). Generated:
fresh captures from one seed of the OCR evaluation range.
"""

from __future__ import annotations

import csv
import datetime as dt
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from docauth.config import Settings
from docauth.errors import DocauthError
from docauth.imageio import load_image
from docauth.ocr.mrz import parse_mrz
from docauth.pipeline import Pipeline, loaders
from docauth.store.db import Store
from docauth.synth import generate_sample
from docauth.training.ocr_eval import field_equal, load_truth

PRINTED_FIELDS = ("surname", "given_names", "date_of_birth", "document_number")
# Reasons a genuine document never deserves when its record is its own printed data.
ALWAYS_UNDESERVED = {
    "not_a_document", "side_unknown", "viz_mrz_mismatch", "name_mismatch", "dob_mismatch",
    "document_number_mismatch", "printed_name_mismatch", "printed_dob_mismatch",
    "printed_document_number_mismatch", "text_not_checked", "stage_failed", "duplicate_identity",
}
PORTRAIT_SIDES = ("front", "open", "both")
GENERATED_CATEGORIES = ("td1_front", "td1_back", "td3_open")


@dataclass
class Case:
    """One labelled image and what a genuine holder's record would say."""

    source: str
    file: str
    load: Callable[[], np.ndarray] = field(repr=False)
    side: str | None  # front / back / open / both
    mrz: list[str] | None = None
    mrz_valid: bool | None = None  # the printed check digits pass
    printed: dict = field(default_factory=dict)  # field -> value as printed ("" when not printed)
    record: dict = field(default_factory=dict)  # the person's record (claimed fields)
    expiry: dt.date | None = None


def _mrz_fields(lines: list[str]) -> dict:
    return parse_mrz(lines, correct=False).fields


def _record(printed: dict, mrz_lines: list[str] | None) -> tuple[dict, dt.date | None]:
    """The holder's record: the printed values where labelled, else what the zone encodes."""
    encoded = _mrz_fields(mrz_lines) if mrz_lines else {}
    record = {}
    for name in PRINTED_FIELDS:
        value = printed.get(name) or encoded.get(name)
        if value:
            record[name] = value
    expiry = encoded.get("expiry_date")
    return record, dt.date.fromisoformat(expiry) if expiry else None


def real_docs_cases(root: Path) -> list[Case]:
    cases = []
    with open(root / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            lines = row["mrz"].split("|") if row["mrz"] else None
            printed = {name: row[name].strip() for name in PRINTED_FIELDS}
            record, expiry = _record(printed, lines)
            path = root / row["file"]
            cases.append(Case("real-docs", row["file"], lambda p=path: load_image(p), row["side"], lines,
                              row["checkdigits"] == "valid" if lines else None, printed, record, expiry))
    return cases


def specimen_cases(root: Path) -> list[Case]:
    cases = []
    for row in load_truth(root):
        encoded = _mrz_fields(row["lines"])
        # No printed-field labels here: the zone's values stand in for them (names as the zone spells them).
        printed = {name: encoded.get(name) or "" for name in ("surname", "date_of_birth", "document_number")}
        record, expiry = _record(printed, row["lines"])
        path = root / row["file"]
        cases.append(Case("mrz-specimens", row["file"], lambda p=path: load_image(p), row["side"], row["lines"],
                          row["expect_valid"], printed, record, expiry))
    return cases


def shared_sources(shared: Path | None, names=("real-docs", "mrz-specimens")) -> dict[str, list[Case]]:
    """The real sets of ``names`` present under ``shared`` (``../shared/data``, or None where it is absent)."""
    found = {"real-docs": ("labels.csv", real_docs_cases), "mrz-specimens": ("truth.csv", specimen_cases)}
    return {name: found[name][1](shared / name) for name in names
            if shared is not None and (shared / name / found[name][0]).is_file()}


def evaluation_pipeline(data_dir: Path, **settings) -> tuple[Pipeline, CapturingReader]:
    """The full check as this evaluation runs it: the shipped models, no face process, a fresh store in
    ``data_dir`` (the caller closes ``pipeline.store``), the reader capturing each read."""
    loaded = Settings.load(data_dir=data_dir, face_process=False, **settings)
    store = Store(loaded.resolved_database_url)
    store.upgrade()
    reader = CapturingReader(loaders.load_reader(loaded))
    return Pipeline.load(loaded, store=store, reader=reader), reader


def generated_cases(count: int, seed: int) -> list[Case]:
    cases = []
    for i in range(count):
        category = GENERATED_CATEGORIES[i % len(GENERATED_CATEGORIES)]

        def load(i=i, category=category):
            return generate_sample(seed, i, category=category).image

        label = generate_sample(seed, i, category=category).label
        fields_ = label["fields"] or {}
        printed = {name: "" if label["side"] == "back" else (fields_.get(name) or "") for name in PRINTED_FIELDS}
        record = {name: fields_[name] for name in PRINTED_FIELDS if fields_.get(name)}
        expiry = dt.date.fromisoformat(fields_["expiry"]) if fields_.get("expiry") else None
        cases.append(Case("generated", label["file"], load, label["side"], list(label["mrz"] or []) or None,
                          True if label["mrz"] else None, printed, record, expiry))
    return cases


class CapturingReader:
    """The pipeline's reader, keeping its last result (the printed read is not part of the check's export)."""

    def __init__(self, reader):
        self.reader = reader
        self.last = None

    def find_zone(self, image, timings=None, *, side=None):
        return self.reader.find_zone(image, timings, side=side)

    def __call__(self, image, **kwargs):
        self.last = None
        self.last = self.reader(image, **kwargs)
        return self.last

    def warmup(self) -> None:
        self.reader.warmup()

    def models(self) -> list:
        return self.reader.models()


def _format_holds(lines: list[str]) -> bool:
    """Does the true zone hold the format ``mrz_invalid`` also judges: its dates are dates, its codes codes?

    >>> _format_holds(["I<UTO0000000000<<<<<<<<<<<<<<<", "000000000000000UTO<<<<<<<<<<<0",
    ...                "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"])
    False
    """
    return parse_mrz(lines, correct=False).structure_ok


def undeserved(case: Case, codes: list[str], today: dt.date) -> list[str]:
    """The reasons the check raised that this genuine document does not deserve."""
    out = [c for c in codes if c in ALWAYS_UNDESERVED]
    # A zone that passes its check digits and its format, or no zone at all on this side (other print taken for
    # one), is not invalid; a specimen's dummy zone (a month 00) fails its format whatever its digits say.
    if "mrz_invalid" in codes and ((case.mrz_valid and _format_holds(case.mrz)) or not case.mrz):
        out.append("mrz_invalid")
    if "mrz_not_found" in codes and case.mrz:
        out.append("mrz_not_found")
    if "expired" in codes and case.expiry is not None and case.expiry >= today:
        out.append("expired")
    # Generated portraits are drawings, which a face detector need not find.
    if "face_not_found" in codes and case.side in PORTRAIT_SIDES and case.source != "generated":
        out.append("face_not_found")
    return out


def run_case(pipeline, reader: CapturingReader, case: Case, today: dt.date) -> dict:
    row: dict = {"source": case.source, "file": case.file, "side": case.side, "has_mrz": bool(case.mrz)}
    try:
        image = case.load()
    except DocauthError as exc:
        row["error"] = exc.message
        return row
    start = time.perf_counter()
    result = pipeline.check(image, claimed=dict(case.record) if case.record else None)
    row["ms"] = round((time.perf_counter() - start) * 1000, 1)
    # What `docauth classify` and /v1/classify answer: the side model and the zone found on the photo.
    row["side_classify"] = pipeline.classify([image])[0].side
    classified = result.stages["classify"].output or {}
    codes = result.reason_codes
    ocr = reader.last if result.stages.get("ocr") and result.stages["ocr"].status == "ok" else None
    mrz = ocr.mrz if ocr is not None else None
    read_lines = list(mrz.lines) if mrz is not None else []
    viz = dict(ocr.viz) if ocr is not None else {}
    row.update({
        "is_document": bool(result.document.get("is_document")),
        "side_model": classified.get("side"),
        "side_check": result.document.get("side"),
        "mrz_read": "|".join(read_lines),
        "mrz_exact": bool(case.mrz) and read_lines == case.mrz,
        "mrz_valid": bool(mrz is not None and mrz.valid),
        "printed": {name: {"truth": case.printed.get(name), "read": viz.get(name),
                           "exact": field_equal(name, viz.get(name), case.printed.get(name))}
                    for name in PRINTED_FIELDS if case.printed.get(name)},
        "reasons": codes,
        "undeserved": undeserved(case, codes, today),
        "decision": result.decision,
    })
    return row


def summarise(rows: list[dict]) -> dict:
    """Counts per measure: (right, of how many)."""
    ok = [r for r in rows if "error" not in r]
    sided = [r for r in ok if r["side"] in ("front", "back", "open")]
    with_mrz = [r for r in ok if r["has_mrz"]]
    genuine_valid = [r for r in ok if r.get("mrz_exact") and r.get("mrz_valid")]
    out = {
        "images": len(rows),
        "unreadable": len(rows) - len(ok),
        "document": (sum(r["is_document"] for r in ok), len(ok)),
        "side_model": (sum(r["side_model"] == r["side"] for r in sided), len(sided)),
        "side_check": (sum(r["side_check"] == r["side"] for r in sided), len(sided)),
        "side_classify": (sum(r.get("side_classify") == r["side"] for r in sided), len(sided)),
        "mrz_exact": (sum(r["mrz_exact"] for r in with_mrz), len(with_mrz)),
        "mrz_false_valid": sum(r["mrz_valid"] and not r["mrz_exact"] for r in with_mrz),
        "viz_mrz_mismatch_on_valid": (sum("viz_mrz_mismatch" in r["reasons"] for r in genuine_valid),
                                      len(genuine_valid)),
        "genuine_without_false_alarm": (sum(not r["undeserved"] for r in ok), len(ok)),
        "accepted": (sum(r["decision"] == "accept" for r in ok), len(ok)),
        "false_alarms": _histogram(code for r in ok for code in r["undeserved"]),
        "median_ms": round(statistics.median(r["ms"] for r in ok), 1) if ok else None,
    }
    for name in PRINTED_FIELDS:
        judged = [r["printed"][name] for r in ok if name in r["printed"]]
        out[f"printed_{name}"] = (sum(p["exact"] for p in judged), len(judged))
    judged = [p for r in ok for name, p in r["printed"].items() if name != "given_names"]
    out["printed_three"] = (sum(p["exact"] for p in judged), len(judged))
    return out


def _histogram(codes: Iterator[str]) -> dict:
    counts: dict = {}
    for code in codes:
        counts[code] = counts.get(code, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def evaluate(pipeline, reader: CapturingReader, cases: list[Case], *, today: dt.date | None = None,
             progress: Callable[[int, int, dict], None] | None = None) -> list[dict]:
    today = today or dt.date.today()
    rows = []
    for i, case in enumerate(cases):
        rows.append(run_case(pipeline, reader, case, today))
        if progress is not None:
            progress(i + 1, len(cases), rows[-1])
    return rows


TABLE_ROWS = (
    ("document / not", "document"),
    ("side, the side model alone", "side_model"),
    ("side, `docauth classify` (the model and the zone)", "side_classify"),
    ("side, the check", "side_check"),
    ("MRZ read exactly", "mrz_exact"),
    ("MRZ reported valid but wrong", "mrz_false_valid"),
    ("printed surname exact", "printed_surname"),
    ("printed given names exact", "printed_given_names"),
    ("printed birth date exact", "printed_date_of_birth"),
    ("printed document number exact", "printed_document_number"),
    ("printed surname + birth date + number exact", "printed_three"),
    ("`viz_mrz_mismatch` on genuine documents with a valid MRZ read exactly", "viz_mrz_mismatch_on_valid"),
    ("genuine documents with no undeserved reason (full check, own record)", "genuine_without_false_alarm"),
    ("genuine documents accepted", "accepted"),
    ("median full check, ms", "median_ms"),
)


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, tuple):
        right, total = value
        return f"{right}/{total} ({right / total:.0%})" if total else "-"
    return str(value)


def table(summaries: dict[str, dict]) -> str:
    """One markdown table: a column per source."""
    names = list(summaries)
    lines = ["| measure | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for title, key in TABLE_ROWS:
        lines.append(f"| {title} | " + " | ".join(_cell(summaries[n].get(key)) for n in names) + " |")
    return "\n".join(lines)
