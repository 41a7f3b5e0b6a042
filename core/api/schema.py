"""The API's one error body and the OpenAPI schema class (see core.api.errors for the handler)."""

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from core.api.fields import TextField


class ErrorSerializer(serializers.Serializer):
    ok = serializers.BooleanField(default=False)
    code = serializers.CharField(help_text="stable machine-readable code, e.g. insufficient_resource")
    reason = serializers.CharField(help_text="human-readable message in the request's language")
    field = serializers.CharField(required=False, help_text="the input field the error is about")


ERROR_RESPONSES = {400: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer}

# Every operation: no or a wrong token (401), a missing permission (403), too many calls (429),
# the database failing (503, ``core.database.database_failure``).
EVERY_OPERATION_ERRORS = (401, 403, 429, 503)

# The codes ``core.api.errors`` gives whatever the operation (status -> codes), and when.
_ANY = {
    401: ("not_authenticated", "authentication_failed"), 403: ("permission_denied",), 429: ("throttled",),
    503: ("database_unavailable", "database_full"),
}
_WITH_BODY = {400: ("invalid_input", "malformed_request", "invalid_number"), 415: ("unsupported_media_type",)}
_WITH_QUERY = {400: ("invalid_input",)}
_WITH_OBJECT = {404: ("not_found",)}  # a path id that names nothing, or ?page= past the last page


def error_codes(codes: dict[int, tuple[str, ...] | list[str]] | None = None, *, open_statuses: tuple[int, ...] = ()):
    """Declare the codes a view (or one of its methods) answers besides the handler's own, by status:
    ``@error_codes({404: ("fund_not_found",), 409: ("version_conflict",)})``.

    ``ApiSchema`` lists them on each error response: an enum of ``code``, and the codes in its
    description. A status in ``open_statuses`` may also carry codes no list can hold (a confirmed
    proposal's own input errors): its description lists the known ones, without an enum.
    """

    def mark(view):
        view.error_codes = {int(status): tuple(names) for status, names in (codes or {}).items()}
        view.open_error_statuses = frozenset(open_statuses)
        return view

    return mark


class ApiSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the errors the exception handler gives on any operation
    (``core.api.errors``), so that a view declares only the responses of its own rules."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        statuses = set(EVERY_OPERATION_ERRORS)
        if operation.get("requestBody"):
            statuses |= {400, 415}  # malformed or invalid body; a body not in JSON
        if any(parameter["in"] == "query" for parameter in operation.get("parameters", ())):
            statuses.add(400)
        if "{" in path:
            statuses.add(404)  # no such object
        if self._is_list_view() and self._get_paginator() is not None:
            statuses.add(404)  # ?page= past the last page or not a page number
        responses = operation["responses"]
        for status in sorted(statuses):
            responses.setdefault(str(status), self._get_response_for_code(ErrorSerializer, str(status)))
        operation["responses"] = dict(sorted(responses.items()))
        self._list_error_codes(operation, path)
        return operation

    def declared_error_codes(self) -> tuple[dict[int, tuple[str, ...]], frozenset[int]]:
        """What ``@error_codes`` declared on the view's method, else on the view."""
        handler = getattr(self.view, self.method.lower(), None)
        for owner in (handler, self.view):
            if hasattr(owner, "error_codes"):
                return owner.error_codes, owner.open_error_statuses
        return {}, frozenset()

    def _list_error_codes(self, operation: dict, path: str) -> None:
        """Each error response names its codes: an enum on ``code`` and a line in its description."""
        declared, open_statuses = self.declared_error_codes()
        has_body = bool(operation.get("requestBody"))
        has_query = any(parameter["in"] == "query" for parameter in operation.get("parameters", ()))
        has_object = "{" in path or (self._is_list_view() and self._get_paginator() is not None)
        generic = [_ANY, *([_WITH_BODY] if has_body else []), *([_WITH_QUERY] if has_query else []),
                   *([_WITH_OBJECT] if has_object else [])]
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            codes = [code for table in generic for code in table.get(int(status), ())]
            codes += declared.get(int(status), ())
            codes = list(dict.fromkeys(codes))
            open_ended = int(status) in open_statuses
            listed = ", ".join(f"`{code}`" for code in codes)
            response["description"] = f"code: {listed}" + (", or the proposed tool's own input error" if open_ended else "")
            if open_ended or not codes:
                continue
            for media in response.get("content", {}).values():
                media["schema"] = {"allOf": [media["schema"], {"type": "object", "properties": {"code": {"type": "string", "enum": codes}}}]}

    def _insert_field_validators(self, field, schema):
        super()._insert_field_validators(field, schema)
        if isinstance(field, TextField) and "oneOf" in schema:
            # DRF's mapping offers "" beside a blank-allowing field's pattern; ours already says.
            schema.update(schema.pop("oneOf")[0])

    def _get_request_for_media_type(self, serializer, direction="request"):
        # The views validate a PATCH body in full (a fund's version is required), never partially.
        method, self.method = self.method, "POST" if self.method == "PATCH" else self.method
        try:
            schema, required = super()._get_request_for_media_type(serializer, direction)
        finally:
            self.method = method
        if schema is not None and getattr(serializer, "min_length", None):  # a list body, at least this long
            schema = {**schema, "minItems": serializer.min_length}
        return schema, required


class TextFieldSchema(OpenApiSerializerFieldExtension):
    """``core.api.fields.TextField``: a string with the pattern of the text rule it stands for."""

    target_class = "core.api.fields.TextField"

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        return {**schema, "pattern": self.target.pattern}
