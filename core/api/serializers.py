"""A ModelSerializer that works out its fields once per class instead of once per instance."""

from __future__ import annotations

import copy

from rest_framework import serializers


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
        return copy.deepcopy(built)
