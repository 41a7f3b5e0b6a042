"""A ModelSerializer that works out its fields once per class instead of once per instance."""

from __future__ import annotations

import copy

from rest_framework import serializers

# Fields that hold other fields (bound to them when made): copied the way DRF copies them, anew.
_COMPOSITE = (serializers.BaseSerializer, serializers.ListField, serializers.DictField, serializers.ManyRelatedField)


class CachedFieldsModelSerializer(serializers.ModelSerializer):
    """DRF's ModelSerializer, whose fields are built from the model once per class.

    DRF reads the model's fields and builds a serializer field for each on every instance: about
    1 ms for a dozen fields, in every request that renders one (a confirm's answer, a page of funds).
    Here each instance gets copies of the fields built the first time, as DRF already copies the
    declared ones. Only for a serializer whose fields do not depend on its instance or context.
    """

    def get_fields(self):
        cls = type(self)
        built = cls.__dict__.get("_built_fields")  # this class's own, never a parent's
        if built is None:
            built = super().get_fields()
            cls._built_fields = built
        return {name: _copy(field) for name, field in built.items()}


def _copy(field: serializers.Field) -> serializers.Field:
    """A fresh, unbound copy of a field built once. DRF's copy calls the constructor again (half of an
    answer's serializer time); a read-only field holding no other field only shows a value, and binding
    sets the copy's own attributes, so a shallow copy of the never-bound original is the same field."""
    if field.read_only and not isinstance(field, _COMPOSITE):
        return copy.copy(field)
    return copy.deepcopy(field)
