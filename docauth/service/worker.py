"""gunicorn's threaded worker answering its own errors (request line too long, headers too large, malformed
HTTP) with the API's JSON error body instead of gunicorn's HTML page.

These errors happen before Flask sees the request, so the app's error handlers cannot answer them. The
message names the problem, never the request's bytes (a request line can carry personal data).
"""

from __future__ import annotations

import json

from gunicorn import util
from gunicorn.http import errors as http_errors
from gunicorn.workers.gthread import ThreadWorker

# (exception class name, status, reason, code, message); the first that matches answers.
_CLIENT_ERRORS = (
    ("LimitRequestLine", 414, "URI Too Long", "uri_too_long",
     "the request line is longer than the server accepts (8190 bytes)"),
    ("LimitRequestHeaders", 431, "Request Header Fields Too Large", "headers_too_large",
     "the request headers are too many or too large"),
    ("ExpectationFailed", 417, "Expectation Failed", "expectation_failed", "the Expect header is not supported"),
    ("ForbiddenProxyRequest", 403, "Forbidden", "forbidden", "proxy requests are not accepted from this address"),
    ("InvalidRequestMethod", 400, "Bad Request", "invalid_method", "the request method is not valid HTTP"),
    ("InvalidHTTPVersion", 400, "Bad Request", "invalid_http_version", "the HTTP version is not supported"),
    ("InvalidHeaderName", 400, "Bad Request", "invalid_header", "a request header name is not valid"),
    ("InvalidHeader", 400, "Bad Request", "invalid_header", "a request header is not valid"),
    ("UnsupportedTransferCoding", 400, "Bad Request", "unsupported_transfer_coding",
     "the transfer coding is not supported"),
    ("InvalidChunkSize", 400, "Bad Request", "invalid_chunked_body", "the chunked body is malformed"),
    ("ChunkMissingTerminator", 400, "Bad Request", "invalid_chunked_body", "the chunked body is malformed"),
    ("InvalidChunkExtension", 400, "Bad Request", "invalid_chunked_body", "the chunked body is malformed"),
    ("NoMoreData", 400, "Bad Request", "incomplete_request", "the request ended before it was complete"),
)


# The application's own faults (a header it tried to send, a server setting), answered as 500.
_SERVER_FAULTS = ("InvalidResponseHeader", "InvalidResponseHeaderName", "ConfigurationProblem")


def _client_error(exc: BaseException):
    if any(isinstance(exc, getattr(http_errors, name, ())) for name in _SERVER_FAULTS):
        return None
    for name, status, reason, code, message in _CLIENT_ERRORS:
        cls = getattr(http_errors, name, None)
        if cls is not None and isinstance(exc, cls):
            return status, reason, code, message
    if isinstance(exc, getattr(http_errors, "ParseException", ())):
        return 400, "Bad Request", "bad_request", "the request is not valid HTTP"
    return None


def error_bytes(status: int, reason: str, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 response with the API's error body; the connection closes after it."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


class JsonErrorWorker(ThreadWorker):
    """``gthread`` with JSON error answers (``worker_class`` of ``docauth serve``)."""

    def handle_error(self, req, client, addr, exc):
        known = _client_error(exc)
        if known is None:
            # Logged by type only: the message may quote the request.
            self.log.error("docauth: unhandled %s in the HTTP server", type(exc).__name__)
            status, reason, code, message = (500, "Internal Server Error", "internal_error",
                                             "internal error in the HTTP server")
        else:
            status, reason, code, message = known
            self.log.info("docauth: refused a malformed request: %d %s", status, code)
        try:
            util.write_nonblock(client, error_bytes(status, reason, code, message))
        except OSError:
            self.log.debug("docauth: the client left before the error answer")
