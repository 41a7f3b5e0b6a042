"""Agent-side business rules: proposals that wait for a staff member's confirmation."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from .events import broadcast
from .models import PendingAction
from .registry import Proposal, ToolContext, ToolSpec


def propose_action(*, spec: ToolSpec, arguments: dict, ctx: ToolContext) -> dict:
    """Record what the agent wants to do instead of doing it; staff decide later."""
    proposal = spec.propose(ctx, **arguments) if spec.propose else Proposal(
        message=_("即将执行「%(tool)s」，请确认是否继续？") % {"tool": spec.name}, form_data=dict(arguments)
    )
    action = PendingAction.objects.create(
        tool_name=spec.name,
        agent=ctx.agent,
        conversation=ctx.conversation,
        requested_by=ctx.user if getattr(ctx.user, "is_authenticated", False) else None,
        arguments=arguments,
        version_read=proposal.version,
        mode=ctx.mode,
        summary=proposal.message,
        expires_at=timezone.now() + timedelta(seconds=settings.PENDING_ACTION_TTL),
    )
    broadcast("pending_action", id=action.pk, tool=action.tool_name, status=action.status)
    return {
        "status": "pending_confirmation",
        "pending_action_id": action.pk,
        "message": proposal.message,
        "form_data": proposal.form_data,
    }
