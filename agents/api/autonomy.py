"""Autonomy API (DESIGN §11): ``POST /api/autonomy/tick/`` runs one tick now and returns its stats."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.autonomy.tick import RUN_AUTONOMY_PERMISSION, run_tick
from agents.models import Agent
from agents.providers.base import model_failure
from core.api.fields import JSONBooleanField
from core.api.schema import ErrorSerializer, error_codes
from core.errors import NotFound
from core.params import MAX_ID


class TickInputSerializer(serializers.Serializer):
    agent_ids = serializers.ListField(
        child=serializers.IntegerField(max_value=MAX_ID, min_value=1), required=False, min_length=1, max_length=10_000,
        help_text="only these agents (default: every active resident)",
    )
    dry_run = JSONBooleanField(required=False, default=False, help_text="decide, change nothing")


class TickDecisionSerializer(serializers.Serializer):
    agent_id = serializers.IntegerField(max_value=MAX_ID)
    action = serializers.CharField()
    params = serializers.JSONField()
    reason = serializers.CharField(allow_blank=True)


class TickOutputSerializer(serializers.Serializer):
    round_id = serializers.IntegerField(max_value=MAX_ID, allow_null=True)
    provider = serializers.CharField()
    stats = serializers.JSONField(help_text="agents, batches, decided, success, failed, pending, by_action, tokens, …")
    errors = serializers.JSONField(help_text="failed batches: {batch, agent_ids, error}")
    summary = serializers.CharField(help_text="the stats line the command prints")
    decisions = TickDecisionSerializer(many=True, required=False, help_text="dry run only")


@extend_schema(
    tags=["autonomy"], request=TickInputSerializer,
    responses={200: TickOutputSerializer, 400: ErrorSerializer, 404: ErrorSerializer, 502: TickOutputSerializer, 503: TickOutputSerializer, 504: TickOutputSerializer},
    description="502 / 503 / 504 (`model_error`, `model_unavailable`, `model_timeout`) with the stats when every "
    "resident fell back: no decision came for anyone.",
)
@error_codes({404: ("agent_not_found",), 502: ("model_error",), 503: ("model_unavailable",), 504: ("model_timeout",)})
class AutonomyTick(APIView):
    """Run one autonomy tick now (every active resident, or the given agents)."""

    permissions = {"POST": RUN_AUTONOMY_PERMISSION}

    def post(self, request):
        serializer = TickInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        agent_ids = serializer.validated_data.get("agent_ids")
        if agent_ids is not None:
            missing = set(agent_ids) - set(Agent.objects.filter(pk__in=agent_ids).values_list("pk", flat=True))
            if missing:
                keys = ", ".join(map(str, sorted(missing)))
                raise NotFound("agent_not_found", _("居民不存在：%(key)s") % {"key": keys}, field="agent_ids")
        result = run_tick(agent_ids=agent_ids, dry_run=serializer.validated_data["dry_run"])
        body = {
            "round_id": result.round_id,
            "provider": result.provider,
            "stats": result.stats,
            "errors": result.errors,
            "summary": result.line(),
        }
        if result.dry_run:
            body["decisions"] = [decision.as_json() for decision in result.decisions]
        data = TickOutputSerializer(body).data
        if result.every_batch_failed:  # nobody decided: the model failed, and the answer says how (502/503/504)
            reason = _("本轮没有任何居民得到模型的决定：%(error)s") % {"error": result.errors[0]["error"] if result.errors else ""}
            raise model_failure(result.failure_code, reason, extra=dict(data))
        return Response(data)
