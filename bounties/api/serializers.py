from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from bounties.models import MAX_REWARD, Bounty
from core.params import MAX_ID


class BountySerializer(serializers.ModelSerializer):
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


class BountyCreateSerializer(serializers.Serializer):
    """Input shape only; the rules (title required, reward range) are the service's."""

    title = serializers.CharField(required=False, allow_blank=True, default="", help_text="required, at most 200 characters")
    description = serializers.CharField(required=False, allow_blank=True, default="")
    reward = serializers.IntegerField(required=False, allow_null=True, default=None, help_text=f"credits, 1 – {MAX_REWARD}")


class AgentIdSerializer(serializers.Serializer):
    agent_id = serializers.IntegerField(max_value=MAX_ID, min_value=1, help_text="ID of the acting agent (also accepted as ?agent_id=)")


