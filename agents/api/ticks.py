"""Ticks and the audit (DESIGN §16): what each autonomy tick did, and every tool call.

``GET /api/autonomy/ticks/`` lists the kept ticks with their stats and the workers that executed
them; ``GET /api/autonomy/ticks/{id}/`` adds one decision per resident. ``GET /api/tool-calls/``
is the audit, narrowed by ``source``, ``tick`` and ``agent`` (the auditor's view).
"""

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from agents import selectors
from agents.confirmations import readable_tool_names
from agents.models import AgentActionLog, AutonomyRound, ToolCall
from core.api.schema import ErrorSerializer, error_codes
from core.api.serializers import CachedFieldsModelSerializer
from core.params import MAX_ID

TICK_PERMISSION = "agents.view_autonomyround"
AUDIT_PERMISSION = "agents.view_toolcall"


class TickSerializer(CachedFieldsModelSerializer):
    workers = serializers.ListField(child=serializers.CharField(), help_text='["in-process"] without a broker')
    stats = serializers.JSONField(help_text="agents, batches, decided, success, failed, pending, fallback, by_action, tokens, …")

    class Meta:
        model = AutonomyRound
        fields = ["id", "started_at", "finished_at", "provider", "model", "stats", "workers"]
        read_only_fields = fields


class TickOutcomeSerializer(CachedFieldsModelSerializer):
    agent_id = serializers.IntegerField(max_value=MAX_ID)
    agent_name = serializers.CharField(source="agent.name")
    params = serializers.JSONField()
    outcome = serializers.ChoiceField(source="status", choices=AgentActionLog.Status.choices)
    error = serializers.SerializerMethodField(help_text="null, or why the decision failed")

    class Meta:
        model = AgentActionLog
        fields = ["agent_id", "agent_name", "action", "params", "reason", "outcome", "error", "batch", "worker", "fallback"]
        read_only_fields = fields

    def get_error(self, log: AgentActionLog) -> dict | None:
        if log.status != AgentActionLog.Status.FAILED:
            return None
        return {"code": log.error_code, "message": log.message}


class TickDetailSerializer(TickSerializer):
    decisions = serializers.SerializerMethodField(help_text="one per resident of the tick")
    errors = serializers.JSONField(help_text="failed batches: {batch, agent_ids, error}")

    class Meta(TickSerializer.Meta):
        fields = [*TickSerializer.Meta.fields, "errors", "decisions"]
        read_only_fields = fields

    @extend_schema_field(TickOutcomeSerializer(many=True))
    def get_decisions(self, tick: AutonomyRound) -> list[dict]:
        return TickOutcomeSerializer(selectors.tick_decisions(tick=tick), many=True).data


class ToolCallSerializer(CachedFieldsModelSerializer):
    """A call; its ``arguments`` and ``result`` are null (``contents_hidden``) unless the viewer may read
    its tool's domain (``context["readable_tools"]``, ``confirmations.readable_tool_names``)."""

    agent_name = serializers.CharField(source="agent.name", allow_null=True, default=None)
    user = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    tick = serializers.IntegerField(source="round_id", allow_null=True, max_value=MAX_ID)
    arguments = serializers.JSONField(allow_null=True, help_text="null when contents_hidden")
    result = serializers.JSONField(allow_null=True, help_text="null when contents_hidden")
    contents_hidden = serializers.SerializerMethodField(
        help_text="true when the caller may not view the tool's domain: arguments and result are withheld"
    )

    class Meta:
        model = ToolCall
        fields = [
            "id", "created_at", "source", "tick", "agent", "agent_name", "user", "conversation", "tool_name", "arguments",
            "status", "error_code", "result", "duration_ms", "contents_hidden",
        ]
        read_only_fields = fields

    def get_contents_hidden(self, call: ToolCall) -> bool:
        readable = self.context.get("readable_tools", set())
        return readable is not None and call.tool_name not in readable

    def to_representation(self, call: ToolCall) -> dict:
        data = super().to_representation(call)
        if data["contents_hidden"]:
            data["arguments"] = data["result"] = None
        return data


class ToolCallFilterSerializer(serializers.Serializer):
    source = serializers.ChoiceField(choices=ToolCall.Source.values, required=False, help_text="only calls from this surface")
    tick = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text="only calls of this autonomy tick")
    agent = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, help_text="only calls of this agent")


@extend_schema(tags=["autonomy"], summary="Autonomy ticks, newest first", responses={200: TickSerializer(many=True)})
class TickList(GenericAPIView):
    serializer_class = TickSerializer
    permissions = {"GET": TICK_PERMISSION}

    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.tick_list())
        return self.get_paginated_response(TickSerializer(page, many=True).data)


@extend_schema(
    tags=["autonomy"], summary="One tick with every resident's decision",
    responses={200: TickDetailSerializer, 404: ErrorSerializer},
)
@error_codes({404: ("tick_not_found",)})
class TickDetail(GenericAPIView):
    serializer_class = TickDetailSerializer
    permissions = {"GET": TICK_PERMISSION}

    def get(self, request: Request, pk: int) -> Response:
        return Response(TickDetailSerializer(selectors.tick_get(tick_id=pk)).data)


@extend_schema(
    tags=["audit"], summary="The audit: every tool call, newest first",
    parameters=[ToolCallFilterSerializer], responses={200: ToolCallSerializer(many=True), 400: ErrorSerializer},
)
class ToolCallList(GenericAPIView):
    serializer_class = ToolCallSerializer
    permissions = {"GET": AUDIT_PERMISSION}

    def get(self, request: Request) -> Response:
        # A plain dict: a QueryDict would let an empty ``?source=`` through as "not given".
        filters = ToolCallFilterSerializer(data=request.query_params.dict())
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        calls = selectors.tool_call_list(source=data.get("source"), tick_id=data.get("tick"), agent_id=data.get("agent"))
        page = self.paginate_queryset(calls)
        context = {"readable_tools": readable_tool_names(request.user)}
        return self.get_paginated_response(ToolCallSerializer(page, many=True, context=context).data)
