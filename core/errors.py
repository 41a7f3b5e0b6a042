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
