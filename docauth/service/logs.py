"""Logging with the request id on every line (and nothing personal: views log route templates only)."""

from __future__ import annotations

import logging
import sys

from flask import g, has_request_context

FORMAT = "%(asctime)s %(levelname)s [%(process)d] [%(request_id)s] %(name)s: %(message)s"


class RequestIdFilter(logging.Filter):
    """Adds ``record.request_id``: the current request's id, or ``-`` outside requests."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _current_request_id()
        return True


def _current_request_id() -> str:
    if has_request_context():
        return g.get("request_id", "-")
    return "-"


_factory_installed = False


def install_record_factory() -> None:
    """Every log record (ours and libraries') gets ``request_id`` when it is created (idempotent)."""
    global _factory_installed
    if _factory_installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args, **kwargs):
        record = previous(*args, **kwargs)
        if not hasattr(record, "request_id"):
            record.request_id = _current_request_id()
        return record

    logging.setLogRecordFactory(factory)
    _factory_installed = True


def configure(level: str = "INFO", stream=None) -> None:
    """One handler on the root logger with the request-id format (idempotent)."""
    install_record_factory()
    root = logging.getLogger()
    for h in root.handlers:
        if getattr(h, "_docauth", False):
            return
    handler = logging.StreamHandler(stream or sys.stderr)
    handler._docauth = True
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    root.setLevel(level.upper())
    # Werkzeug's access log would print full paths and query strings; ours prints route templates.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
