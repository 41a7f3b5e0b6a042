"""The one exception type business code raises; every surface maps it the same way.

The API turns it into HTTP 400 / 403 / 404 / 409 with ``{"ok": false, "code", "reason"}``, the
tool executor into ``{"status": "error", "error": {"code", "message"}}``, pages into an
inline form error.
"""


class ApplicationError(Exception):
    status_code = 400

    def __init__(self, code: str, message: str, *, field: str | None = None, extra: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = str(message)
        self.field = field
        self.extra = extra or {}

    def as_dict(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        error.update(self.extra)
        return error


class NotFound(ApplicationError):
    status_code = 404


class Conflict(ApplicationError):
    status_code = 409


class Forbidden(ApplicationError):
    """The caller may not do this (a missing permission): HTTP 403, never a second error channel."""

    status_code = 403


class TooManyRequests(ApplicationError):
    """Too many failed attempts from one address (wrong tokens): HTTP 429, retry after ``wait`` seconds."""

    status_code = 429

    def __init__(self, code: str, message: str, *, wait: float | None = None, **kwargs):
        super().__init__(code, message, **kwargs)
        self.wait = wait


class BadGateway(ApplicationError):
    """A service this one relies on (the model endpoint) answered with an error or nonsense: HTTP 502."""

    status_code = 502


class ServiceUnavailable(ApplicationError):
    """A service this one relies on cannot be reached: HTTP 503."""

    status_code = 503


class GatewayTimeout(ApplicationError):
    """A service this one relies on did not answer in time: HTTP 504."""

    status_code = 504
