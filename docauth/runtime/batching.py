"""Dynamic micro-batching in front of a model, as Triton / pytriton do it.

Callers submit single images (or small batches); one worker thread gathers
requests of one sample shape until ``max_batch_size`` rows are waiting or the
oldest has waited ``max_queue_delay_ms``, runs one batched call, and hands each
caller its rows.

    @batched(BatchingConfig(max_batch_size=16, max_queue_delay_ms=5))
    def infer(batch):               # (N, H, W, C) -> (N, K)
        return model.predict(batch)

    probs = infer(image)            # blocks; image (H, W, C) -> (K,)
    future = infer.submit(image)    # or asynchronously

The queue is bounded: when full, ``submit`` raises :class:`docauth.errors.Overloaded`
at once (shed load instead of queueing unbounded latency). ``close()`` drains
what is queued, then stops the worker.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

import numpy as np

from docauth.errors import ConfigError, ModelError, Overloaded, Unavailable


@dataclass(frozen=True)
class BatchingConfig:
    max_batch_size: int = 16
    max_queue_delay_ms: float = 5.0
    max_queue_size: int = 1024  # waiting requests; beyond this submit() raises Overloaded

    def __post_init__(self):
        if self.max_batch_size < 1:
            raise ConfigError(f"max_batch_size must be >= 1, not {self.max_batch_size}")
        if self.max_queue_delay_ms < 0:
            raise ConfigError(f"max_queue_delay_ms must be >= 0, not {self.max_queue_delay_ms}")
        if self.max_queue_size < 1:
            raise ConfigError(f"max_queue_size must be >= 1, not {self.max_queue_size}")


@dataclass
class _Request:
    rows: np.ndarray  # (n, ...) always batched
    single: bool  # the caller sent one sample without a batch axis
    future: Future
    enqueued: float


_STOP = object()


class MicroBatcher:
    """Wraps ``fn(batch) -> batch`` so concurrent single requests share one call."""

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], config: BatchingConfig | None = None, *,
                 sample_ndim: int | None = None, name: str = "batcher"):
        self.fn = fn
        self.config = config or BatchingConfig()
        self.sample_ndim = sample_ndim  # e.g. 3 for HWC images; None: every request is a batch
        self.name = name
        self._queue: queue.Queue = queue.Queue(maxsize=self.config.max_queue_size)
        self._carry: _Request | None = None
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._pid: int | None = None
        self._closed = False
        # metrics
        self.batches_run = 0
        self.items_run = 0
        self.batch_sizes: list[int] = []  # recent batch sizes (bounded)
        # Called with each batch's size from the worker thread, before the batch runs (the service's metrics).
        self.on_batch: Callable[[int], None] | None = None

    # --- public -------------------------------------------------------------------------------
    @property
    def queue_depth(self) -> int:
        """Requests waiting (not yet in a running batch)."""
        return self._queue.qsize() + (1 if self._carry is not None else 0)

    def submit(self, x) -> Future:
        if self._closed:
            raise Unavailable(f"{self.name}: shut down")
        rows = np.asarray(x)
        single = self.sample_ndim is not None and rows.ndim == self.sample_ndim
        if single:
            rows = rows[None]
        self._ensure_worker()
        request = _Request(rows=rows, single=single, future=Future(), enqueued=time.perf_counter())
        try:
            self._queue.put_nowait(request)
        except queue.Full:
            raise Overloaded(f"{self.name}: queue full ({self.config.max_queue_size} requests waiting)",
                             retry_after=max(self.config.max_queue_delay_ms / 1000, 0.05)) from None
        return request.future

    def __call__(self, x, timeout: float | None = None):
        return self.submit(x).result(timeout)

    def stats(self) -> dict:
        recent = self.batch_sizes[-1000:]
        return {"queue_depth": self.queue_depth, "batches_run": self.batches_run, "items_run": self.items_run,
                "mean_batch_size": (sum(recent) / len(recent)) if recent else 0.0,
                "max_batch_size": self.config.max_batch_size, "max_queue_delay_ms": self.config.max_queue_delay_ms}

    def close(self, timeout: float | None = 10.0) -> None:
        """Stop taking requests, finish the queued ones, stop the worker."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            worker = self._worker if self._pid == os.getpid() else None
        if worker is not None:
            self._queue.put(_STOP)  # blocking put: the worker is draining, room will come
            worker.join(timeout)
        else:
            self._fail_pending(Unavailable(f"{self.name}: shut down"))

    shutdown = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # --- worker -------------------------------------------------------------------------------
    def _ensure_worker(self) -> None:
        if self._worker is not None and self._pid == os.getpid():
            return
        with self._lock:
            # After a fork the worker thread does not exist in the child: start a new one.
            if self._worker is None or self._pid != os.getpid():
                self._pid = os.getpid()
                self._worker = threading.Thread(target=self._loop, name=f"docauth-{self.name}", daemon=True)
                self._worker.start()

    def _next(self, timeout: float | None):
        if self._carry is not None:
            request, self._carry = self._carry, None
            return request
        try:
            return self._queue.get(timeout=timeout) if timeout is None or timeout > 0 else self._queue.get_nowait()
        except queue.Empty:
            return None

    def _loop(self) -> None:
        delay = self.config.max_queue_delay_ms / 1000
        limit = self.config.max_batch_size
        stopping = False
        while True:
            first = self._next(None)
            if first is _STOP:
                return
            batch, rows = [first], len(first.rows)
            deadline = first.enqueued + delay
            while rows < limit:
                request = self._next(deadline - time.perf_counter())
                if request is None:
                    break
                if request is _STOP:
                    stopping = True  # run what we have, then stop (queue was drained up to here)
                    break
                if rows + len(request.rows) > limit or request.rows.shape[1:] != first.rows.shape[1:]:
                    # Next batch starts with it: full, or a sample of another shape (a model with dynamic
                    # sides), which cannot be stacked with these.
                    self._carry = request
                    break
                batch.append(request)
                rows += len(request.rows)
            self._run(batch)
            if stopping:
                if self._carry is not None:
                    carry, self._carry = self._carry, None
                    self._run([carry])
                return

    def _run(self, batch: list[_Request]) -> None:
        live = [r for r in batch if r.future.set_running_or_notify_cancel()]
        if not live:
            return
        try:
            stacked = live[0].rows if len(live) == 1 else np.concatenate([r.rows for r in live])
            if self.on_batch is not None:
                self.on_batch(len(stacked))
            out = np.asarray(self.fn(stacked))
            if len(out) != len(stacked):
                raise ModelError(f"{self.name}: batched call returned {len(out)} rows for {len(stacked)} inputs")
        except Exception as exc:  # noqa: BLE001 - not handled here: handed to every caller of this batch
            # One failed call fails its batch, not the worker (which would leave every later caller waiting).
            for r in live:
                r.future.set_exception(exc)
            return
        self.batches_run += 1
        self.items_run += len(stacked)
        self.batch_sizes.append(len(stacked))
        if len(self.batch_sizes) > 10000:
            del self.batch_sizes[:5000]
        start = 0
        for r in live:
            part = out[start:start + len(r.rows)]
            start += len(r.rows)
            r.future.set_result(part[0] if r.single else part)

    def _fail_pending(self, exc: Exception) -> None:
        while True:
            request = self._next(0)
            if request is None:
                return
            if request is not _STOP and request.future.set_running_or_notify_cancel():
                request.future.set_exception(exc)


def batched(config: BatchingConfig | None = None, *, sample_ndim: int | None = None):
    """Decorator: turn ``fn(batch) -> batch`` into a :class:`MicroBatcher` (worker starts on first use)."""

    def wrap(fn):
        batcher = MicroBatcher(fn, config, sample_ndim=sample_ndim, name=getattr(fn, "__name__", "batcher"))
        batcher.__doc__ = fn.__doc__
        batcher.__wrapped__ = fn
        return batcher

    return wrap
