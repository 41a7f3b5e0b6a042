from rest_framework import serializers

from agents.chat import MAX_MESSAGE_LENGTH
from agents.models import Tool
from core.api.fields import TextField
from core.api.schema import ErrorSerializer
from core.api.serializers import CachedFieldsModelSerializer
from core.params import MAX_ID


class ToolSerializer(CachedFieldsModelSerializer):
    description = serializers.SerializerMethodField()

    class Meta:
        model = Tool
        fields = ["name", "description", "category", "requires_confirmation", "input_schema", "is_active"]

    def get_description(self, tool: Tool) -> str:
        from django.utils import translation

        english = (translation.get_language() or "").startswith("en")
        return (tool.description_en if english and tool.description_en else tool.description_zh) or ""


class ChatInputSerializer(serializers.Serializer):
    # Content rules (blank, length) live in agents.chat.clean_message, shared by every surface.
    message = TextField(rule_max_length=MAX_MESSAGE_LENGTH)
    conversation_id = serializers.IntegerField(max_value=MAX_ID, required=False, allow_null=True, min_value=1)


class ChatToolCallSerializer(serializers.Serializer):
    name = serializers.CharField()
    arguments = serializers.JSONField()
    result = serializers.JSONField()


class ChatOutputSerializer(serializers.Serializer):
    conversation_id = serializers.IntegerField(max_value=MAX_ID, source="conversation.pk")
    reply = serializers.CharField()
    tool_calls = ChatToolCallSerializer(many=True)


class ModelFailureSerializer(ErrorSerializer):
    """The chat's answer when the model failed: the user's message is kept in this conversation."""

    conversation_id = serializers.IntegerField()
