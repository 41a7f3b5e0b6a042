"""Pending-actions API (DESIGN §11): list proposals, confirm (optionally with edited
arguments) or reject them. Confirming runs the action as the calling staff member.

Reads never write: a proposal past its expiry that the autonomy loop has not closed yet is
shown as ``expired`` (listed under ``?status=expired``, not ``?status=pending``)."""

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework import status as http
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from agents.confirmations import (
    DECIDE_PERMISSION,
    confirm_pending_action,
    outcome_message,
    reject_pending_action,
    visible_pending_actions,
)
from agents.models import PendingAction
from core.api.fields import TextField
from core.api.serializers import CachedFieldsModelSerializer
from core.errors import NotFound
from core.api.schema import ErrorSerializer, error_codes


class PendingActionSerializer(CachedFieldsModelSerializer):
    agent_name = serializers.CharField(source="agent.name", read_only=True)
    # null for a proposal from the autonomy tick, one not decided yet, or a deleted user
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    decided_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    status = serializers.ChoiceField(source="effective_status", choices=PendingAction.Status.choices, read_only=True)

    class Meta:
        model = PendingAction
        fields = [
            "id", "tool_name", "agent", "agent_name", "conversation", "mode", "summary", "arguments",
            "version_read", "status", "requested_by", "decided_by", "decided_at", "result", "expires_at", "created_at",
        ]
        read_only_fields = fields


class ConfirmSerializer(serializers.Serializer):
    arguments = serializers.DictField(
        required=False, allow_null=True, help_text="edited arguments, merged over the proposed ones"
    )


class RejectSerializer(serializers.Serializer):
    reason = TextField(required=False, default="", max_length=500)


class DecisionSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField(help_text="the outcome, as written into the conversation")
    pending_action = PendingActionSerializer()


class DecisionErrorSerializer(ErrorSerializer):
    pending_action = PendingActionSerializer(required=False, help_text="a failed action: its recorded result")


def _actions(request: Request) -> QuerySet[PendingAction]:
    """The proposals the caller may see (those they may decide, or of a domain they may view)."""
    actions = PendingAction.objects.select_related("agent", "requested_by", "decided_by").order_by("-created_at", "-id")
    return visible_pending_actions(request.user, actions)


def _decision(action: PendingAction) -> Response:
    """200 with the outcome, or 409 when the action ran and failed (e.g. ``version_conflict``,
    with the fund's ``current`` values); the failure is recorded on the action either way."""
    data = PendingActionSerializer(action).data
    if action.status == PendingAction.Status.FAILED:
        error = action.result.get("error") or {}
        details = {k: v for k, v in error.items() if k not in ("code", "message")}
        body = {"ok": False, "code": error.get("code", "failed"), "reason": outcome_message(action), **details}
        return Response({**body, "pending_action": data}, status=http.HTTP_409_CONFLICT)
    return Response({"ok": True, "message": outcome_message(action), "pending_action": data})


@extend_schema(tags=["pending actions"])
class PendingActionList(GenericAPIView):
    serializer_class = PendingActionSerializer
    permissions = {"GET": "agents.view_pendingaction"}

    @extend_schema(
        operation_id="pending_actions_list",
        parameters=[
            OpenApiParameter(
                "status", OpenApiTypes.STR, enum=PendingAction.Status.values,
                description="only this status (an overdue proposal is expired)",
            ),
        ],
        responses={200: PendingActionSerializer(many=True), 400: DecisionErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status")
        if status is not None and status not in PendingAction.Status.values:
            raise serializers.ValidationError({"status": [f"must be one of {', '.join(PendingAction.Status.values)}"]})
        actions = _actions(request) if status is None else _actions(request).shown_as(status)
        page = self.paginate_queryset(actions)
        return self.get_paginated_response(PendingActionSerializer(page, many=True).data)


@extend_schema(tags=["pending actions"])
@error_codes({404: ("pending_action_not_found",)})
class PendingActionDetail(GenericAPIView):
    serializer_class = PendingActionSerializer
    permissions = {"GET": "agents.view_pendingaction"}

    def get(self, request: Request, pk: int) -> Response:
        action = _actions(request).filter(pk=pk).first()
        if action is None:  # one the caller may not see is told apart from none at all by nothing
            raise NotFound("pending_action_not_found", _("待确认操作不存在"))
        return Response(PendingActionSerializer(action).data)


@extend_schema(
    tags=["pending actions"],
    summary="Confirm: run the proposed action once, as the caller",
    request=ConfirmSerializer,
    responses={200: DecisionSerializer, 400: DecisionErrorSerializer, 403: DecisionErrorSerializer,
               404: DecisionErrorSerializer, 409: DecisionErrorSerializer},
)
@error_codes({400: ("invalid_arguments",), 404: ("pending_action_not_found",), 409: ("pending_action_expired", "pending_action_not_pending", "agent_inactive")}, open_statuses=(400,))
class PendingActionConfirm(GenericAPIView):
    serializer_class = DecisionSerializer
    # The service also asks for the permission the proposed write itself needs.
    permissions = {"POST": DECIDE_PERMISSION}

    def post(self, request: Request, pk: int) -> Response:
        serializer = ConfirmSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        action = confirm_pending_action(action_id=pk, user=request.user, arguments=serializer.validated_data.get("arguments"))
        return _decision(action)


@extend_schema(
    tags=["pending actions"],
    summary="Reject: close the proposal without running it",
    request=RejectSerializer,
    responses={200: DecisionSerializer, 403: DecisionErrorSerializer, 404: DecisionErrorSerializer,
               409: DecisionErrorSerializer},
)
@error_codes({404: ("pending_action_not_found",), 409: ("pending_action_expired", "pending_action_not_pending")})
class PendingActionReject(GenericAPIView):
    serializer_class = DecisionSerializer
    permissions = {"POST": DECIDE_PERMISSION}

    def post(self, request: Request, pk: int) -> Response:
        serializer = RejectSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        action = reject_pending_action(action_id=pk, user=request.user, reason=serializer.validated_data["reason"])
        return _decision(action)
