"""Query parameters read as the schema states them.

DRF reads a QueryDict as a submitted form, where an empty optional field means "not given"; so
``?status=`` on an enum, ``?agent_id=`` on an integer and ``?active_only=`` on a boolean were
quietly ignored (200) while the schema says the value must be one of its kind. Read as a plain
mapping, an empty value is checked like any other: 400.
"""

from rest_framework import serializers
from rest_framework.request import Request


def query_filters(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    """``request``'s query string validated by ``serializer_class`` (``invalid_input`` when it is not)."""
    serializer = serializer_class(data=request.query_params.dict())
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
