from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.models import Agent
from city.models import MarketOrder, ResourceTransfer
from city.services import MAX_AMOUNT
from core.api.fields import TextField
from core.api.serializers import CachedFieldsModelSerializer
from core.params import MAX_ID


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT})
class WholeNumberField(serializers.Field):
    """A JSON number (the schema states the service's quantity rule). 5.0 is read as 5; 2.5 or 0 go on to the service, which owns the quantity
    rule (``invalid_quantity``); strings and booleans are not numbers (``invalid_input``)."""

    default_error_messages = {"invalid": _("必须是数字")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return int(data) if isinstance(data, float) and data.is_integer() else data

    def to_representation(self, value):
        return value


class TransferInputSerializer(serializers.Serializer):
    from_agent_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="sending agent")
    to_agent_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="receiving agent")
    resource_type = TextField(max_length=50, help_text="resource slug, e.g. flour")
    quantity = WholeNumberField(help_text=f"a whole number, 1 – {MAX_AMOUNT}")


class TransferResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    reason = serializers.CharField(help_text="e.g. 转移 5 flour 成功")
    transfer_id = serializers.IntegerField(max_value=MAX_ID)


class TransferSerializer(CachedFieldsModelSerializer):
    from_agent_name = serializers.CharField(source="from_agent.name")
    to_agent_name = serializers.CharField(source="to_agent.name")
    resource_type = serializers.CharField(source="resource_type.slug")
    user = serializers.CharField(source="user.get_username", allow_null=True, default=None)

    class Meta:
        model = ResourceTransfer
        fields = [
            "id", "from_agent_id", "from_agent_name", "to_agent_id", "to_agent_name",
            "resource_type", "quantity", "source", "user", "created_at",
        ]
        read_only_fields = fields


def transfer_entries(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ledger's rows (``city.selectors.transfer_rows``) as ``TransferSerializer`` shows
    transfers, built from plain values: DRF's fields per value of each row cost more than the
    query. ``test_transfer_entries_are_what_the_serializer_shows`` holds them to the serializer."""
    created_at = serializers.DateTimeField()  # the format and time zone of the serializer's field
    return [
        {
            "id": row["id"],
            "from_agent_id": row["from_agent_id"],
            "from_agent_name": row["from_agent__name"],
            "to_agent_id": row["to_agent_id"],
            "to_agent_name": row["to_agent__name"],
            "resource_type": row["resource_type__slug"],
            "quantity": row["quantity"],
            "source": row["source"],
            "user": row["user__username"],
            "created_at": created_at.to_representation(row["created_at"]),
        }
        for row in rows
    ]


class TransferFilterSerializer(serializers.Serializer):
    agent_id = serializers.IntegerField(max_value=MAX_ID, min_value=1, required=False, help_text="only transfers it sent or received")


class MarketOrderSerializer(CachedFieldsModelSerializer):
    seller_name = serializers.CharField(source="seller.name")
    buyer_name = serializers.CharField(source="buyer.name", allow_null=True, default=None)
    resource_type = serializers.CharField(source="resource_type.slug")

    class Meta:
        model = MarketOrder
        fields = [
            "id", "seller_id", "seller_name", "resource_type", "quantity", "price", "status",
            "buyer_id", "buyer_name", "created_at", "closed_at",
        ]
        read_only_fields = fields


class MarketOrderFilterSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=[*MarketOrder.Status.values, "all"], required=False, default="open")


class AcceptOrderInputSerializer(serializers.Serializer):
    agent_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, help_text="the buying agent")


class CancelOrderInputSerializer(serializers.Serializer):
    agent_id = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text="the seller (default: the order's seller)")


class JobSerializer(serializers.Serializer):
    building_id = serializers.IntegerField(max_value=MAX_ID)
    building_name = serializers.CharField()
    wage = serializers.IntegerField()


class AgentSerializer(CachedFieldsModelSerializer):
    """Read from a queryset passed through ``city.selectors.agent_rows`` (no N+1)."""

    # The views send ``city.selectors.agent_cards`` (plain values in a fixed number of queries) and
    # ``to_representation`` passes a card through: the fields below are what the schema says of
    # it, which ``test_agents_list_and_detail_payload_is_the_contract`` holds the cards to.
    # The city owns how an agent's job and stock are shown; agents/ knows nothing of them.

    tools = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    job = serializers.SerializerMethodField()
    resources = serializers.SerializerMethodField()

    class Meta:
        model = Agent
        fields = ["id", "name", "persona", "model", "credits", "satiety", "energy", "is_active", "job", "resources", "tools"]

    def to_representation(self, card: dict[str, Any]) -> dict[str, Any]:
        return card

    @extend_schema_field(JobSerializer(allow_null=True))
    def get_job(self, card: dict[str, Any]) -> dict | None:
        return card["job"]

    def get_resources(self, card: dict[str, Any]) -> dict[str, int]:
        return card["resources"]
