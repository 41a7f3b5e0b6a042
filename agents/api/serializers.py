from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from agents.models import Agent, Tool
from city import selectors as city
from city.api.serializers import JobSerializer


class ToolSerializer(serializers.ModelSerializer):
    description = serializers.SerializerMethodField()

    class Meta:
        model = Tool
        fields = ["name", "description", "category", "requires_confirmation", "input_schema", "is_active"]

    def get_description(self, tool: Tool) -> str:
        from django.utils import translation

        english = (translation.get_language() or "").startswith("en")
        return (tool.description_en if english and tool.description_en else tool.description_zh) or ""


class AgentSerializer(serializers.ModelSerializer):
    """Read from a queryset passed through ``city.selectors.with_city_state`` (no N+1)."""

    tools = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    job = serializers.SerializerMethodField()
    resources = serializers.SerializerMethodField()

    class Meta:
        model = Agent
        fields = ["id", "name", "persona", "model", "credits", "satiety", "energy", "is_active", "job", "resources", "tools"]

    @extend_schema_field(JobSerializer(allow_null=True))
    def get_job(self, agent: Agent) -> dict | None:
        return city.job_of(agent)

    def get_resources(self, agent: Agent) -> dict[str, int]:
        return city.resources_of(agent)


class ChatInputSerializer(serializers.Serializer):
    # Content rules (blank, length) live in agents.chat.clean_message, shared by every surface.
    message = serializers.CharField(allow_blank=True, trim_whitespace=False)
    conversation_id = serializers.IntegerField(required=False, allow_null=True, min_value=1)


class ChatToolCallSerializer(serializers.Serializer):
    name = serializers.CharField()
    arguments = serializers.JSONField()
    result = serializers.JSONField()


class ChatOutputSerializer(serializers.Serializer):
    conversation_id = serializers.IntegerField(source="conversation.pk")
    reply = serializers.CharField()
    tool_calls = ChatToolCallSerializer(many=True)
