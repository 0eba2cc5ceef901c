"""One exception hierarchy for the whole project.

Each error carries a stable machine-readable ``code`` and the HTTP status the
service answers with; the CLI prints ``message`` and exits non-zero. Nothing
outside this module decides status codes.
"""

from __future__ import annotations


class DocauthError(Exception):
    """Base of every error docauth raises on purpose."""

    code = "docauth_error"
    http_status = 500

    def __init__(self, message: str, *, code: str | None = None, details: dict | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details or {}

    def export(self) -> dict:
        body = {"code": self.code, "message": self.message}
        if self.details:
            body["details"] = self.details
        return {"error": body}


# --- input problems (4xx) -------------------------------------------------
class InputError(DocauthError):
    code = "invalid_input"
    http_status = 400


class EmptyFile(InputError):
    code = "empty_file"
    http_status = 400


class InvalidImage(InputError):
    code = "invalid_image"
    http_status = 422


class UnsupportedMediaType(InputError):
    code = "unsupported_media_type"
    http_status = 415


class ImageTooLarge(InputError):
    code = "image_too_large"
    http_status = 413


class ImageTooSmall(InputError):
    code = "image_too_small"
    http_status = 422


class PayloadTooLarge(InputError):
    code = "payload_too_large"
    http_status = 413


class NotFound(DocauthError):
    code = "not_found"
    http_status = 404


class Conflict(DocauthError):
    code = "conflict"
    http_status = 409


class Unauthorized(DocauthError):
    code = "unauthorized"
    http_status = 401


class RateLimited(DocauthError):
    code = "rate_limited"
    http_status = 429

    def __init__(self, message: str, *, retry_after: float = 1.0, **kw):
        super().__init__(message, **kw)
        self.retry_after = retry_after


# --- server-side conditions ------------------------------------------------
class Unavailable(DocauthError):
    """A dependency (database, model, queue) cannot serve right now."""

    code = "unavailable"
    http_status = 503

    def __init__(self, message: str, *, retry_after: float = 1.0, **kw):
        super().__init__(message, **kw)
        self.retry_after = retry_after


class Overloaded(Unavailable):
    code = "overloaded"


class ModelError(DocauthError):
    """A model file is missing, corrupt or does not match its metadata."""

    code = "model_error"
    http_status = 503


class ConfigError(DocauthError):
    code = "config_error"
    http_status = 500
