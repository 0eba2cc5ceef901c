"""What a service worker holds, shared by every view: settings, store, keys, limits, metrics and the
pipeline (loaded once per process, after gunicorn's fork, in a thread).

Views reach it with :func:`state` (the state of the request's app); no view holds a model itself.
"""

from __future__ import annotations

import logging
import threading
import time

from flask import current_app

from docauth.config import Settings
from docauth.errors import DocauthError, Unavailable
from docauth.pipeline import Pipeline
from docauth.pipeline.batching import model_batchers
from docauth.service.keys import KeyRing
from docauth.service.metrics import Metrics
from docauth.service.ratelimit import ConcurrencyGate, RateLimiter
from docauth.store import Store

log = logging.getLogger("docauth.service")


class ServiceState:
    """Everything a worker holds: settings, store, keys, limits, metrics and the (lazily loaded) pipeline."""

    def __init__(self, settings: Settings, *, store=None, pipeline=None, pipeline_factory=None):
        self.settings = settings
        self._store = store
        self._store_lock = threading.Lock()
        self.metrics = Metrics()
        self.rate_limiter = RateLimiter(settings.rate_limit_per_minute)
        running = settings.running_checks if settings.mode == "throughput" else None
        self.gate = ConcurrencyGate(settings.max_inflight_checks, running=running)
        self._pipeline = pipeline
        self._pipeline_factory = pipeline_factory
        self.ready = threading.Event()
        self.load_error: DocauthError | None = None
        self.load_started: float | None = None
        self.time_to_ready_s: float | None = None
        self.warmup_ms: dict | None = None
        self.server_started: float | None = None  # wall clock of `docauth serve`, set by the gunicorn hook
        self.ready_since_server_start_s: float | None = None
        self._load_lock = threading.Lock()
        if pipeline is not None:
            attach_batch_metrics(pipeline, self.metrics)
            self.ready.set()
            self.metrics.ready.set(1)

    # -- store --------------------------------------------------------------------------------
    @property
    def store(self):
        if self._store is None:
            with self._store_lock:
                if self._store is None:
                    self._store = Store.from_settings(self.settings)
        return self._store

    @property
    def keys(self) -> KeyRing:
        return KeyRing(self.store)

    # -- pipeline -----------------------------------------------------------------------------
    def start_loading(self, *, wait: bool = False) -> None:
        """Load and warm the pipeline in a thread (once). ``wait=True`` blocks until done."""
        with self._load_lock:
            if self.load_started is None:
                self.load_started = time.perf_counter()
                thread = threading.Thread(target=self._load, name="docauth-load", daemon=True)
                thread.start()
        if wait:
            self.ready.wait()

    def _load(self) -> None:
        try:
            factory = self._pipeline_factory or (lambda settings, store: Pipeline.load(settings, store=store))
            pipeline = factory(self.settings, self.store)
            self.warmup_ms = pipeline.warmup()
            attach_batch_metrics(pipeline, self.metrics)
            self._pipeline = pipeline
            self.time_to_ready_s = time.perf_counter() - self.load_started
            self.metrics.ready.set(1)
            if self.server_started is not None:
                self.ready_since_server_start_s = time.time() - self.server_started
                log.info("ready: pipeline loaded and warmed in %.2f s (%.2f s after the server started)",
                         self.time_to_ready_s, self.ready_since_server_start_s)
            else:
                log.info("ready: pipeline loaded and warmed in %.2f s", self.time_to_ready_s)
        except DocauthError as exc:
            self.load_error = exc
            log.error("pipeline failed to load: %s", exc.message)
        except (ImportError, OSError, RuntimeError, ValueError) as exc:
            # A broken model or library must show up on /readyz, not kill the worker silently.
            self.load_error = Unavailable(f"the pipeline failed to load: {type(exc).__name__}: {exc}",
                                          code="pipeline_load_failed")
            log.error("pipeline failed to load: %s", self.load_error.message)
        finally:
            if self._pipeline is None and self.load_error is None:
                # An error of any other type still propagates (and is printed), but /readyz and the gunicorn
                # hook must see the worker as failed, not as loading for ever.
                self.load_error = Unavailable("the pipeline failed to load (see the log)", code="pipeline_load_failed")
                log.error("pipeline failed to load: unexpected error")
            self.ready.set()

    @property
    def pipeline(self):
        if self._pipeline is not None:
            return self._pipeline
        if self.load_error is not None:
            raise self.load_error
        if self.load_started is None:
            self.start_loading()
        raise Unavailable("the models are still loading; retry shortly", code="not_ready", retry_after=2.0)

    @property
    def is_ready(self) -> bool:
        return self._pipeline is not None


def attach_batch_metrics(pipeline, metrics: Metrics) -> None:
    """Batch sizes and queue depth of every micro-batcher the pipeline's models go through."""
    batchers = {}
    for stage in (pipeline.classifier, pipeline.reader):
        if stage is not None:
            batchers.update(model_batchers(stage))
    for name, batcher in batchers.items():
        if batcher.on_batch is None:  # a pipeline's batchers are observed once, whichever app attached first
            batcher.on_batch = metrics.batch_size.labels(name).observe
    if batchers:
        metrics.queue_depth.set_function(lambda: float(sum(b.queue_depth for b in batchers.values())))


def state() -> ServiceState:
    """The app's state, from a view (the request's app)."""
    return current_app.extensions["docauth"]
