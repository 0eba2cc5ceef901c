"""The archive scanner: inputs -> pipeline (throughput mode) -> one JSON line per input.

Engines (:mod:`~docauth.batch.local_engine`, :mod:`~docauth.batch.ray_engine`) share
:func:`~docauth.batch.chunk.scan_chunk` (decode, check as one classifier batch, one record per input),
so both write identical lines.

    summary = scan(["archive/"], "results.jsonl", settings, resume=True, engine="local", workers=2)
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

from docauth.batch.chunk import error_record
from docauth.batch.inputs import expand_inputs
from docauth.batch.journal import ResultJournal
from docauth.batch.local_engine import run_local
from docauth.batch.ray_engine import run_ray
from docauth.batch.worker_threads import worker_share
from docauth.config import Settings
from docauth.errors import DocauthError, InvalidImage

CHUNKS_PER_WORKER = 8

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
    workers: int = 1
    threads_per_worker: int = 1  # each worker's share of the cores (docauth.batch.worker_threads)

    def export(self) -> dict:
        d = dataclasses.asdict(self)
        d["decisions"] = dict(self.decisions)
        d["rate_per_s"] = round(self.scanned / self.elapsed_s, 3) if self.elapsed_s else None
        return d


def chunk_size(todo: int, workers: int, settings: Settings) -> int:
    """Images per chunk: one classifier batch of up to 16, but with several workers at least
    ``CHUNKS_PER_WORKER`` chunks each, so that no worker is left alone with a long last chunk."""
    largest = max(1, min(settings.max_batch_size, 16))
    if workers <= 1:
        return largest
    return max(1, min(largest, todo // (workers * CHUNKS_PER_WORKER)))


def scan(inputs: list[str], out: str | os.PathLike, settings: Settings, *, resume: bool = False,
         engine: str = "local", workers: int = 1, chunk: int | None = None, ray_address: str | None = None,
         progress_stream=None, pipeline=None, factory: str | None = None,
         on_done: Callable[[int], None] | None = None) -> Summary:
    """``on_done(n)``: called in this thread as each n results are written, in place of the progress lines on
    ``progress_stream`` (a caller's own bar)."""
    start = time.perf_counter()
    expanded = expand_inputs(inputs)
    journal = ResultJournal(out, resume=resume)
    summary = Summary(engine=engine, discarded_partial_line=journal.discarded_bytes > 0, workers=workers,
                      threads_per_worker=worker_share(workers))
    try:
        for missing in expanded.missing:
            if missing not in journal.done:
                journal.append(error_record(missing, InvalidImage(f"{missing}: no such file, folder or match",
                                                            code="file_not_found")))
                summary.errors += 1
                if on_done is not None:
                    on_done(1)
        summary.inputs = len(expanded.paths)
        todo = [p for p in expanded.paths if p not in journal.done]
        summary.skipped = summary.inputs - len(todo)
        chunk = chunk or chunk_size(len(todo), workers, settings)
        # One thread calls the models in each process: a model call never has companions to wait for.
        settings = dataclasses.replace(settings, max_queue_delay_ms=0.0)
        advance = on_done or Progress(len(todo), stream=progress_stream).update
        if engine == "local":
            batches: Iterable[list[dict]] = run_local(todo, settings, workers, chunk, pipeline=pipeline, factory=factory)
        elif engine == "ray":
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
            advance(len(records))
    finally:
        journal.close()
    summary.elapsed_s = round(time.perf_counter() - start, 3)
    return summary
