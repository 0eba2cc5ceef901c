"""gunicorn hooks (also usable as a config file: ``gunicorn -c python:docauth.service.gunicorn_conf
'docauth.service.app:create_app(load="deferred")'``, after ``docauth db upgrade``).

Importing this module has no side effects; gunicorn calls the hooks.
"""

from __future__ import annotations

import os
import sys
import time

from docauth.service.logs import configure

WORKER_BOOT_ERROR = 3  # gunicorn.arbiter.Arbiter.WORKER_BOOT_ERROR: the master halts with a message

worker_class = "docauth.service.worker.JsonErrorWorker"  # gthread answering its errors in JSON
threads = 2
preload_app = False  # models load in each worker, after the fork
timeout = 120
accesslog = None


def post_worker_init(worker) -> None:
    """In the worker, after the fork: load and warm the pipeline *before* accepting connections.

    A worker takes no request until it is warm, so a replaced worker never
    answers 503s while the others could serve; the heartbeat keeps the arbiter
    from killing it for being slow to load. A pipeline that cannot load stops the
    whole server with gunicorn's boot-error exit code (a clear start-up error).
    """
    app = worker.wsgi
    state = getattr(app, "extensions", {}).get("docauth")
    if state is None:
        return
    configure(state.settings.log_level)
    state.server_started = float(os.environ.get("DOCAUTH_SERVE_STARTED", time.time()))
    state.start_loading()
    while not state.ready.wait(1.0):
        worker.notify()
    if state.load_error is not None:
        worker.log.error("docauth: the pipeline cannot load: %s", state.load_error.message)
        sys.exit(WORKER_BOOT_ERROR)


def when_ready(server) -> None:
    server.log.info("docauth: listening; workers load their models now (/readyz turns 200 when warmed)")


def child_exit(server, worker) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
