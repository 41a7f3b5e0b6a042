"""``core.api.serializers.CachedFieldsModelSerializer``: fields built once per class, copied per instance."""

import pytest
from rest_framework import serializers

from core.api.serializers import CachedFieldsModelSerializer
from funds.models import Fund
from funds.services import create_fund


def _serializers():
    fields = ["id", "fund_name", "active_status", "version", "created_at", "created_by"]

    class Cached(CachedFieldsModelSerializer):
        created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

        class Meta:
            model = Fund

    class Plain(serializers.ModelSerializer):
        created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

        class Meta:
            model = Fund

    Cached.Meta.fields = Plain.Meta.fields = fields
    return Cached, Plain


def test_the_model_s_fields_are_built_once_per_class_and_each_instance_gets_its_own(monkeypatch):
    Cached, _plain = _serializers()
    built = []
    build_field = serializers.ModelSerializer.build_field

    def counting(self, field_name, *args, **kwargs):
        built.append(field_name)
        return build_field(self, field_name, *args, **kwargs)

    monkeypatch.setattr(serializers.ModelSerializer, "build_field", counting)
    first, second = Cached(), Cached()
    assert list(first.fields) == list(second.fields) == ["id", "fund_name", "active_status", "version", "created_at", "created_by"]
    assert built == ["id", "fund_name", "active_status", "version", "created_at"]  # for the first instance only
    assert first.fields["fund_name"] is not second.fields["fund_name"]
    assert (first.fields["fund_name"].parent, second.fields["fund_name"].parent) == (first, second)


@pytest.mark.django_db
def test_it_shows_what_drf_s_model_serializer_shows(staff_user):
    Cached, Plain = _serializers()
    funds = [create_fund(fund_name="Alpha", user=staff_user), create_fund(fund_name="Beta")]
    for _ in range(2):  # the copies show the same as the first build
        assert Cached(funds, many=True).data == Plain(funds, many=True).data
        assert Cached(funds[0]).data == Plain(funds[0]).data
    assert [row["created_by"] for row in Cached(funds, many=True).data] == ["staff", None]


def test_each_instance_binds_its_own_copies_and_the_built_fields_stay_unbound():
    Cached, _plain = _serializers()
    first, second = Cached(), Cached()
    assert list(first.fields) == list(second.fields)
    built = Cached._built_fields
    for name in ("id", "fund_name", "created_by"):  # read-only and not, from the model and declared
        assert first.fields[name] is not second.fields[name] is not built[name]
        assert (first.fields[name].parent, first.fields[name].field_name) == (first, name)
    assert all(field.parent is None and field.field_name is None for field in built.values())


def test_a_field_holding_other_fields_is_copied_anew_so_its_children_reach_their_own_serializer():
    from agents.models import Agent

    class WithTools(CachedFieldsModelSerializer):
        tools = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)

        class Meta:
            model = Agent
            fields = ["id", "name", "tools"]

    first, second = WithTools(context={"n": 1}), WithTools(context={"n": 2})
    assert first.fields["tools"].child_relation is not second.fields["tools"].child_relation
    assert (first.fields["tools"].child_relation.context, second.fields["tools"].child_relation.context) == ({"n": 1}, {"n": 2})
