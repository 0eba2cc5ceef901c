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
    """At most ``limit`` model-bound requests in a worker; the next one gets 503 + Retry-After at once.

    With ``running`` set (throughput mode), only that many of the admitted requests run at once and the others
    wait their turn: the bounded queue of a worker whose models use one core. Requests running side by
    side in one process share its interpreter lock and its core, so more of them only adds switching; a request
    that waits longer than ``max_wait_s`` for its turn gets the same 503.
    """

    def __init__(self, limit: int, running: int | None = None, max_wait_s: float = 60.0):
        self._sem = threading.BoundedSemaphore(max(1, limit))
        self.limit = limit
        self.running = None if running is None else max(1, min(running, limit))
        self._turns = None if self.running is None else threading.BoundedSemaphore(self.running)
        self.max_wait_s = max_wait_s
        self._waiting = 0
        self._count_lock = threading.Lock()

    @property
    def waiting(self) -> int:
        """Admitted requests waiting for their turn (0 without ``running``)."""
        return self._waiting

    def __enter__(self):
        if not self._sem.acquire(blocking=False):
            raise Overloaded("the service is at capacity; retry shortly", retry_after=1.0)
        if self._turns is not None and not self._turns.acquire(blocking=False):
            with self._count_lock:
                self._waiting += 1
            try:
                turn = self._turns.acquire(timeout=self.max_wait_s)
            finally:
                with self._count_lock:
                    self._waiting -= 1
            if not turn:
                self._sem.release()
                raise Overloaded(f"the service is at capacity (waited {self.max_wait_s:.0f} s); retry shortly",
                                 retry_after=1.0)
        return self

    def __exit__(self, *exc):
        if self._turns is not None:
            self._turns.release()
        self._sem.release()
        return False
