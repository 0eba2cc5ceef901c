"""The archive scanner: inputs -> pipeline (throughput mode) -> one JSON line per input.

Engines share :func:`scan_chunk` (decode, check as one classifier batch, one
record per input), so the local and the Ray engine write identical lines.

    summary = scan(["archive/"], "results.jsonl", settings, resume=True, engine="local", workers=2)
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from docauth.batch.inputs import expand_inputs
from docauth.batch.journal import ResultJournal
from docauth.config import Settings
from docauth.errors import DocauthError, InvalidImage, UnsupportedMediaType
from docauth.imageio import decode_image, read_bytes, sniff_media_type
from docauth.pipeline.result import DECISIONS

PDF_DPI = 150
MAX_PDF_PAGES = 20


# -- one chunk of inputs -> records (runs wherever the pipeline is: this process, a pool worker, a Ray actor) --
def _error(path: str, exc: DocauthError) -> dict:
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


def _summary_of(exported: dict) -> dict:
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
            records[path] = _error(path, exc)
        except OSError as exc:  # e.g. a file vanished or is unreadable mid-scan
            records[path] = _error(path, InvalidImage(f"cannot read the file: {exc.strerror}", code="unreadable_file"))
    results = _check_all(pipeline, images)
    for (path, page), outcome in zip(owners, results):
        if isinstance(outcome, DocauthError):
            if page is None:
                records[path] = _error(path, outcome)
                continue
            exported = {"error": outcome.export()["error"]}
        else:
            exported = outcome.export()
        if page is None:
            records[path] = {"path": path, **_summary_of(exported), "result": exported}
        else:
            rec = records.setdefault(path, {"path": path, "pages": []})
            rec["pages"].append({"page": page, **(_summary_of(exported) if "decision" in exported else {}),
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


# -- progress ------------------------------------------------------------------------------------
class Progress:
    """A one-line bar with rate and ETA on stderr (redrawn on a TTY, a line every few seconds otherwise)."""

    def __init__(self, total: int, stream=None, every_s: float = 5.0):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.start = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.every_s = 0.2 if self.tty else every_s
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if now - self._last >= self.every_s or self.done >= self.total:
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.done / elapsed
        left = (self.total - self.done) / rate if rate > 0 else float("inf")
        eta = "--:--" if left == float("inf") else time.strftime("%H:%M:%S", time.gmtime(left))
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"{rate:.2f} img/s ETA {eta}")
        self.stream.write(("\r" + line) if self.tty else (line + "\n"))
        if self.tty and self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


# -- engines -------------------------------------------------------------------------------------
@dataclass
class Summary:
    inputs: int = 0
    skipped: int = 0  # already in the results file (resume)
    scanned: int = 0
    errors: int = 0
    decisions: Counter = field(default_factory=Counter)
    elapsed_s: float = 0.0
    discarded_partial_line: bool = False
    engine: str = "local"

    def export(self) -> dict:
        d = dataclasses.asdict(self)
        d["decisions"] = dict(self.decisions)
        d["rate_per_s"] = round(self.scanned / self.elapsed_s, 3) if self.elapsed_s else None
        return d


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _pipeline_for_scan(settings: Settings, factory: str | None = None):
    """The pipeline, or ``factory`` ("module:callable", called with the settings) for a plug-in or test one."""
    if factory:
        import importlib

        module, _, attr = factory.partition(":")
        return getattr(importlib.import_module(module), attr)(settings)
    from docauth.pipeline import Pipeline

    return Pipeline.load(settings)


_worker_pipeline = None
_worker_settings = None


def _init_worker(settings: Settings, factory: str | None, parent_pid: int | None = None) -> None:
    global _worker_pipeline, _worker_settings
    if parent_pid is not None:
        from docauth.batch.orphans import die_with_parent

        die_with_parent(parent_pid)  # before the pipeline loads: a SIGKILLed scanner leaves no worker behind
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    _worker_settings = settings
    _worker_pipeline = _pipeline_for_scan(settings, factory)


def _work(paths: list[str]) -> list[dict]:
    return scan_chunk(_worker_pipeline, paths, _worker_settings)


def run_local(todo: list[str], settings: Settings, workers: int, chunk: int, pipeline=None,
              factory: str | None = None) -> Iterator[list[dict]]:
    if not todo:
        return
    if workers <= 1:
        pipeline = pipeline or _pipeline_for_scan(settings, factory)
        for paths in _chunks(todo, chunk):
            yield scan_chunk(pipeline, paths, settings)
        return
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # spawn: workers start clean and load their own models (nothing framework-level crosses a fork)
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                             initargs=(settings, factory, os.getpid())) as pool:
        pending = set()
        chunks = _chunks(todo, chunk)
        for paths in chunks:
            pending.add(pool.submit(_work, paths))
            if len(pending) >= 2 * workers:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in finished:
                    yield f.result()
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in finished:
                yield f.result()


def scan(inputs: list[str], out: str | os.PathLike, settings: Settings, *, resume: bool = False,
         engine: str = "local", workers: int = 1, chunk: int | None = None, ray_address: str | None = None,
         progress_stream=None, pipeline=None, factory: str | None = None) -> Summary:
    start = time.perf_counter()
    expanded = expand_inputs(inputs)
    journal = ResultJournal(out, resume=resume)
    summary = Summary(engine=engine, discarded_partial_line=journal.discarded_bytes > 0)
    try:
        for missing in expanded.missing:
            if missing not in journal.done:
                journal.append(_error(missing, InvalidImage(f"{missing}: no such file, folder or match",
                                                            code="file_not_found")))
                summary.errors += 1
        summary.inputs = len(expanded.paths)
        todo = [p for p in expanded.paths if p not in journal.done]
        summary.skipped = summary.inputs - len(todo)
        chunk = chunk or max(1, min(settings.max_batch_size, 16))
        progress = Progress(len(todo), stream=progress_stream)
        if engine == "local":
            batches: Iterable[list[dict]] = run_local(todo, settings, workers, chunk, pipeline=pipeline, factory=factory)
        elif engine == "ray":
            from docauth.batch.ray_engine import run_ray

            batches = run_ray(todo, settings, workers=workers, chunk=chunk, address=ray_address, factory=factory)
        else:
            raise DocauthError(f"unknown engine {engine!r}", code="invalid_engine")
        for records in batches:
            for record in records:
                journal.append(record)
                summary.scanned += 1
                if "error" in record:
                    summary.errors += 1
                elif record.get("decision"):
                    summary.decisions[record["decision"]] += 1
            progress.update(len(records))
    finally:
        journal.close()
    summary.elapsed_s = round(time.perf_counter() - start, 3)
    return summary
