"""The API's one error body, for the OpenAPI schema (see core.api.errors for the handler)."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    ok = serializers.BooleanField(default=False)
    code = serializers.CharField(help_text="stable machine-readable code, e.g. insufficient_resource")
    reason = serializers.CharField(help_text="human-readable message in the request's language")
    field = serializers.CharField(required=False, help_text="the input field the error is about")


ERROR_RESPONSES = {400: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer}
