"""One chunk of inputs -> one record each: decode (PDF pages too), check as one classifier batch.

Runs wherever the pipeline is: the scanning process, a pool worker or a Ray actor, so every engine
writes the same lines.
"""

from __future__ import annotations

import importlib
import shutil
import subprocess
import tempfile
from pathlib import Path

from docauth.config import Settings
from docauth.errors import DocauthError, InvalidImage, UnsupportedMediaType
from docauth.imageio import decode_image, read_bytes, sniff_media_type
from docauth.pipeline import Pipeline
from docauth.pipeline.result import DECISIONS

PDF_DPI = 150
MAX_PDF_PAGES = 20


def error_record(path: str, exc: DocauthError) -> dict:
    return {"path": path, "error": exc.export()["error"]}


def _pdf_pages(data: bytes, settings: Settings) -> list:
    """Pages of a PDF as RGB arrays, rendered by poppler's pdftoppm (absent -> a clear error)."""
    exe = shutil.which("pdftoppm")
    if exe is None:
        raise UnsupportedMediaType("PDF input needs pdftoppm (Debian package poppler-utils)", code="pdf_unsupported")
    with tempfile.TemporaryDirectory(prefix="docauth-pdf-") as tmp:
        src = Path(tmp) / "in.pdf"
        src.write_bytes(data)
        proc = subprocess.run([exe, "-r", str(PDF_DPI), "-l", str(MAX_PDF_PAGES), "-png", str(src),
                               str(Path(tmp) / "page")], capture_output=True, timeout=120)
        if proc.returncode != 0:
            raise InvalidImage("the PDF cannot be rendered (corrupt or encrypted)", code="invalid_pdf")
        pages = sorted(Path(tmp).glob("page*.png"))
        if not pages:
            raise InvalidImage("the PDF has no pages", code="invalid_pdf")
        return [decode_image(p.read_bytes(), max_pixels=settings.max_image_pixels, min_side=settings.min_image_side,
                             max_aspect=settings.max_image_aspect).pixels for p in pages]


def _decision_of(exported: dict) -> dict:
    return {"decision": exported["decision"], "reasons": [r["code"] for r in exported["reasons"]]}


def scan_chunk(pipeline, paths: list[str], settings: Settings) -> list[dict]:
    """Records for ``paths`` (one each, in order). Unreadable inputs give ``{"path", "error"}``."""
    records: dict[str, dict] = {}
    images, owners = [], []  # owner: (path, page or None)
    pdf_pages: dict[str, int] = {}
    for path in paths:
        try:
            data = read_bytes(path)
            if sniff_media_type(data) == "application/pdf":
                pages = _pdf_pages(data, settings)
                pdf_pages[path] = len(pages)
                for i, pixels in enumerate(pages, start=1):
                    images.append(pixels)
                    owners.append((path, i))
            else:
                images.append(decode_image(data, max_pixels=settings.max_image_pixels,
                                           min_side=settings.min_image_side,
                                           max_aspect=settings.max_image_aspect).pixels)
                owners.append((path, None))
        except DocauthError as exc:
            records[path] = error_record(path, exc)
        except OSError as exc:  # e.g. a file vanished or is unreadable mid-scan
            records[path] = error_record(path, InvalidImage(f"cannot read the file: {exc.strerror}", code="unreadable_file"))
    results = _check_all(pipeline, images)
    for (path, page), outcome in zip(owners, results):
        if isinstance(outcome, DocauthError):
            if page is None:
                records[path] = error_record(path, outcome)
                continue
            exported = {"error": outcome.export()["error"]}
        else:
            exported = outcome.export()
        if page is None:
            records[path] = {"path": path, **_decision_of(exported), "result": exported}
        else:
            rec = records.setdefault(path, {"path": path, "pages": []})
            rec["pages"].append({"page": page, **(_decision_of(exported) if "decision" in exported else {}),
                                 "result": exported})
    for path, rec in records.items():
        if "pages" in rec:  # a PDF: its decision is the worst page's
            order = {decision: rank for rank, decision in enumerate(DECISIONS)}  # retake overrides all
            decisions = [p.get("decision") for p in rec["pages"] if p.get("decision")]
            rec["decision"] = max(decisions, key=order.get) if decisions else None
            rec["reasons"] = sorted({c for p in rec["pages"] for c in p.get("reasons", [])})
    return [records[p] for p in paths]


def _check_all(pipeline, images: list) -> list:
    if not images:
        return []
    try:
        return pipeline.check_many(images)
    except DocauthError:
        # One bad image must not cost its batch companions their results: redo one by one.
        out = []
        for image in images:
            try:
                out.append(pipeline.check(image))
            except DocauthError as exc:
                out.append(exc)
        return out


def load_pipeline(settings: Settings, factory: str | None = None):
    """The pipeline, or ``factory`` ("module:callable", called with the settings) for a plug-in or test one."""
    if factory:
        module, _, attr = factory.partition(":")
        return getattr(importlib.import_module(module), attr)(settings)
    return Pipeline.load(settings)
