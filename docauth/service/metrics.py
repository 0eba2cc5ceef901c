"""Prometheus metrics of one app: requests, latency per endpoint and per stage, batches, queue depth.

Each app gets its own registry (tests build many apps in one process). Under
gunicorn with several workers ``PROMETHEUS_MULTIPROC_DIR`` is set by
``docauth serve`` before any worker starts, the values go to shared files, and
``/metrics`` aggregates every worker's.
"""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client import CONTENT_TYPE_LATEST

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.5, 5.0, 10.0, 30.0)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64)


class Metrics:
    def __init__(self):
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter("docauth_http_requests_total", "HTTP requests by endpoint, method and status",
                                ["endpoint", "method", "status"], registry=r)
        self.latency = Histogram("docauth_http_request_duration_seconds", "HTTP request latency by endpoint",
                                 ["endpoint"], buckets=LATENCY_BUCKETS, registry=r)
        self.stage_latency = Histogram("docauth_stage_duration_seconds", "Pipeline stage latency",
                                       ["stage"], buckets=LATENCY_BUCKETS, registry=r)
        self.decisions = Counter("docauth_decisions_total", "Check decisions", ["decision"], registry=r)
        self.reasons = Counter("docauth_reasons_total", "Reasons given by checks", ["reason"], registry=r)
        self.batch_size = Histogram("docauth_batch_size", "Rows per model call made by the micro-batchers",
                                    ["model"], buckets=BATCH_BUCKETS, registry=r)
        self.queue_depth = Gauge("docauth_queue_depth", "Requests waiting in the micro-batcher",
                                 registry=r, multiprocess_mode="livesum")
        self.inflight = Gauge("docauth_inflight_requests", "Requests being processed",
                              registry=r, multiprocess_mode="livesum")
        self.ready = Gauge("docauth_ready", "1 when the worker's models are loaded and warmed",
                           registry=r, multiprocess_mode="livemin")
        self.rejected = Counter("docauth_rejected_requests_total", "Requests refused before work (auth, rate, load)",
                                ["code"], registry=r)

    def observe_check(self, exported: dict) -> None:
        self.decisions.labels(exported["decision"]).inc()
        for reason in exported.get("reasons", []):
            self.reasons.labels(reason["code"]).inc()
        for stage, ms in exported.get("timings_ms", {}).items():
            if ms is not None:
                self.stage_latency.labels(stage).observe(ms / 1000.0)

    def exposition(self) -> tuple[bytes, str]:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            from prometheus_client import multiprocess

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
            return generate_latest(registry), CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
