"""Each worker of the archive scanner on its share of the cores.

Every library in a check sizes its thread pools to the whole machine by default (ONNX Runtime's and
OpenVINO's intra-op pools, OpenCV's parallel loops, OpenBLAS, OpenMP). With several workers on one machine
that is workers x cores threads competing for the cores, spinning and evicting each other's caches, so two
workers gain little over one. A worker is therefore given ``cores // workers`` threads everywhere:

    with worker_environment(share):   # inherited by the worker processes started inside
        ...
    limit_this_process(share)         # in the worker itself: what can still be changed after import

Tesseract stays at one thread (``OMP_THREAD_LIMIT=1``): on the small crops it reads, one thread is fastest.
"""

from __future__ import annotations

import ctypes
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import cv2

from docauth.runtime.probe import cpu_facts
from docauth.runtime.threading import PROCESS_THREADS_ENV, process_threads

# Read once, when each library loads: only an environment in place before the worker starts counts.
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
# OpenBLAS's thread setter under the names its builds export (numpy's wheels bundle the scipy_openblas64_ one).
OPENBLAS_SETTERS = ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_")


def probe_workers(cores: int | None = None) -> int:
    """Workers for ``--workers auto``: one per physical core the probe finds, so each runs on one thread (the
    cheapest per image: no thread pool to fork and join) and together they fill the machine."""
    return max(1, cores if cores is not None else cpu_facts()[0])


def worker_share(workers: int, cores: int | None = None) -> int:
    """Threads for each of ``workers`` processes on this machine's physical cores (at least one)."""
    cores = cores if cores is not None else cpu_facts()[0]
    return max(1, cores // max(1, workers))


def thread_environment(share: int) -> dict[str, str]:
    """The variables that size a worker's thread pools to ``share``."""
    env = {PROCESS_THREADS_ENV: str(share), "OMP_THREAD_LIMIT": "1"}
    env.update({key: str(share) for key in THREAD_ENV})
    return env


@contextmanager
def worker_environment(share: int) -> Iterator[dict[str, str]]:
    """``os.environ`` with the worker variables while processes are started inside (they inherit it), then as
    it was. Values the operator set are kept."""
    saved = {key: os.environ.get(key) for key in thread_environment(share)}
    applied = {key: value for key, value in thread_environment(share).items() if not os.environ.get(key)}
    os.environ.update(applied)
    try:
        yield applied
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def limit_this_process(share: int) -> None:
    """In a worker, before its models load: the share for the runtime's engines, OpenCV's loops and an OpenBLAS
    already loaded (a forked worker inherits numpy's, sized to the whole machine when the scanner imported it)."""
    os.environ.setdefault(PROCESS_THREADS_ENV, str(share))
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    cv2.setNumThreads(process_threads())
    for setter in loaded_openblas_setters():
        setter(process_threads())


def loaded_openblas_setters() -> list:
    """The thread setters of the OpenBLAS libraries this process has loaded (none: nothing to size)."""
    setters = []
    for path in _loaded_libraries():
        if "openblas" not in Path(path).name.lower():
            continue
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for name in OPENBLAS_SETTERS:
            setter = getattr(library, name, None)
            if setter is not None:
                setter.argtypes, setter.restype = [ctypes.c_int], None
                setters.append(setter)
                break
    return setters


def _loaded_libraries() -> set[str]:
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:  # not Linux: libraries sized by the environment only
        return set()
    return {line.split()[-1] for line in maps.splitlines() if line.rstrip().endswith(".so") or ".so." in line}
