"""The local engine: chunks of inputs in this process, or in a pool of spawned worker processes that each
load their own pipeline once."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Iterator

from docauth.batch.chunk import load_pipeline, scan_chunk
from docauth.batch.orphans import die_with_parent
from docauth.batch.worker_threads import limit_this_process, worker_environment, worker_share
from docauth.config import Settings


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


_worker_pipeline = None
_worker_settings = None
# Loaded with the models, in the worker: a fork must not copy their thread pools or sessions.
FRAMEWORKS = frozenset({"onnxruntime", "openvino", "tensorflow", "dlib", "torch", "ray"})


def start_method() -> str:
    """``fork`` while the scanner is one thread with no framework loaded: each worker then starts with the
    scanner's imports (numpy, OpenCV, the pipeline's modules) instead of importing them again, and loads its
    models after the fork. ``spawn`` otherwise (a progress bar's thread on a terminal, or a caller that has
    loaded models): a fork would copy their locks and thread pools half-way."""
    single = threading.active_count() == 1
    return "fork" if single and FRAMEWORKS.isdisjoint(sys.modules) else "spawn"


def _init_worker(settings: Settings, factory: str | None, parent_pid: int | None = None, share: int = 1) -> None:
    global _worker_pipeline, _worker_settings
    if parent_pid is not None:
        die_with_parent(parent_pid)  # before the pipeline loads: a SIGKILLed scanner leaves no worker behind
    limit_this_process(share)
    _worker_settings = settings
    _worker_pipeline = load_pipeline(settings, factory)


def _work(paths: list[str]) -> list[dict]:
    return scan_chunk(_worker_pipeline, paths, _worker_settings)


def run_local(todo: list[str], settings: Settings, workers: int, chunk: int, pipeline=None,
              factory: str | None = None) -> Iterator[list[dict]]:
    if not todo:
        return
    if workers <= 1:
        pipeline = pipeline or load_pipeline(settings, factory)
        for paths in _chunks(todo, chunk):
            yield scan_chunk(pipeline, paths, settings)
        return
    # Each worker loads its own models after it starts, with its share of the cores in the environment it starts
    # with (docauth.batch.worker_threads).
    ctx = multiprocessing.get_context(start_method())
    share = worker_share(workers)
    with worker_environment(share), ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                                        initializer=_init_worker,
                                                        initargs=(settings, factory, os.getpid(), share)) as pool:
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
