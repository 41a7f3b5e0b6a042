"""One error shape for the whole API: ``{"ok": false, "code": ..., "reason": ...}``."""

from django.core.exceptions import PermissionDenied, SuspiciousOperation
from django.http import Http404, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.database import database_failure
from core.errors import ApplicationError, NotFound

_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.ParseError: "malformed_request",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid_input",
}


def _first_message(detail) -> tuple[str | None, str]:
    """The first (field, message) pair of a DRF error detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            field, message = _first_message(value)
            # The input field is the outermost name: {"agent_ids": {1: [...]}} is about agent_ids.
            return (field if key == "non_field_errors" else str(key)), message
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return None, str(detail)


def error_body(error: ApplicationError) -> dict:
    """The API's body for a refusal: every JSON error, from DRF views or not, has this shape."""
    body = {"ok": False, "code": error.code, "reason": error.message, **error.extra}
    if error.field:
        body["field"] = error.field
    return body


def exception_handler(exc, context):
    if failure := database_failure(exc):
        set_rollback()
        exc = failure
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc), status=exc.status_code)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, SuspiciousOperation):
        # Django raises these while parsing a hostile request (TooManyFieldsSent,
        # RequestDataTooBig, TooManyFilesSent); left alone they become
        # Django's HTML "Bad Request (400)" page instead of the API's error shape.
        exc = exceptions.ParseError()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a real bug: let Django log it and answer 500
    code = next((c for cls, c in _CODES.items() if isinstance(exc, cls)), "error")
    field, reason = _first_message(exc.detail)
    body = {"ok": False, "code": code, "reason": f"{field}: {reason}" if field else reason}
    if isinstance(exc, exceptions.ValidationError):
        body["errors"] = response.data
        if field:
            body["field"] = field
    return Response(body, status=response.status_code, headers=_auth_headers(response))


def _auth_headers(response) -> dict:
    return {k: v for k, v in response.items() if k in ("WWW-Authenticate", "Allow", "Retry-After")}


@csrf_exempt  # it changes nothing, and a POST must get this 404, not the CSRF failure page
def unknown_api_path(request, *args, **kwargs):
    """A path under /api/ that no endpoint serves (``/api/funds/null,null/``): the JSON 404."""
    return JsonResponse(error_body(NotFound("not_found", _("未找到。"))), status=404)
