"""Per-key token buckets (in the worker's memory) and a concurrency gate.

A bucket holds ``burst`` tokens and refills at ``per_minute / 60`` per second;
an empty bucket answers 429 with the seconds until the next token. With
several gunicorn workers each worker keeps its own buckets, so the effective
limit is at most ``workers x per_minute`` (docs/api.md says so).

>>> clock = [0.0]
>>> rl = RateLimiter(per_minute=60, burst=2, clock=lambda: clock[0])
>>> rl.check("k"), rl.check("k")
(None, None)
>>> round(rl.check("k"), 2)
1.0
>>> clock[0] = 1.0; rl.check("k") is None
True
"""

from __future__ import annotations

import threading
import time

from docauth.errors import Overloaded


class RateLimiter:
    def __init__(self, per_minute: int, burst: int | None = None, clock=time.monotonic):
        self.rate = max(per_minute, 1) / 60.0
        self.burst = burst if burst is not None else max(1, per_minute // 6)
        self.clock = clock
        self.disabled = per_minute <= 0
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def check(self, key: str) -> float | None:
        """None when allowed (a token is taken), else seconds to wait."""
        if self.disabled:
            return None
        now = self.clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                return None
            self._buckets[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


class ConcurrencyGate:
    """At most ``limit`` model-bound requests in a worker; the next one gets 503 + Retry-After at once."""

    def __init__(self, limit: int):
        self._sem = threading.BoundedSemaphore(max(1, limit))
        self.limit = limit

    def __enter__(self):
        if not self._sem.acquire(blocking=False):
            raise Overloaded("the service is at capacity; retry shortly", retry_after=1.0)
        return self

    def __exit__(self, *exc):
        self._sem.release()
        return False
