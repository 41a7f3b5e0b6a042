"""Proposing: a confirmation-requiring tool call becomes a ``PendingAction`` instead of a write.

The executor calls ``propose_action``; deciding the proposal lives in ``agents.confirmations``,
which runs the executor, so this module must not import it.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from core.auth import signed_in
from core.events import broadcast, send_ui_action

from .models import Conversation, PendingAction
from .registry import Proposal, ToolContext, ToolSpec


def propose_action(*, spec: ToolSpec, arguments: dict, ctx: ToolContext) -> dict:
    """Record what the agent wants to do instead of doing it; staff decide later.

    In an embedded chat the staff member's open page is told to open the pre-filled form.
    """
    proposal = spec.propose(ctx, **arguments) if spec.propose else Proposal(
        message=_("即将执行「%(tool)s」，请确认是否继续？") % {"tool": spec.name}, form_data=dict(arguments)
    )
    action = PendingAction.objects.create(
        tool_name=spec.name,
        agent=ctx.agent,
        conversation=ctx.conversation,
        requested_by=signed_in(ctx.user),
        arguments=arguments,
        version_read=proposal.version,
        mode=ctx.mode,
        summary=proposal.message,
        expires_at=timezone.now() + timedelta(seconds=settings.PENDING_ACTION_TTL),
    )
    announce(action)
    result = {
        "status": "pending_confirmation",
        "pending_action_id": action.pk,
        "message": proposal.message,
        "form_data": proposal.form_data,
    }
    if ctx.mode == Conversation.Mode.EMBEDDED and signed_in(ctx.user) is not None:
        send_ui_action(
            ctx.user,
            "open_form",
            url=proposal.url or getattr(ctx.conversation, "page", ""),
            form=proposal.form,
            pending_action_id=action.pk,
            fields=proposal.form_data,
        )
        result.update(message=_("表单已预填，请确认后点击提交按钮"), summary=proposal.message)
    return result


def announce(action: PendingAction) -> None:
    """Tell open pages (after commit) that the action was proposed or decided."""
    broadcast(
        "pending_action",
        id=action.pk,
        tool=action.tool_name,
        status=action.status,
        conversation_id=action.conversation_id,
    )
