"""The scanner's results as a CSV table beside the JSON lines: one row per input (per page for a PDF).

The JSON lines stay the record (appended and fsynced as the scan goes, the
file ``--resume`` reads); the table is written from them whole when the scan
ends, under a temporary name and then renamed, so it is never half a table.

>>> row = rows({"path": "/a.jpg", "decision": "review", "reasons": ["no_person"],
...             "result": {"document": {"is_document": True, "side": "open"}, "fields": {"surname": "=CMD()"}}})
>>> [(r["path"], r["decision"], r["reasons"], r["side"], r["surname"]) for r in row]
[('/a.jpg', 'review', 'no_person', 'open', "'=CMD()")]
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path
from typing import Iterator

FIELDS = ("surname", "given_names", "date_of_birth", "document_number", "nationality", "sex", "expiry_date",
          "issuing_state")
COLUMNS = ("path", "page", "decision", "reasons", "error", "error_message", "is_document", "side", "kind",
           "document_score", "mrz_score", "face_distance", *FIELDS)
# A spreadsheet runs a cell that starts with one of these as a formula; text read off a document must not.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def paths_for(out: str | os.PathLike, want_csv: bool) -> tuple[Path, Path | None]:
    """(JSON lines file, CSV file or None) for ``--out``: a name ending in .csv asks for the table there,
    with the JSON lines beside it (.jsonl).

    >>> paths_for("r.csv", False), paths_for("r.jsonl", True), paths_for("r.jsonl", False)
    ((PosixPath('r.jsonl'), PosixPath('r.csv')), (PosixPath('r.jsonl'), PosixPath('r.csv')), (PosixPath('r.jsonl'), None))
    """
    out = Path(out)
    if out.suffix.lower() == ".csv":
        return out.with_suffix(".jsonl"), out
    return out, (out.with_suffix(".csv") if want_csv else None)


def _cell(value):
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else value


def _result_row(path: str, page, record: dict, result: dict) -> dict:
    document = result.get("document") or {}
    scores = result.get("scores") or {}
    fields = result.get("fields") or {}
    error = record.get("error") or result.get("error") or {}
    row = {
        "path": path, "page": page, "decision": record.get("decision"),
        "reasons": ";".join(record.get("reasons") or []),
        "error": error.get("code"), "error_message": error.get("message"),
        "is_document": document.get("is_document"), "side": document.get("side"), "kind": document.get("kind"),
        "document_score": scores.get("document"), "mrz_score": scores.get("mrz"),
        "face_distance": scores.get("face_distance"),
        **{name: fields.get(name) for name in FIELDS},
    }
    return {k: _cell(v) for k, v in row.items()}


def rows(record: dict) -> list[dict]:
    """The table rows of one JSON line."""
    if "pages" in record:
        return [_result_row(record["path"], p.get("page"), p, p.get("result") or {}) for p in record["pages"]]
    return [_result_row(record.get("path"), None, record, record.get("result") or {})]


def _records(jsonl: Path) -> Iterator[dict]:
    with open(jsonl, encoding="utf-8") as fh:
        for line in fh:
            if line.endswith("\n") and line.strip():  # a torn last line is the journal's to recover, not a row
                yield json.loads(line)


def write_csv(jsonl: Path, out: Path) -> int:
    """Write the table of ``jsonl`` to ``out`` whole; returns the number of rows."""
    part = out.with_name(f".{out.name}.part")
    count = 0
    try:
        with open(part, "w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=COLUMNS)
            writer.writeheader()
            for record in _records(jsonl):
                for row in rows(record):
                    writer.writerow(row)
                    count += 1
        os.replace(part, out)
    finally:
        part.unlink(missing_ok=True)
    return count
