from rest_framework import serializers

from core.api.fields import TextField
from core.api.schema import ErrorSerializer
from core.api.serializers import CachedFieldsModelSerializer
from core.params import MAX_ID
from funds.models import FUND_NAME_MAX_LENGTH, REMARKS_MAX_LENGTH, Fund


class FundSerializer(CachedFieldsModelSerializer):
    # null for a fund made by the demo seed, a tool run without a user, or a deleted user
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    updated_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Fund
        fields = [
            "id", "fund_name", "active_status", "remarks", "version",
            "created_at", "updated_at", "created_by", "updated_by",
        ]
        read_only_fields = fields


class FundCreateSerializer(serializers.Serializer):
    """Input shape only; the rules (name required, unique, lengths) are the service's."""

    fund_name = TextField(rule_max_length=FUND_NAME_MAX_LENGTH, help_text="required, unique, at most 100 characters")
    remarks = TextField(rule_max_length=REMARKS_MAX_LENGTH, rule_required=False, required=False, default="")


class FundUpdateSerializer(serializers.Serializer):
    version = serializers.IntegerField(max_value=MAX_ID, min_value=1, help_text="the version you read; a stale one is a 409 version_conflict")
    fund_name = TextField(rule_max_length=FUND_NAME_MAX_LENGTH, required=False)
    remarks = TextField(rule_max_length=REMARKS_MAX_LENGTH, rule_required=False, required=False)


class VersionSerializer(serializers.Serializer):
    version = serializers.IntegerField(max_value=MAX_ID, min_value=1, help_text="the version you read")


class FundDraftSerializer(serializers.Serializer):
    id = serializers.IntegerField(max_value=MAX_ID, required=False, allow_null=True, min_value=1, help_text="the fund being edited, if any")
    # Any text: the answer lists its problems instead of refusing it.
    fund_name = TextField(required=False, default="")
    remarks = TextField(required=False, default="")


class FundValidationSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))


class FundBatchRowSerializer(serializers.Serializer):
    """One row: without ``id`` it creates, with ``id`` (and ``version``) it updates."""

    id = serializers.IntegerField(max_value=MAX_ID, required=False, allow_null=True, min_value=1)
    version = serializers.IntegerField(max_value=MAX_ID, required=False, allow_null=True, min_value=1)
    fund_name = TextField(rule_max_length=FUND_NAME_MAX_LENGTH, required=False, allow_null=True)
    remarks = TextField(rule_max_length=REMARKS_MAX_LENGTH, rule_required=False, required=False, allow_null=True)
    active_status = serializers.ChoiceField(choices=Fund.ActiveStatus.choices, required=False, allow_null=True)


class FundBatchResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    funds = FundSerializer(many=True)


class FundCurrentSerializer(serializers.Serializer):
    """Schema only: a fund as ``selectors.fund_data`` gives it (no created_by/updated_by)."""

    id = serializers.IntegerField(max_value=MAX_ID)
    fund_name = serializers.CharField()
    active_status = serializers.ChoiceField(choices=Fund.ActiveStatus.choices)
    remarks = serializers.CharField(allow_blank=True)
    version = serializers.IntegerField(max_value=MAX_ID)
    created_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField(allow_null=True)


class FundErrorSerializer(ErrorSerializer):
    row = serializers.IntegerField(required=False, help_text="batch-upsert: the 1-based row that failed")
    current = FundCurrentSerializer(required=False, help_text="version_conflict: the fund's current values")
