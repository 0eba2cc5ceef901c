"""The micro-batcher: results reach the right caller, batches form, overload is refused, shutdown is clean."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from docauth.errors import ConfigError, ModelError, Overloaded, Unavailable
from docauth.runtime.batching import BatchingConfig, MicroBatcher, batched


class Recorder:
    """A batched function that tags each row with its own content and records batch sizes."""

    def __init__(self, delay_s: float = 0.0):
        self.sizes: list[int] = []
        self.delay_s = delay_s
        self.lock = threading.Lock()

    def __call__(self, batch: np.ndarray) -> np.ndarray:
        with self.lock:
            self.sizes.append(len(batch))
        if self.delay_s:
            time.sleep(self.delay_s)
        # Row i's answer depends only on row i: a mix-up between callers shows.
        return batch.reshape(len(batch), -1).sum(axis=1, keepdims=True) * 10 + 1


def test_concurrent_callers_get_their_own_results_and_batches_form():
    fn = Recorder(delay_s=0.01)
    batcher = MicroBatcher(fn, BatchingConfig(max_batch_size=8, max_queue_delay_ms=20), sample_ndim=2)
    inputs = [np.full((2, 2), i, np.float32) for i in range(64)]
    try:
        with ThreadPoolExecutor(max_workers=32) as pool:
            results = list(pool.map(batcher, inputs))
    finally:
        batcher.close()
    for i, out in enumerate(results):
        assert out.shape == (1,)
        assert out[0] == i * 4 * 10 + 1
    assert sum(fn.sizes) == 64
    assert max(fn.sizes) <= 8
    assert max(fn.sizes) > 1, "no batch formed from 32 concurrent callers"
    assert len(fn.sizes) < 64
    assert batcher.stats()["items_run"] == 64


def test_multi_row_requests_are_kept_together_and_split_back():
    fn = Recorder()
    batcher = MicroBatcher(fn, BatchingConfig(max_batch_size=5, max_queue_delay_ms=50))
    try:
        futures = [batcher.submit(np.full((n, 3), n, np.float32)) for n in (2, 2, 3, 7)]
        outs = [f.result(5) for f in futures]
    finally:
        batcher.close()
    for n, out in zip((2, 2, 3, 7), outs):
        assert out.shape == (n, 1)
        assert np.all(out == n * 3 * 10 + 1)
    # 2+2 fit in 5, 3 would overflow and starts the next batch; 7 exceeds the limit and runs alone.
    assert fn.sizes[:3] == [4, 3, 7]


def test_samples_of_other_shapes_are_never_stacked_together():
    # A model with dynamic sides (the text detector takes the page's shape): callers' inputs of different
    # shapes each reach the model in a batch of their own shape, instead of failing everyone's batch.
    shapes: list[tuple] = []

    def fn(batch):
        shapes.append(batch.shape)
        return batch.reshape(len(batch), -1).sum(axis=1, keepdims=True)

    batcher = MicroBatcher(fn, BatchingConfig(max_batch_size=8, max_queue_delay_ms=50))
    try:
        sizes = [(4, 6), (4, 6), (8, 2), (4, 6), (8, 2)]
        futures = [batcher.submit(np.ones((1, *hw), np.float32)) for hw in sizes]
        outs = [f.result(5) for f in futures]
    finally:
        batcher.close()
    assert [float(o[0, 0]) for o in outs] == [24.0, 24.0, 16.0, 24.0, 16.0]
    assert all(len({s[1:]}) == 1 for s in shapes) and sum(s[0] for s in shapes) == 5
    assert shapes[0] == (2, 4, 6)  # the first shape's callers up to the first other shape


def test_full_queue_raises_overloaded_at_once():
    release = threading.Event()

    def blocked(batch):
        release.wait(5)
        return batch

    batcher = MicroBatcher(blocked, BatchingConfig(max_batch_size=1, max_queue_delay_ms=0, max_queue_size=3))
    try:
        first = batcher.submit(np.zeros((1, 1)))
        deadline = time.time() + 5
        while batcher.queue_depth and time.time() < deadline:  # worker has taken the first request
            time.sleep(0.005)
        waiting = [batcher.submit(np.zeros((1, 1))) for _ in range(3)]
        assert batcher.queue_depth == 3
        t0 = time.perf_counter()
        with pytest.raises(Overloaded) as info:
            batcher.submit(np.zeros((1, 1)))
        assert time.perf_counter() - t0 < 1.0
        assert info.value.http_status == 503 and info.value.code == "overloaded"
        release.set()
        for f in [first] + waiting:
            assert f.result(5).shape == (1, 1)
    finally:
        release.set()
        batcher.close()


def test_failing_batch_fails_its_callers_and_worker_survives():
    calls = []

    def sometimes(batch):
        calls.append(len(batch))
        if len(calls) == 1:
            raise ModelError("boom")
        return batch

    batcher = MicroBatcher(sometimes, BatchingConfig(max_batch_size=4, max_queue_delay_ms=0))
    try:
        with pytest.raises(ModelError, match="boom"):
            batcher(np.ones((1, 2)), timeout=5)
        assert np.array_equal(batcher(np.ones((1, 2)), timeout=5), np.ones((1, 2)))
    finally:
        batcher.close()


def test_wrong_row_count_is_a_model_error():
    batcher = MicroBatcher(lambda b: b[:1], BatchingConfig(max_batch_size=4, max_queue_delay_ms=0))
    try:
        with pytest.raises(ModelError, match="rows"):
            batcher(np.ones((3, 2)), timeout=5)
    finally:
        batcher.close()


def test_close_drains_queued_requests_then_refuses_new_ones():
    fn = Recorder(delay_s=0.02)
    batcher = MicroBatcher(fn, BatchingConfig(max_batch_size=2, max_queue_delay_ms=1))
    futures = [batcher.submit(np.full((1, 1), i, np.float32)) for i in range(7)]
    batcher.close()
    assert [float(f.result(0)[0, 0]) for f in futures] == [i * 10 + 1 for i in range(7)]
    assert not batcher._worker.is_alive()
    with pytest.raises(Unavailable):
        batcher.submit(np.zeros((1, 1)))


def test_decorator_with_config():
    sizes = []

    @batched(BatchingConfig(max_batch_size=16, max_queue_delay_ms=30), sample_ndim=1)
    def double(batch):
        sizes.append(len(batch))
        return batch * 2

    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            outs = list(pool.map(double, [np.array([i, -i], np.float32) for i in range(16)]))
        assert [o.tolist() for o in outs] == [[2 * i, -2 * i] for i in range(16)]
        assert max(sizes) > 1
        assert double.__wrapped__.__name__ == "double"
    finally:
        double.close()


@pytest.mark.parametrize("kwargs", [{"max_batch_size": 0}, {"max_queue_delay_ms": -1}, {"max_queue_size": 0}])
def test_config_is_validated(kwargs):
    with pytest.raises(ConfigError):
        BatchingConfig(**kwargs)
