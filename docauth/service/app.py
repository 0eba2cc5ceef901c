"""The Flask app factory.

    app = create_app(settings)                  # dev server / tests: models load in a background thread
    app = create_app(settings, load="deferred") # gunicorn: the post_worker_init hook starts loading

No model is global: the pipeline lives on ``app.extensions["docauth"]`` (a
:class:`~docauth.service.state.ServiceState`), is created once per process *after* gunicorn's fork,
and is warmed before ``/readyz`` answers 200. Until then model-bound endpoints
answer 503 with ``Retry-After``.
"""

from __future__ import annotations

import io
import logging
import re
import time
import uuid

from flask import Flask, Request, g, jsonify, request
from werkzeug.exceptions import HTTPException, InternalServerError

from docauth.config import Settings
from docauth.errors import DocauthError, RateLimited, Unauthorized, Unavailable
from docauth.service import api, desk, review  # noqa: F401 (imported for the routes they declare on the registry)
from docauth.service.keys import key_from_headers
from docauth.service.logs import install_record_factory
from docauth.service.registry import registry
from docauth.service.state import ServiceState

log = logging.getLogger("docauth.service")

_REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
# Metric labels come from closed sets: any other method name a client sends is counted as "other".
METRIC_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class InMemoryRequest(Request):
    """Uploads stay in memory: Werkzeug would spool files over 500 kB to a temporary file on disk."""

    def _get_file_stream(self, total_content_length, content_type, filename=None, content_length=None):
        return io.BytesIO()


class DocauthFlask(Flask):
    """Flask that logs an unexpected error once, by type and place: its message and traceback may quote
    request data (names, numbers), so neither is logged; the X-Request-ID ties the line to the request."""

    def log_exception(self, exc_info) -> None:
        log_unexpected(exc_info[1])


def log_unexpected(exc: BaseException | None) -> None:
    """One ERROR line: the exception's type and the innermost docauth frame (file:line), never its message."""
    if exc is None:
        log.error("unhandled error")
        return
    place = "-"
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if "/docauth/" in filename:
            place = f"{filename.rsplit('/docauth/', 1)[1]}:{tb.tb_lineno}"
        tb = tb.tb_next
    log.error("unhandled %s at docauth/%s", type(exc).__name__, place)


def create_app(settings: Settings | None = None, *, store=None, pipeline=None, pipeline_factory=None,
               load: str = "background") -> Flask:
    """``load``: ``background`` (start loading now, in a thread), ``deferred`` (a server hook starts it),
    ``lazy`` (on the first model-bound request)."""
    settings = settings or Settings.load()
    install_record_factory()
    app = DocauthFlask("docauth.service", static_folder="static", template_folder="templates")
    app.request_class = InMemoryRequest
    app.config["MAX_CONTENT_LENGTH"] = settings.max_upload_bytes
    app.config["MAX_FORM_MEMORY_SIZE"] = settings.max_upload_bytes
    app.json.sort_keys = False
    svc = ServiceState(settings, store=store, pipeline=pipeline, pipeline_factory=pipeline_factory)
    app.extensions["docauth"] = svc

    _install_request_hooks(app)
    _install_error_handlers(app)

    registry.install(app)
    review.install(app)
    if load == "background" and pipeline is None:
        svc.start_loading()
    return app


# -- per-request: id, auth, rate limit, access log, metrics -------------------------------------
def _install_request_hooks(app: Flask) -> None:
    @app.before_request
    def begin():
        incoming = request.headers.get("X-Request-ID", "")
        g.request_id = incoming if _REQUEST_ID_RE.match(incoming) else uuid.uuid4().hex
        g.start = time.perf_counter()
        svc = app.extensions["docauth"]
        svc.metrics.inflight.inc()
        g.inflight = True
        if request.path.startswith("/v1/") or request.path == "/v1":
            _authenticate(svc)

    @app.after_request
    def finish(response):
        response.headers["X-Request-ID"] = g.get("request_id", "-")
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    @app.teardown_request
    def account(exc):
        svc = app.extensions["docauth"]
        if g.pop("inflight", False):
            svc.metrics.inflight.dec()

    @app.after_request
    def observe(response):
        svc = app.extensions["docauth"]
        endpoint = request.url_rule.rule if request.url_rule is not None else "unmatched"
        elapsed = time.perf_counter() - g.get("start", time.perf_counter())
        method = request.method if request.method in METRIC_METHODS else "other"
        svc.metrics.requests.labels(endpoint, method, str(response.status_code)).inc()
        svc.metrics.latency.labels(endpoint).observe(elapsed)
        # The route template only: paths and bodies can carry personal data.
        log.info("%s %s -> %d in %.1f ms", method, endpoint, response.status_code, elapsed * 1000)
        return response


def _authenticate(svc: ServiceState) -> None:
    key = key_from_headers(request.headers)
    if key is None:
        svc.metrics.rejected.labels("unauthorized").inc()
        raise Unauthorized("an API key is required: send 'Authorization: Bearer KEY' or 'X-API-Key: KEY'",
                           code="missing_api_key")
    record = svc.keys.authenticate(key)
    if record is None:
        svc.metrics.rejected.labels("unauthorized").inc()
        raise Unauthorized("the API key is unknown or revoked", code="invalid_api_key")
    g.api_key_id = record.id
    g.api_key_name = record.name  # who, in the review desk's audit rows
    wait = svc.rate_limiter.check(str(record.id))
    if wait is not None:
        svc.metrics.rejected.labels("rate_limited").inc()
        raise RateLimited("rate limit exceeded for this API key", retry_after=wait)


# -- every error is JSON {"error": {"code", "message"}} -----------------------------------------
def error_response(exc: DocauthError):
    response = jsonify(exc.export())
    response.status_code = exc.http_status
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        response.headers["Retry-After"] = str(max(1, int(round(retry_after + 0.499))))
    if exc.http_status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="docauth"'
    return response


_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed", 413: "payload_too_large",
               415: "unsupported_media_type", 429: "rate_limited", 431: "headers_too_large"}


def _install_error_handlers(app: Flask) -> None:
    @app.errorhandler(DocauthError)
    def docauth_error(exc: DocauthError):
        if exc.http_status >= 500 and not isinstance(exc, Unavailable):
            log.warning("%s: %s", exc.code, exc.message)
        return error_response(exc)

    @app.errorhandler(InternalServerError)
    def internal_error(exc: InternalServerError):
        # Already logged once, by type, by DocauthFlask.log_exception.
        response = jsonify({"error": {"code": "internal_error",
                                      "message": "internal error; quote the X-Request-ID when reporting it"}})
        response.status_code = 500
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        status = exc.code or 500
        code = _HTTP_CODES.get(status, re.sub(r"[^a-z]+", "_", (exc.name or "error").lower()).strip("_"))
        message = exc.description or exc.name
        if status == 413:
            message = f"the upload exceeds the limit of {app.config['MAX_CONTENT_LENGTH']} bytes"
        response = jsonify({"error": {"code": code, "message": message}})
        response.status_code = status
        if status == 405 and hasattr(exc, "valid_methods") and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response
