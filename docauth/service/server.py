"""gunicorn, run programmatically (``docauth serve`` / ``docauth kiosk``).

The app is created in each worker *after* the fork (``preload_app`` is off),
and the ``post_worker_init`` hook starts loading the models there, so no model
or framework state crosses a fork. ``/readyz`` answers 200 once a worker's
pipeline is loaded and warmed.

Worker layout by mode (2-core machine defaults; ``--workers`` overrides):

* ``realtime``: one process per core, 2 threads each (one check at a time per
  process at the lowest latency, the second thread keeps /healthz answering).
* ``throughput``: two processes per physical core (the probe's count). A worker
  admits up to ``max_inflight_checks`` checks (503 beyond) and runs
  ``running_checks`` of them at once; their classifier calls meet in the
  micro-batcher. Processes, not threads, carry the load: a check is mostly
  Python, OpenCV, Tesseract and dlib, and threads of one process share its
  interpreter lock, so a worker uses about one core. Two per core, because a
  connection stays with the worker that accepted it: with one per core, an
  uneven split leaves a core idle while the other worker's queue waits.

In both modes each process's models and OpenCV run on its share of the
physical cores (``DOCAUTH_PROCESS_THREADS``, ``OPENCV_FOR_THREADS_NUM``): one
thread each with several workers on 2 cores, every core for the kiosk's one.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from gunicorn.app.base import BaseApplication

from docauth.classifiers.stage import DOCUMENT_MODEL, SIDE_MODEL
from docauth.config import Settings
from docauth.ocr.mrz.line_model import MODEL_NAME as LINE_MODEL
from docauth.runtime.model import verify_model_files
from docauth.runtime.ort_env import TELEMETRY_ENV
from docauth.runtime.probe import cpu_facts
from docauth.runtime.threading import PROCESS_THREADS_ENV
from docauth.service import gunicorn_conf
from docauth.store import Store

# OpenCV sizes its parallel loops' pool from this when it first runs one (in the worker, after the fork).
OPENCV_THREADS_ENV = "OPENCV_FOR_THREADS_NUM"


def default_workers(mode: str) -> int:
    if mode == "throughput":
        cores, _ = cpu_facts()
        return max(1, min(2 * cores, 16))
    return max(1, min(os.cpu_count() or 1, 4))


def default_threads(settings: Settings) -> int:
    # Throughput: a thread for every check a worker admits (most of them wait their turn at the gate), one more
    # so /healthz and /metrics answer while all are taken.
    return settings.max_inflight_checks + 1 if settings.mode == "throughput" else 2


def share_cores(settings: Settings, workers: int, environ=None) -> None:
    """Each worker's share of the physical cores (cores // workers, at least one), put in the environment the
    workers and their face processes inherit: their models' thread pools and OpenCV's are sized to it, so the
    workers together start no more threads than there are cores (idle pool threads spin). An operator's own
    settings are kept; one worker (the kiosk) keeps every core."""
    environ = os.environ if environ is None else environ
    cores, _ = cpu_facts()
    share = str(max(1, cores // max(1, workers)))
    for key in (PROCESS_THREADS_ENV, OPENCV_THREADS_ENV):
        if not environ.get(key, "").strip():
            environ[key] = share


def gunicorn_options(settings: Settings, *, host: str, port: int, workers: int, threads: int,
                     timeout: int = 120) -> dict:
    return {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "worker_class": "docauth.service.worker.JsonErrorWorker",  # gthread answering its errors in JSON
        "threads": threads,
        "timeout": timeout,
        "graceful_timeout": 20,
        "keepalive": 5,
        "preload_app": False,
        "accesslog": None,  # the app logs each request (route template, status, time, request id)
        "errorlog": "-",
        "loglevel": settings.log_level.lower(),
        "limit_request_line": 8190,
        "limit_request_fields": 100,
        "post_worker_init": gunicorn_conf.post_worker_init,
        "child_exit": gunicorn_conf.child_exit,
        "when_ready": gunicorn_conf.when_ready,
        "proc_name": "docauth",
    }


class DocauthServer(BaseApplication):
    def __init__(self, settings: Settings, options: dict):
        self.settings = settings
        self.options = options
        super().__init__()

    def load_config(self):
        for key, value in self.options.items():
            if value is not None and key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self):
        # Imported in each worker, after the fork (preload_app is off): the app's libraries stay out of the master.
        from docauth.service.app import create_app  # deferred on purpose
        from docauth.service.logs import configure

        configure(self.settings.log_level)
        return create_app(self.settings, load="deferred")


def served_models(settings: Settings) -> list[str]:
    """Every model a worker may load: the classifiers and the MRZ recogniser (required), and every other model
    with a weight file in the models directory (the reader loads the optional ones when their files are there),
    so a model added later is checked without a change here."""
    present = {p.stem for p in Path(settings.models_dir).glob("*") if p.suffix in (".keras", ".onnx")}
    required = [DOCUMENT_MODEL, SIDE_MODEL, LINE_MODEL]
    return required + sorted(present - set(required))


def prepare(settings: Settings, workers: int) -> None:
    """Before gunicorn starts (in the master): data dir, migrations, shared metrics dir."""
    # A missing, corrupt or unrecorded model file stops `docauth serve` here, naming the file, before any worker
    # forks (no framework is imported): workers that could never load would otherwise stay "loading" for ever.
    verify_model_files(served_models(settings), settings.models_dir)
    Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
    store = Store.from_settings(settings)
    try:
        store.upgrade()
    finally:
        store.close()  # no connection may cross the fork
    os.environ.setdefault("DOCAUTH_SERVE_STARTED", str(time.time()))

    os.environ.setdefault(TELEMETRY_ENV, "1")  # inherited by every worker, whatever imports onnxruntime first
    share_cores(settings, workers)
    if workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        metrics_dir = Path(settings.data_dir) / "run" / f"metrics-{os.getpid()}"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir(parents=True)
        # Must be set before prometheus_client is imported anywhere (workers import it after the fork).
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)


def run(settings: Settings, *, host: str, port: int, workers: int | None = None, threads: int | None = None) -> None:
    workers = workers or default_workers(settings.mode)
    threads = threads or default_threads(settings)
    prepare(settings, workers)
    DocauthServer(settings, gunicorn_options(settings, host=host, port=port, workers=workers, threads=threads)).run()
    # gunicorn exits the process itself (a boot error halts it with status 3)
