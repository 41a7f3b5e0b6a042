from collections.abc import Iterable
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bounties.models import MAX_REWARD, Bounty
from bounties.services import DESCRIPTION_MAX_LENGTH, TITLE_MAX_LENGTH
from core.api.fields import TextField
from core.api.serializers import CachedFieldsModelSerializer
from core.params import MAX_ID


class BountySerializer(CachedFieldsModelSerializer):
    claimed_by_name = serializers.SerializerMethodField()

    class Meta:
        model = Bounty
        fields = [
            "id", "title", "description", "reward", "status", "claimed_by", "claimed_by_name",
            "created_at", "claimed_at", "completed_at", "cancelled_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_claimed_by_name(self, bounty: Bounty) -> str | None:
        return bounty.claimed_by.name if bounty.claimed_by_id else None


# DRF's own rendering of a time (ISO 8601 in the current time zone), for the plain cards below.
_TIME = serializers.DateTimeField()
_TIMES = frozenset({"created_at", "claimed_at", "completed_at", "cancelled_at"})


def bounty_cards(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bounties exactly as ``BountySerializer`` shows them, from ``bounties.selectors.bounty_rows``.

    Plain values for the list: a page of 50 through the serializer was 100 model instances and
    DRF's fields per value, the dearest part of the request (``bench.requests``: 2.1x the bare
    view). ``test_bounty_list_payload_is_the_serializers`` holds the two to the same output."""
    time = _TIME.to_representation
    fields = BountySerializer.Meta.fields
    return [{name: time(row[name]) if name in _TIMES else row[name] for name in fields} for row in rows]


class BountyCreateSerializer(serializers.Serializer):
    """Input shape only; the rules (title required, reward range) are the service's."""

    title = TextField(required=False, default="", help_text="required, at most 200 characters")
    description = TextField(required=False, default="")
    reward = serializers.IntegerField(required=False, allow_null=True, default=None, help_text=f"credits, 1 – {MAX_REWARD}")


class BountyDraftSerializer(serializers.Serializer):
    """Schema only: the body the service's rules accept (``validate_bounty_draft``). The view reads
    it with ``BountyCreateSerializer``, so a missing title or reward gets the service's own code."""

    title = TextField(rule_max_length=TITLE_MAX_LENGTH)
    description = TextField(rule_max_length=DESCRIPTION_MAX_LENGTH, rule_required=False, required=False)
    reward = serializers.IntegerField(min_value=1, max_value=MAX_REWARD, help_text="credits")


class AgentIdSerializer(serializers.Serializer):
    agent_id = serializers.IntegerField(max_value=MAX_ID, min_value=1, help_text="ID of the acting agent (also accepted as ?agent_id=)")


